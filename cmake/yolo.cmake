# libadept_yolo: YOLO11's training, validation and prediction engine (src/models/yolo/engine/):
# the option table, trainer, validator, predictor and checkpoints. It sits on the detection data
# (adept_vision) and draws with OpenCV, so it is kept out of the core library, which holds the
# model and loss themselves (src/models/yolo/*.cpp).
# The run folder's plots (results.png, curves, confusion matrices) are drawn with PLplot through its
# cairo driver rendering into memory (Debian's libplplot-dev, plplot-driver-cairo).
find_package(PkgConfig REQUIRED)
pkg_check_modules(PLPLOT REQUIRED IMPORTED_TARGET plplot)
file(GLOB ADEPT_YOLO_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/models/yolo/engine/*.cpp)
add_library(adept_yolo SHARED ${ADEPT_YOLO_SOURCES})
target_link_libraries(adept_yolo PUBLIC adept adept_vision
                      PRIVATE ${OPENCV_LIBS} PkgConfig::PLPLOT spdlog::spdlog nlohmann_json::nlohmann_json)
target_include_directories(adept_yolo PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_include_directories(adept_yolo SYSTEM PRIVATE ${OPENCV_INCLUDE})
