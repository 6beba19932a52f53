# asyncshift_rewrite() and asyncshift_add_workload(): the tool as a build step.
#
# Used by this project's own build (bench/, test/) and installed with the CMake
# package, so `find_package(asyncshift CONFIG REQUIRED)` gives users the same
# two functions. Both need the tool as a target, asyncshift::tool (the build
# tree's or the installed one's). docs/usage.md shows them in use.
#
#   asyncshift_rewrite(<out-var> SOURCE <file.cpp> STYLE <style>
#                      [TARGET <target>] [OUTPUT_DIRECTORY <dir>]
#                      [INCLUDE_DIRECTORIES <dir>...] [COMPILE_DEFINITIONS <def>...]
#                      [COMPILE_OPTIONS <opt>...])
#       Adds a custom command that rewrites <file.cpp> into <style> and sets
#       <out-var> to the generated file, <dir>/<stem>.<style><ext> (default
#       <dir>: ${CMAKE_CURRENT_BINARY_DIR}/asyncshift). Add that file to a
#       target of your own. The source is parsed as C++20 (or the newer
#       standard of <target>'s CXX_STANDARD, else CMAKE_CXX_STANDARD), the runtime's
#       include directories, the given ones and, with TARGET, the include
#       directories and compile definitions <target> compiles with (usage
#       requirements of what it links included). The command reruns when the
#       source, anything it includes (depfile) or the tool changes, and never
#       otherwise; a refusal or a compile error fails the build with the tool's
#       diagnostics, which point at <file.cpp>.
#
#   asyncshift_add_workload(<name> SOURCE <file.cpp>
#                           [STYLES callback promise future coro coro-values]
#                           [INCLUDE_DIRECTORIES <dir>...] [COMPILE_DEFINITIONS <def>...]
#                           [COMPILE_OPTIONS <opt>...] [LINK_LIBRARIES <lib>...])
#       One executable per style, <name>_<style> ('-' becomes '_':
#       <name>_coro_values), linked with asyncshift::runtime and
#       asyncshift::bench_main. The callback style compiles the source itself;
#       every other style compiles its rewrite (asyncshift_rewrite with
#       TARGET <name>_<style>, so include directories added to that target
#       later apply to the rewrite as well). The generated files go to
#       ${CMAKE_CURRENT_BINARY_DIR}/asyncshift/<name>/. COMPILE_OPTIONS reach
#       both the compiler and the tool's parser (clang): keep them to flags
#       both understand. Default STYLES: ASYNCSHIFT_ALL_STYLES.
include_guard(GLOBAL)

set(ASYNCSHIFT_ALL_STYLES callback promise future coro coro-values)

# The -D and -U options in the flag string \p flags (as CMAKE_CXX_FLAGS
# holds them), a list in out_var.
function(_asyncshift_macro_flags out_var flags)
  separate_arguments(args UNIX_COMMAND "${flags}")
  set(macros "")
  set(take_next FALSE)
  foreach(arg IN LISTS args)
    if(take_next)
      list(APPEND macros "${arg}")
      set(take_next FALSE)
    elseif(arg MATCHES "^-[DU]$")
      list(APPEND macros "${arg}")
      set(take_next TRUE)
    elseif(arg MATCHES "^-[DU].")
      list(APPEND macros "${arg}")
    endif()
  endforeach()
  set(${out_var} "${macros}" PARENT_SCOPE)
endfunction()

