# Installation: the tool, the runtime headers, the runtime and benchmark-main
# libraries, the benchmark driver (asyncshift-bench), and a relocatable CMake
# package:
#
#   cmake --install build --prefix P
#   find_package(asyncshift CONFIG REQUIRED)      # with P in CMAKE_PREFIX_PATH
#
# gives the imported targets asyncshift::tool, asyncshift::runtime and
# asyncshift::bench_main, asyncshift_rewrite() and asyncshift_add_workload().
# Every path in the package is relative to P, so the prefix can be moved or
# copied after installation. Kept out of runtime/, tool/ and bench/ so those
# CMakeLists.txt say only how to build.
include_guard(GLOBAL)
include(CMakePackageConfigHelpers)

set(ASYNCSHIFT_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/asyncshift"
    CACHE STRING "Where the asyncshift CMake package goes, relative to the install prefix")
mark_as_advanced(ASYNCSHIFT_INSTALL_CMAKEDIR)

set(ASYNCSHIFT_INSTALLED_TARGETS asyncshift_runtime asyncshift_bench_main)

if(ASYNCSHIFT_BUILD_TOOL)
  # The tool looks for the runtime headers at <its dir>/../include (see
  # runtimeIncludeDir in transforms/Driver.cpp); any other layout makes it
  # fall back to this source tree's headers.
  if(NOT CMAKE_INSTALL_BINDIR STREQUAL "bin" OR NOT CMAKE_INSTALL_INCLUDEDIR STREQUAL "include")
    message(WARNING "asyncshift: the installed tool finds the runtime headers only in <prefix>/include "
                    "next to <prefix>/bin (CMAKE_INSTALL_BINDIR=${CMAKE_INSTALL_BINDIR}, "
                    "CMAKE_INSTALL_INCLUDEDIR=${CMAKE_INSTALL_INCLUDEDIR})")
  endif()
  # Keep the run path to LLVM's libraries (libclang-cpp, libLLVM) when
  # installed, as in the build tree: the tool then runs from any prefix even
  # where those libraries are not on the loader's default path. Clang's
  # builtin headers are found through the resource directory pinned at build
  # time (ASYNCSHIFT_CLANG_RESOURCE_DIR), not relative to the tool.
  set_target_properties(asyncshift_tool PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
  list(APPEND ASYNCSHIFT_INSTALLED_TARGETS asyncshift_tool)
endif()

install(TARGETS ${ASYNCSHIFT_INSTALLED_TARGETS}
  EXPORT asyncshiftTargets
  RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}"
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}")
# The benchmark driver, for workloads of the user's own: every style side by
# side, the tables of `make bench` (scripts/bench.py --help).
install(PROGRAMS "${PROJECT_SOURCE_DIR}/scripts/bench.py"
  DESTINATION "${CMAKE_INSTALL_BINDIR}" RENAME asyncshift-bench)
install(DIRECTORY "${PROJECT_SOURCE_DIR}/runtime/include/asyncshift"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
  FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h")

install(EXPORT asyncshiftTargets
  NAMESPACE asyncshift::
  FILE asyncshiftTargets.cmake
  DESTINATION "${ASYNCSHIFT_INSTALL_CMAKEDIR}")

configure_package_config_file(
  "${CMAKE_CURRENT_LIST_DIR}/asyncshiftConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/cmake/asyncshiftConfig.cmake"
  INSTALL_DESTINATION "${ASYNCSHIFT_INSTALL_CMAKEDIR}")
# 0.x: a minor version may break the interface, so 0.1 accepts 0.1.z only.
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/cmake/asyncshiftConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY SameMinorVersion)
install(FILES
  "${PROJECT_BINARY_DIR}/cmake/asyncshiftConfig.cmake"
  "${PROJECT_BINARY_DIR}/cmake/asyncshiftConfigVersion.cmake"
  "${CMAKE_CURRENT_LIST_DIR}/AsyncshiftWorkload.cmake"
  DESTINATION "${ASYNCSHIFT_INSTALL_CMAKEDIR}")
