# libadept_onnx: ONNX model import and the graph writer export uses (src/onnx/). Parsing uses Debian's libonnx-dev: its CMake package
# exports `onnx_proto`, the compiled onnx-ml.proto messages (ModelProto, TensorProto ...), which we
# link instead of compiling onnx.proto ourselves: a second copy of the same descriptors in one
# process aborts at start-up ("File already exists in database"), e.g. next to PyTorch, which links
# the same libonnx_proto. Its checker and shape inference (ONNX 1.12) are not used: the importer
# handles opsets 9 to 25 itself. protobuf stays a private dependency of this library, out of the core.
find_package(Protobuf REQUIRED)
find_package(ONNX REQUIRED CONFIG)

file(GLOB ADEPT_ONNX_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/onnx/*.cpp)
add_library(adept_onnx SHARED ${ADEPT_ONNX_SOURCES})
target_link_libraries(adept_onnx PUBLIC adept PRIVATE onnx_proto protobuf::libprotobuf)
target_include_directories(adept_onnx PRIVATE ${PROJECT_SOURCE_DIR}/src)
