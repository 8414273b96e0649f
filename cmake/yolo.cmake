# libadept_yolo: YOLO11's training, validation, prediction and export engine (src/models/yolo/engine/):
# the option table, trainer, validator, predictor, checkpoints and the ONNX exporter (which emits
# through libadept_onnx's GraphWriter). It sits on the detection data (adept_vision) and draws with
# OpenCV, so it is kept out of the core library, which holds the model and loss themselves
# (src/models/yolo/*.cpp).
# The run folder's plots (results.png, curves, confusion matrices) are drawn with PLplot through its
# cairo driver rendering into memory (Debian's libplplot-dev, plplot-driver-cairo).
find_package(PkgConfig REQUIRED)
pkg_check_modules(PLPLOT REQUIRED IMPORTED_TARGET plplot)
file(GLOB ADEPT_YOLO_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/models/yolo/engine/*.cpp)
add_library(adept_yolo SHARED ${ADEPT_YOLO_SOURCES})
target_link_libraries(adept_yolo PUBLIC adept adept_vision adept_onnx
                      PRIVATE ${OPENCV_LIBS} PkgConfig::PLPLOT spdlog::spdlog nlohmann_json::nlohmann_json)
target_include_directories(adept_yolo PRIVATE ${PROJECT_SOURCE_DIR}/src)
# The version written into exported models (ONNX producer_version and metadata); on that one file, so the
# other files' compiler-cache entries do not depend on it.
set_source_files_properties(${PROJECT_SOURCE_DIR}/src/models/yolo/engine/export_onnx.cpp PROPERTIES
                            COMPILE_DEFINITIONS ADEPT_VERSION="${PROJECT_VERSION}")
target_include_directories(adept_yolo SYSTEM PRIVATE ${OPENCV_INCLUDE})
