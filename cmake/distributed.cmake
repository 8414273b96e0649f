# libadept_mpi: the "mpi" transport of adept::distributed's process groups (src/distributed/mpi/), on
# Debian's libopenmpi-dev (Open MPI 4.1). The core (process groups, DDP, SyncBatchNorm in
# src/distributed/) has no MPI in it: init_process_group("mpi") opens this plugin from libadept.so's folder
# (src/distributed/backend.cpp), so libadept, the adept tool and the Python module load on machines
# without Open MPI. Only MPI's C API is used (the C++ bindings were removed from the MPI standard).
find_package(MPI REQUIRED COMPONENTS C)
file(GLOB ADEPT_MPI_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/distributed/mpi/*.cpp)
add_library(adept_mpi SHARED ${ADEPT_MPI_SOURCES})
target_link_libraries(adept_mpi PRIVATE adept MPI::MPI_C)
target_include_directories(adept_mpi PRIVATE ${PROJECT_SOURCE_DIR}/src)
# mpi.h pulls in the deprecated C++ bindings when compiled as C++ unless told not to.
target_compile_definitions(adept_mpi PRIVATE OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)
# Its users depend on it by name (the adept tool, the Python module and the MPI tests add_dependencies on
# adept_mpi), since it is opened at run time rather than linked.
