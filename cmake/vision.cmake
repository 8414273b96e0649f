# libadept_vision: image decoding, detection augmentation and datasets (src/vision/). Debian's
# libopencv-{core,imgproc}-dev ship no CMake config (only the whole libopencv-dev does, with VTK
# and Qt behind it), so the two libraries are found directly. OpenCV is kept for geometry only:
# its imgcodecs pulls GDAL and ~150 shared libraries, so JPEG and PNG are decoded on libjpeg-turbo
# and libpng directly (src/vision/codec_*.cpp), which keeps the device bundle small.
find_path(OPENCV_INCLUDE opencv2/core.hpp PATH_SUFFIXES opencv4)
foreach(component core imgproc)
  find_library(OPENCV_${component}_LIB opencv_${component})
  if(NOT OPENCV_${component}_LIB OR NOT OPENCV_INCLUDE)
    message(FATAL_ERROR "OpenCV ${component} not found: run scripts/setup.sh")
  endif()
  list(APPEND OPENCV_LIBS ${OPENCV_${component}_LIB})
endforeach()
find_package(JPEG REQUIRED)
find_package(PNG REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(spdlog REQUIRED)

file(GLOB_RECURSE ADEPT_VISION_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/vision/*.cpp)
add_library(adept_vision SHARED ${ADEPT_VISION_SOURCES})
target_link_libraries(adept_vision PUBLIC adept
                      PRIVATE ${OPENCV_LIBS} JPEG::JPEG PNG::PNG yaml-cpp spdlog::spdlog nlohmann_json::nlohmann_json)
target_include_directories(adept_vision PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_include_directories(adept_vision SYSTEM PRIVATE ${OPENCV_INCLUDE})
