# Installation: the tool, the runtime headers, the benchmark main, and a
# relocatable CMake package (find_package(asyncshift CONFIG REQUIRED)).
include(CMakePackageConfigHelpers)
