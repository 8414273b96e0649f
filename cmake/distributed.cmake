# libadept_distributed: process groups and data-parallel training over Open MPI (src/distributed/).
# Debian's libopenmpi-dev (Open MPI 4.1) stays a dependency of this library only, out of the core.
# Only MPI's C API is used (the C++ bindings were removed from the MPI standard).
find_package(MPI REQUIRED COMPONENTS C)
file(GLOB ADEPT_DISTRIBUTED_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/distributed/*.cpp)
add_library(adept_distributed SHARED ${ADEPT_DISTRIBUTED_SOURCES})
target_link_libraries(adept_distributed PUBLIC adept PRIVATE MPI::MPI_C)
target_include_directories(adept_distributed PRIVATE ${PROJECT_SOURCE_DIR}/src)
# mpi.h pulls in the deprecated C++ bindings when compiled as C++ unless told not to.
target_compile_definitions(adept_distributed PRIVATE OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)
