# lit configuration for the asyncshift tool tests.
#
# Positive tests strip their own CHECK lines before rewriting (the tool echoes
# its input, and FileCheck must not match a pattern against itself), rewrite
# with the tool, FileCheck the output, and compile it with both compilers.
import os
import lit.formats

config.name = "asyncshift"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".cpp"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.asyncshift_binary_dir, "test", "lit")

flags = "-std=c++20 -I" + config.asyncshift_runtime_include + " -I" + os.path.join(config.test_source_root, "Inputs")
warn = "-Wall -Wextra -Werror"
config.substitutions.append(("%asyncshift", config.asyncshift_tool))
config.substitutions.append(("%flags", flags))
# Strip check lines of every prefix (CHECK, CORO, PROMISE_2, ...; keeping the
# line count, so diagnostics keep their lines): an echoed `// CORO: x` would
# otherwise satisfy the check `CORO: x` itself.
config.substitutions.append(("%strip", "sed -E -e 's#^ *// *[A-Z][A-Z0-9_]*(-(NEXT|LABEL|NOT|SAME|DAG|EMPTY|COUNT-[0-9]+))?:.*$#//#'"))
# The runtime is precompiled (test/lit/CMakeLists.txt); without the PCH the
# checks still work, only slower.
gxx_pch = clang_pch = ""
if os.path.exists(config.pch_header + ".gch"):
    gxx_pch = "-include %s -Winvalid-pch" % config.pch_header
if os.path.exists(os.path.join(config.pch_dir, "asyncshift_all.pch")):
    clang_pch = "-include-pch %s" % os.path.join(config.pch_dir, "asyncshift_all.pch")
# The tool's own parse of a test takes the clang PCH too: a test's input
# includes the whole runtime, and parsing it is most of a rewrite's time (1.6 s
# per run without the PCH, 0.4 s with it). The cli tests keep %flags, so that
# the plain parse of the headers stays tested.
config.substitutions.append(("%{tool_flags}", (flags + " " + clang_pch).strip()))
# The bare clang++ driver, for tests that need a compiler output (a PCH).
config.substitutions.append(("%clang_driver", config.clangxx))
config.substitutions.append(("%gxx", "%s %s %s %s -fsyntax-only -x c++" % (config.gxx, flags, warn, gxx_pch)))
config.substitutions.append(("%clangxx", "%s %s %s %s -fsyntax-only -x c++" % (config.clangxx, flags, warn, clang_pch)))

config.environment["PATH"] = os.pathsep.join([config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])])