function(asyncshift_rewrite out_var)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "SOURCE;STYLE;TARGET;OUTPUT_DIRECTORY"
                        "INCLUDE_DIRECTORIES;COMPILE_DEFINITIONS;COMPILE_OPTIONS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "asyncshift_rewrite: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_SOURCE OR NOT ARG_STYLE)
    message(FATAL_ERROR "asyncshift_rewrite: SOURCE and STYLE are required")
  endif()
  set(known ${ASYNCSHIFT_ALL_STYLES})
  list(REMOVE_ITEM known callback)
  if(NOT ARG_STYLE IN_LIST known)
    string(REPLACE ";" ", " known "${known}")
    message(FATAL_ERROR "asyncshift_rewrite: unknown style '${ARG_STYLE}' (styles to rewrite into: ${known})")
  endif()
  if(NOT TARGET asyncshift::tool)
    message(FATAL_ERROR "asyncshift_rewrite: the asyncshift tool is not available (no target asyncshift::tool; "
                        "was asyncshift built with ASYNCSHIFT_BUILD_TOOL=ON?)")
  endif()

  get_filename_component(source "${ARG_SOURCE}" ABSOLUTE)
  get_filename_component(stem "${source}" NAME_WE)
  get_filename_component(ext "${source}" LAST_EXT)
  if(ARG_OUTPUT_DIRECTORY)
    get_filename_component(dir "${ARG_OUTPUT_DIRECTORY}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  else()
    set(dir "${CMAKE_CURRENT_BINARY_DIR}/asyncshift")
  endif()
  set(output "${dir}/${stem}.${ARG_STYLE}${ext}")
  set(depfile "${output}.d")

  # One command per output: a second request for the same file (another
  # target wanting the same rewrite) gets the first one's file. Another
  # source with the same name would get it too, and build the wrong code:
  # that is an error.
  get_property(rewritten_from GLOBAL PROPERTY "ASYNCSHIFT_REWRITTEN_FROM_${output}" SET)
  if(rewritten_from)
    get_property(first GLOBAL PROPERTY "ASYNCSHIFT_REWRITTEN_FROM_${output}")
    if(NOT first STREQUAL source)
      message(FATAL_ERROR "asyncshift_rewrite: ${first} and ${source} would both be rewritten to ${output}; "
                          "give one of them its own OUTPUT_DIRECTORY")
    endif()
    set(${out_var} "${output}" PARENT_SCOPE)
    return()
  endif()
  set_property(GLOBAL PROPERTY "ASYNCSHIFT_REWRITTEN_FROM_${output}" "${source}")

  # The parser's flags. Each list becomes one -I/-D per element, and nothing
  # at all when it is empty.
  set(includes "$<TARGET_PROPERTY:asyncshift::runtime,INTERFACE_INCLUDE_DIRECTORIES>")
  set(definitions "")
  if(ARG_TARGET)
    set(includes "$<TARGET_PROPERTY:${ARG_TARGET},INCLUDE_DIRECTORIES>" "${includes}")
    set(definitions "$<TARGET_PROPERTY:${ARG_TARGET},COMPILE_DEFINITIONS>")
  endif()
  foreach(dir IN LISTS ARG_INCLUDE_DIRECTORIES)
    get_filename_component(dir "${dir}" ABSOLUTE)
    list(APPEND includes "${dir}")
  endforeach()
  list(APPEND definitions ${ARG_COMPILE_DEFINITIONS})
  # Join with $<SEMICOLON>: a literal ';' would split the expression itself.
  list(JOIN includes "$<SEMICOLON>" includes)
  list(JOIN definitions "$<SEMICOLON>" definitions)
  set(includes "$<REMOVE_DUPLICATES:$<FILTER:${includes},EXCLUDE,^$>>")
  set(definitions "$<REMOVE_DUPLICATES:$<FILTER:${definitions},EXCLUDE,^$>>")
  # The macros the compiler gets from CMAKE_CXX_FLAGS and the build type's
  # CMAKE_CXX_FLAGS_<CONFIG> (-DNDEBUG in Release) reach the parser too, so
  # that it sees the headers as the compiler does; the other flags there are
  # the compiler's own (-O2, -march=...), not the parser's.
  _asyncshift_macro_flags(macros "${CMAKE_CXX_FLAGS}")
  set(configs ${CMAKE_CONFIGURATION_TYPES} ${CMAKE_BUILD_TYPE})
  list(REMOVE_DUPLICATES configs)
  foreach(config IN LISTS configs)
    string(TOUPPER "${config}" upper)
    _asyncshift_macro_flags(config_macros "${CMAKE_CXX_FLAGS_${upper}}")
    if(config_macros)
      list(JOIN config_macros "$<SEMICOLON>" config_macros)
      list(APPEND macros "$<$<CONFIG:${config}>:${config_macros}>")
    endif()
  endforeach()
  # The language standard: the target's CXX_STANDARD (with TARGET; set
  # after this call in asyncshift_add_workload, hence a generator
  # expression), else CMAKE_CXX_STANDARD, when it is newer than C++20, the
  # least the runtime needs.
  if(ARG_TARGET)
    set(standard "$<TARGET_PROPERTY:${ARG_TARGET},CXX_STANDARD>")
  else()
    set(standard "${CMAKE_CXX_STANDARD}")
  endif()
  set(flags "-std=c++$<IF:$<OR:$<STREQUAL:${standard},23>,$<STREQUAL:${standard},26>>,${standard},20>"
    ${macros}
    "$<$<BOOL:${includes}>:-I$<JOIN:${includes},$<SEMICOLON>-I>>"
    "$<$<BOOL:${definitions}>:-D$<JOIN:${definitions},$<SEMICOLON>-D>>"
    ${ARG_COMPILE_OPTIONS})

  file(RELATIVE_PATH shown "${CMAKE_SOURCE_DIR}" "${source}")
  if(shown MATCHES "^\\.\\./")
    set(shown "${source}")
  endif()
  add_custom_command(
    OUTPUT "${output}"
    COMMAND asyncshift::tool "--style=${ARG_STYLE}" -o "${output}" --depfile "${depfile}" "${source}" -- ${flags}
    DEPENDS "${source}" asyncshift::tool
    DEPFILE "${depfile}"
    COMMENT "asyncshift: rewriting ${shown} into ${ARG_STYLE} style"
    COMMAND_EXPAND_LISTS
    VERBATIM)
  set(${out_var} "${output}" PARENT_SCOPE)
endfunction()

function(asyncshift_add_workload name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "SOURCE"
                        "STYLES;INCLUDE_DIRECTORIES;COMPILE_DEFINITIONS;COMPILE_OPTIONS;LINK_LIBRARIES")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "asyncshift_add_workload: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_SOURCE)
    message(FATAL_ERROR "asyncshift_add_workload: SOURCE is required")
  endif()
  if(NOT ARG_STYLES)
    set(ARG_STYLES ${ASYNCSHIFT_ALL_STYLES})
  endif()
  foreach(style IN LISTS ARG_STYLES)
    if(NOT style IN_LIST ASYNCSHIFT_ALL_STYLES)
      string(REPLACE ";" ", " known "${ASYNCSHIFT_ALL_STYLES}")
      message(FATAL_ERROR "asyncshift_add_workload: unknown style '${style}' (known styles: ${known})")
    endif()
  endforeach()
  get_filename_component(source "${ARG_SOURCE}" ABSOLUTE)
  foreach(style IN LISTS ARG_STYLES)
    string(REPLACE "-" "_" target_style "${style}")
    set(target "${name}_${target_style}")
    if(style STREQUAL "callback")
      set(src "${source}")
    else()
      asyncshift_rewrite(src SOURCE "${source}" STYLE "${style}" TARGET ${target}
        OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/asyncshift/${name}"
        COMPILE_OPTIONS ${ARG_COMPILE_OPTIONS})
    endif()
    add_executable(${target} "${src}")
    target_include_directories(${target} PRIVATE ${ARG_INCLUDE_DIRECTORIES})
    # The style this binary is meant to run: its harness refuses to run an
    # entry the rewrite left in another style.
    target_compile_definitions(${target} PRIVATE ${ARG_COMPILE_DEFINITIONS} "ASYNCSHIFT_BENCH_STYLE=\"${style}\"")
    target_compile_options(${target} PRIVATE ${ARG_COMPILE_OPTIONS})
    target_link_libraries(${target} PRIVATE asyncshift::runtime asyncshift::bench_main ${ARG_LINK_LIBRARIES})
  endforeach()
endfunction()
