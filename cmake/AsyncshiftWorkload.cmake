# asyncshift_rewrite() and asyncshift_add_workload(): the tool as a build step.
#
#   asyncshift_rewrite(<out-var> SOURCE <file.cpp> STYLE <style>
#                      [INCLUDE_DIRECTORIES dir...] [COMPILE_OPTIONS opt...])
#       Adds a custom command that rewrites <file.cpp> into <style> and sets
#       <out-var> to the generated file (in the build tree). It reruns when the
#       source or anything it includes changes (depfile), and never otherwise.
#
#   asyncshift_add_workload(<name> SOURCE <file.cpp>
#                           [STYLES callback promise future coro coro-values])
#       One executable per style, <name>_<style>, linked with the runtime and
#       the benchmark main. The callback style is the source itself.
include_guard(GLOBAL)

set(ASYNCSHIFT_ALL_STYLES callback coro coro-values)

function(asyncshift_rewrite out_var)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "SOURCE;STYLE;OUTPUT_DIRECTORY" "INCLUDE_DIRECTORIES;COMPILE_OPTIONS")
  if(NOT ARG_SOURCE OR NOT ARG_STYLE)
    message(FATAL_ERROR "asyncshift_rewrite: SOURCE and STYLE are required")
  endif()
  if(NOT TARGET asyncshift::tool)
    message(FATAL_ERROR "asyncshift_rewrite: the asyncshift tool is not available (asyncshift::tool)")
  endif()
  get_filename_component(source "${ARG_SOURCE}" ABSOLUTE)
  get_filename_component(stem "${source}" NAME_WE)
  get_filename_component(ext "${source}" LAST_EXT)
  if(ARG_OUTPUT_DIRECTORY)
    set(dir "${ARG_OUTPUT_DIRECTORY}")
  else()
    set(dir "${CMAKE_CURRENT_BINARY_DIR}/asyncshift")
  endif()
  set(output "${dir}/${stem}.${ARG_STYLE}${ext}")
  set(depfile "${dir}/${stem}.${ARG_STYLE}${ext}.d")
  set(includes "$<TARGET_PROPERTY:asyncshift::runtime,INTERFACE_INCLUDE_DIRECTORIES>")
  set(flags -std=c++20 "-I$<JOIN:${includes},;-I>")
  foreach(inc IN LISTS ARG_INCLUDE_DIRECTORIES)
    list(APPEND flags "-I${inc}")
  endforeach()
  list(APPEND flags ${ARG_COMPILE_OPTIONS})
  file(RELATIVE_PATH shown "${CMAKE_BINARY_DIR}" "${output}")
  add_custom_command(
    OUTPUT "${output}"
    COMMAND asyncshift::tool --style=${ARG_STYLE} -o "${output}" --depfile "${depfile}" "${source}" -- ${flags}
    DEPENDS "${source}" asyncshift::tool
    DEPFILE "${depfile}"
    COMMENT "asyncshift: rewriting ${ARG_SOURCE} into ${ARG_STYLE} style"
    COMMAND_EXPAND_LISTS
    VERBATIM)
  set(${out_var} "${output}" PARENT_SCOPE)
endfunction()

function(asyncshift_add_workload name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "SOURCE" "STYLES;INCLUDE_DIRECTORIES;COMPILE_OPTIONS")
  if(NOT ARG_SOURCE)
    message(FATAL_ERROR "asyncshift_add_workload: SOURCE is required")
  endif()
  if(NOT ARG_STYLES)
    set(ARG_STYLES ${ASYNCSHIFT_ALL_STYLES})
  endif()
  foreach(style IN LISTS ARG_STYLES)
    string(REPLACE "-" "_" target_style "${style}")
    set(target "${name}_${target_style}")
    if(style STREQUAL "callback")
      set(src "${ARG_SOURCE}")
    else()
      asyncshift_rewrite(src SOURCE "${ARG_SOURCE}" STYLE "${style}"
        OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/asyncshift/${name}"
        INCLUDE_DIRECTORIES ${ARG_INCLUDE_DIRECTORIES}
        COMPILE_OPTIONS ${ARG_COMPILE_OPTIONS})
    endif()
    add_executable(${target} "${src}")
    target_include_directories(${target} PRIVATE ${ARG_INCLUDE_DIRECTORIES})
    target_compile_options(${target} PRIVATE ${ARG_COMPILE_OPTIONS})
    target_link_libraries(${target} PRIVATE asyncshift::runtime asyncshift::bench_main)
  endforeach()
endfunction()
