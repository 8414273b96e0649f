# The Python wheel's install rules (`pip install .`: pyproject.toml, scikit-build-core, which sets
# SKBUILD and installs into the wheel's site-packages root). Everything goes under adept/ and finds
# its siblings through $ORIGIN-relative RPATHs, so the installed package works wherever it lands:
#   adept/**/*.py                 the pure-Python sources, copied from python/adept/
#   adept/_C.<abi>.so             the extension                          (RPATH $ORIGIN/lib)
#   adept/lib/libadept*.so        the core, vision, YOLO and ONNX libraries, and the Open MPI plugin
#                                 libadept_mpi.so (libmpi from the system)  (RPATH $ORIGIN)
#   adept/bin/adept               the command-line tool, run by the `adept` console script and
#                                 `python -m adept` (python/adept/_cli.py)  (RPATH $ORIGIN/../lib)
# libadept.so keeps the OpenMP build of OpenBLAS's folder in its RPATH, as in the build tree: the
# system-wide libopenblas.so.0 is an alternatives link that may name another build.
if(NOT TARGET adept_python OR NOT TARGET adept_cli)
  message(FATAL_ERROR "the wheel needs the Python module and the adept tool: ADEPT_BUILD_PYTHON=ON ADEPT_BUILD_APPS=ON")
endif()
get_filename_component(ADEPT_OPENBLAS_DIR ${OPENBLAS_LIB} DIRECTORY)
set_target_properties(adept PROPERTIES INSTALL_RPATH "$ORIGIN;${ADEPT_OPENBLAS_DIR}")
set_target_properties(adept_vision adept_yolo adept_onnx adept_mpi PROPERTIES INSTALL_RPATH "$ORIGIN")
set_target_properties(adept_python PROPERTIES INSTALL_RPATH "$ORIGIN/lib")
set_target_properties(adept_cli PROPERTIES INSTALL_RPATH "$ORIGIN/../lib")

install(TARGETS adept adept_vision adept_yolo adept_onnx adept_mpi LIBRARY DESTINATION adept/lib)
install(TARGETS adept_python LIBRARY DESTINATION adept)
install(TARGETS adept_cli RUNTIME DESTINATION adept/bin)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/adept/ DESTINATION adept
        FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
