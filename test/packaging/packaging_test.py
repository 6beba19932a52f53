#!/usr/bin/env python3
"""Packaging tests: asyncshift used the way users use it.

Each subcommand is one CTest test (test/packaging/CMakeLists.txt). They share
a work directory laid out like a user's checkout:

    WORK/root/build              -> this build tree (symlink)
    WORK/root/examples/consumer  a copy of examples/consumer (tests touch it)
    WORK/root/build-consumer     the consumer's build, against the package
    WORK/prefix                  the installed package (installed elsewhere, then moved)

The shell commands come from docs/usage.md: a fenced ```sh block preceded by
`<!-- test: NAME -->` is run by name here, with PREFIX set, from WORK/root, so
the documentation's examples are exactly what is tested.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys

STYLES = ["callback", "promise", "future", "coro", "coro-values"]


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


class Env:
    def __init__(self, args):
        self.args = args
        self.work = os.path.abspath(args.work_dir)
        self.root = os.path.join(self.work, "root")
        self.prefix = os.path.join(self.work, "prefix")
        self.consumer_src = os.path.join(self.root, "examples", "consumer")
        self.consumer_build = os.path.join(self.root, "build-consumer")
        self.usage = os.path.join(args.source_dir, "docs", "usage.md")

    def environ(self, prefix=None):
        env = dict(os.environ)
        tools = [os.path.dirname(self.args.cmake), os.path.dirname(self.args.make_program)]
        env["PATH"] = os.pathsep.join(tools + [env.get("PATH", "")])
        env["PREFIX"] = prefix or self.prefix
        env["CXX"] = self.args.cxx
        env.pop("MAKEFLAGS", None)
        # Nothing from the calling build may leak into the user's one.
        for var in ("CMAKE_PREFIX_PATH", "asyncshift_DIR", "asyncshift_ROOT", "DESTDIR"):
            env.pop(var, None)
        return env

    def run(self, cmd, cwd=None, prefix=None, expect_ok=True, echo=True):
        """Runs cmd (a list, or a shell script string); returns combined output."""
        shell = isinstance(cmd, str)
        if echo:
            print("$ " + (cmd if shell else " ".join(cmd)), flush=True)
        p = subprocess.run(["bash", "-eo", "pipefail", "-c", cmd] if shell else cmd, cwd=cwd or self.root,
                           env=self.environ(prefix), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if echo:
            sys.stdout.write(p.stdout)
        if expect_ok and p.returncode != 0:
            raise Failure("command failed with status %d" % p.returncode)
        if not expect_ok and p.returncode == 0:
            raise Failure("command succeeded but should have failed")
        return p.stdout

    def ninja(self, build_dir, *args, expect_ok=True, echo=True):
        return self.run([self.args.make_program, "-C", build_dir] + list(args), expect_ok=expect_ok, echo=echo)


def doc_blocks(path):
    """The tested shell blocks of docs/usage.md, by name."""
    text = open(path, encoding="utf-8").read()
    blocks = {}
    for m in re.finditer(r"<!--\s*test:\s*([\w-]+)\s*-->\s*\n```sh\n(.*?)```", text, re.S):
        check(m.group(1) not in blocks, "docs/usage.md: two blocks named %r" % m.group(1))
        blocks[m.group(1)] = m.group(2)
    return blocks


def run_doc_block(env, name, prefix=None):
    blocks = doc_blocks(env.usage)
    check(name in blocks, "docs/usage.md has no block marked <!-- test: %s -->" % name)
    print("# docs/usage.md, block '%s'" % name, flush=True)
    return env.run(blocks[name], prefix=prefix)


# --- install ----------------------------------------------------------------

def cmd_install(env):
    """Installs into one prefix, moves it to another, checks the layout."""
    shutil.rmtree(env.work, ignore_errors=True)
    os.makedirs(env.root)
    os.symlink(env.args.build_dir, os.path.join(env.root, "build"))
    shutil.copytree(os.path.join(env.args.source_dir, "examples", "consumer"), env.consumer_src)

    staging = os.path.join(env.work, "staging")
    run_doc_block(env, "install", prefix=staging)
    # Relocatable: everything below is used from where the package was moved to.
    os.rename(staging, env.prefix)

    expected = ["bin/asyncshift", "bin/asyncshift-bench", "include/asyncshift/callback.hpp", "include/asyncshift/bench.hpp",
                "include/asyncshift/task.hpp", "include/asyncshift/promise.hpp", "include/asyncshift/future.hpp",
                "include/asyncshift/detail"]
    for rel in expected:
        check(os.path.exists(os.path.join(env.prefix, rel)), "not installed: " + rel)
    libs = [os.path.join(d, f) for d, _, fs in os.walk(env.prefix) for f in fs]
    check(any(f.endswith("/libasyncshift_bench_main.a") for f in libs), "benchmark main library not installed")
    cmakedirs = sorted({os.path.dirname(f) for f in libs if f.endswith("/asyncshiftConfig.cmake")})
    check(len(cmakedirs) == 1, "expected one asyncshiftConfig.cmake, found %s" % cmakedirs)
    cmakedir = cmakedirs[0]
    for f in ["asyncshiftConfig.cmake", "asyncshiftConfigVersion.cmake", "asyncshiftTargets.cmake",
              "AsyncshiftWorkload.cmake"]:
        check(os.path.exists(os.path.join(cmakedir, f)), "not installed: %s/%s" % (cmakedir, f))
    # No path of the staging prefix, the build tree or the source tree in the package.
    for f in libs:
        if f.endswith((".cmake", ".hpp", ".h")):
            text = open(f, encoding="utf-8", errors="replace").read()
            for bad in (staging, os.path.realpath(env.args.build_dir), os.path.realpath(env.args.source_dir)):
                check(bad not in text, "%s mentions %s: the package is not relocatable" % (f, bad))
    version = env.run([os.path.join(env.prefix, "bin", "asyncshift"), "--version"])
    check(re.search(r"asyncshift \d+\.\d+\.\d+ \(LLVM/Clang 19\.1", version), "unexpected --version output")


# --- the tool on files --------------------------------------------------------

def cmd_tool_on_files(env):
    """docs/usage.md's command lines, with the installed tool."""
    out = run_doc_block(env, "files")
    check("asyncshift::task<> place_order(std::uint64_t k)" in out, "no coroutine version of place_order on stdout")
    gen = os.path.join(env.root, "gen", "orders.promise.cpp")
    check(os.path.exists(gen), "--out-dir did not write gen/orders.promise.cpp")
    check("asyncshift::promise<> place_order" in open(gen).read(), "gen/orders.promise.cpp is not promise style")
    # The moved prefix's headers, not the source tree's: ask for a depfile.
    dep = os.path.join(env.work, "files.d")
    env.run([os.path.join(env.prefix, "bin", "asyncshift"), "--style=coro", "-o", os.path.join(env.work, "files.cpp"),
             "--depfile", dep, os.path.join(env.consumer_src, "orders.cpp"), "--", "-std=c++20",
             "-I" + os.path.join(env.consumer_src, "include")], echo=False)
    deps = open(dep).read()
    installed = os.path.join(os.path.realpath(env.prefix), "include", "asyncshift", "callback.hpp")
    check(installed in deps, "the installed tool did not read the installed runtime headers:\n" + deps)
    check(os.path.realpath(env.args.source_dir) not in deps.replace(os.path.realpath(env.work), ""),
          "the installed tool read headers from the source tree:\n" + deps)


# --- the consumer -------------------------------------------------------------

def cmd_consumer_build(env):
    shutil.rmtree(env.consumer_build, ignore_errors=True)
    out = run_doc_block(env, "build")
    for style in STYLES:
        exe = os.path.join(env.consumer_build, "orders_" + style.replace("-", "_"))
        check(os.access(exe, os.X_OK), "not built: " + exe)
    check(os.access(os.path.join(env.consumer_build, "restock"), os.X_OK), "not built: restock")
    for style in STYLES[1:]:
        gen = os.path.join(env.consumer_build, "asyncshift", "orders", "orders.%s.cpp" % style)
        check(os.path.exists(gen), "generated source not in the build tree: " + gen)
    check(os.path.realpath(env.prefix) in open(os.path.join(env.consumer_build, "CMakeCache.txt")).read(),
          "the consumer did not find the package in the moved prefix")
    # The tool reads the consumer's compile_commands.json (-p).
    out = run_doc_block(env, "files-p")
    check("asyncshift::task<error> place_order" in out or "asyncshift::task<asyncshift::error> place_order" in out,
          "no coro-values version of place_order from -p build-consumer")


def json_lines(text):
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def cmd_consumer_run(env):
    runs = json_lines(run_doc_block(env, "run"))
    orders = [r for r in runs if r.get("workload") == "orders"]
    check(sorted({r["style"] for r in orders}) == sorted(STYLES), "styles run: %s" % [r["style"] for r in orders])
    injected = [r for r in orders if r["e"] > 0]
    check(len(injected) == len(STYLES), "expected one run per style with injected errors")
    digests = {r["style"]: r["trace_digest"] for r in injected}
    check(len(set(digests.values())) == 1, "the styles do different things: %s" % digests)
    for r in injected:
        check(r["completed"] == r["n"], "%s: not every execution ended" % r["style"])
        check(r["failed"] > 0, "%s: no injected failure" % r["style"])
    check(any(r.get("workload") == "restock" for r in runs), "restock did not run")


def cmd_consumer_bench(env):
    """The installed driver compares the consumer's styles: one table per suite, every style's digest the callback's."""
    out = run_doc_block(env, "bench")
    for suite_title in ("(virtual clock)", "(virtual clock, likelihood of rejection 0.1)"):
        check("orders: results for 20000 parallel executions, 1 ms per I/O op %s" % suite_title in out,
              "no orders table %s in the driver's output" % suite_title)
    for style in STYLES:
        rows = re.findall(r"^orders\.%s +.* (same|DIFFERS)$" % re.escape(style), out, re.M)
        check(rows == ["same", "same"], "orders.%s: digests %s (expected 'same' in both tables)" % (style, rows))
    check(os.path.exists(os.path.join(env.consumer_build, "bench", "quick", "results.json")), "no results.json")


# --- incremental builds -------------------------------------------------------

def no_work(env):
    out = env.ninja(env.consumer_build, "-n", "-d", "explain", echo=False)
    check("ninja: no work to do." in out, "a build with nothing changed would run:\n" + out)


def cmd_nothing_reruns(env):
    """A second build after a complete one runs nothing (neither rewrites nor compiles)."""
    out = env.ninja(env.consumer_build)
    check("ninja: no work to do." in out, "the second build ran something:\n" + out)
    no_work(env)


def rewrites_in(output):
    return set(re.findall(r"asyncshift: rewriting (\S+) into ([\w-]+) style", output))


def cmd_header_touch(env):
    """Touching a header that orders.cpp includes reruns orders' rewrites, and nothing of restock."""
    env.ninja(env.consumer_build, echo=False)
    no_work(env)
    gen_dir = os.path.join(env.consumer_build, "asyncshift")
    generated = {os.path.join(d, f): os.stat(os.path.join(d, f)).st_mtime_ns
                 for d, _, fs in os.walk(gen_dir) for f in fs if f.endswith(".cpp")}
    header = os.path.join(env.consumer_src, "include", "shop", "orders.hpp")
    os.utime(header, None)

    expected = {("orders.cpp", style) for style in STYLES[1:]}
    dry = env.ninja(env.consumer_build, "-n", echo=False)
    print(dry)
    check(rewrites_in(dry) == expected, "dry run would rewrite %s, expected %s" % (rewrites_in(dry), expected))
    check("restock" not in dry, "touching shop/orders.hpp would rebuild restock:\n" + dry)

    out = env.ninja(env.consumer_build)
    check(rewrites_in(out) == expected, "the build rewrote %s, expected %s" % (rewrites_in(out), expected))
    check("restock" not in out, "touching shop/orders.hpp rebuilt restock")
    for path, before in generated.items():
        after = os.stat(path).st_mtime_ns
        if "/orders/" in path:
            check(after > before, "not regenerated: " + path)
        else:
            check(after == before, "regenerated although it does not include the header: " + path)
    no_work(env)


# --- diagnostics ----------------------------------------------------------------

def workload_project(name):
    """A project with one workload, <name>.cpp, rewritten into coro style."""
    return """cmake_minimum_required(VERSION 3.25)
project(%s LANGUAGES CXX)
find_package(asyncshift CONFIG REQUIRED)
asyncshift_add_workload(%s SOURCE %s.cpp STYLES coro)
""" % (name, name, name)


SYNTAX_ERROR = """#include <asyncshift/bench.hpp>

void broken(std::uint64_t k, asyncshift::callback<> done) {
  asyncshift::fake::io("step", static_cast<std::int64_t>(k), [=](asyncshift::error err, std::int64_t) {
    done(err)
  });
}

ASYNCSHIFT_WORKLOAD("broken", broken);
"""

REFUSED = """#include <asyncshift/bench.hpp>

void broken(std::uint64_t k, asyncshift::callback<> done) {
  asyncshift::fake::io("step", static_cast<std::int64_t>(k), [=](asyncshift::error err, std::int64_t n) {
    if (err) return done(err);
    while (true) { if (n % 2 == 0) return done(err); done({}); break; } // refused: done() without return
  });
}

ASYNCSHIFT_WORKLOAD("broken", broken);
"""


def scratch_project(env, name, cmakelists, source_name, source, cmake_args=(), echo=False):
    """A fresh project under the work directory, configured against the prefix: (source path, build dir)."""
    src = os.path.join(env.work, name)
    build = os.path.join(env.work, name + "-build")
    shutil.rmtree(src, ignore_errors=True)
    shutil.rmtree(build, ignore_errors=True)
    os.makedirs(src)
    open(os.path.join(src, "CMakeLists.txt"), "w").write(cmakelists)
    open(os.path.join(src, source_name), "w").write(source)
    env.run([env.args.cmake, "-S", src, "-B", build, "-G", env.args.generator,
             "-DCMAKE_MAKE_PROGRAM=" + env.args.make_program, "-DCMAKE_PREFIX_PATH=" + env.prefix] + list(cmake_args),
            echo=echo)
    return os.path.join(src, source_name), build


def diagnostics_project(env, name, source):
    return scratch_project(env, name, workload_project("broken"), "broken.cpp", source)


def expect_build_error(env, source, build, line, pattern):
    for attempt in (1, 2):  # a failed rewrite is not recorded as done: it fails again
        out = env.ninja(build, expect_ok=False, echo=attempt == 1)
        check("asyncshift: rewriting broken.cpp into coro style" in out, "the rewrite step did not run")
        where = re.escape(source) + r":%d:\d+: error: " % line
        check(re.search(where + pattern, out), "no '%s:%d:<col>: error: %s' in the build output" % (source, line, pattern))
        check("FAILED: " in out, "ninja did not report the failed step")
    check(not os.path.exists(os.path.join(build, "asyncshift", "broken", "broken.coro.cpp")),
          "a refused file was written")


def cmd_syntax_error(env):
    source, build = diagnostics_project(env, "syntax-error", SYNTAX_ERROR)
    expect_build_error(env, source, build, 5, r"expected ';'")


def cmd_refusal(env):
    source, build = diagnostics_project(env, "refusal", REFUSED)
    expect_build_error(env, source, build, 6, r".*\[asyncshift-async-in-loop\]")


NEEDS_BUILD_FLAGS = """#include <asyncshift/bench.hpp>

#if !defined(FROM_CXX_FLAGS) || !defined(FROM_RELEASE_FLAGS) || defined(UNDONE)
#error "parsed without the macros of CMAKE_CXX_FLAGS and CMAKE_CXX_FLAGS_RELEASE"
#endif
#if __cplusplus <= 202002L
#error "parsed as C++20, not as the project's CMAKE_CXX_STANDARD 23"
#endif

void flags(std::uint64_t k, asyncshift::callback<> done) {
  asyncshift::fake::io("step", static_cast<std::int64_t>(k), [=](asyncshift::error err, std::int64_t) {
    done(err);
  });
}

ASYNCSHIFT_WORKLOAD("flags", flags);
"""


def cmd_build_flags(env):
    """The macros of CMAKE_CXX_FLAGS and CMAKE_CXX_FLAGS_<CONFIG>, and CMAKE_CXX_STANDARD, reach the tool's parser."""
    _, build = scratch_project(env, "flags", workload_project("flags"), "flags.cpp", NEEDS_BUILD_FLAGS,
                               ["-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_CXX_STANDARD=23",
                                "-DCMAKE_CXX_FLAGS=-DFROM_CXX_FLAGS -DUNDONE -Wall",
                                "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -D FROM_RELEASE_FLAGS -UUNDONE"], echo=True)
    env.ninja(build, "asyncshift/flags/flags.coro.cpp")
    check(os.path.exists(os.path.join(build, "asyncshift", "flags", "flags.coro.cpp")), "no rewrite written")


SYNCHRONOUS_ENTRY = """#include <asyncshift/bench.hpp>

// Starts nothing asynchronous: there is nothing for the tool to convert.
void at_once(std::uint64_t k, asyncshift::callback<> done) {
  if (k == 1000000) return done(asyncshift::error("never"));
  done({});
}

ASYNCSHIFT_WORKLOAD("at_once", at_once);
"""


def cmd_unconverted_entry(env):
    """A binary built as the coro style of an entry the rewrite left in callback style refuses to run; the
    callback style's binary, built with no build type (no -O), says it is not optimised."""
    project = workload_project("at_once").replace("STYLES coro", "STYLES callback coro")
    _, build = scratch_project(env, "at-once", project, "at_once.cpp", SYNCHRONOUS_ENTRY)
    env.ninja(build)
    out = env.run([os.path.join(build, "at_once_callback"), "--n", "10", "--clock=virtual"])
    runs = json_lines(out)
    check(len(runs) == 1 and runs[0]["build"] == "debug",
          "the unoptimised workload reports build %s (the installed main is a release build)" %
          [r["build"] for r in runs])
    check("is not an optimised release build (debug)" in out, "no warning about the unoptimised workload")
    out = env.run([os.path.join(build, "at_once_coro"), "--n", "10", "--clock=virtual"], expect_ok=False)
    check("built as the coro style of workload 'at_once', but its entry is in callback style" in out,
          "the unconverted coro binary ran or said something else")
    check(not json_lines(out), "the unconverted coro binary printed a result")


SAME_NAME_PROJECT = """cmake_minimum_required(VERSION 3.25)
project(same_name LANGUAGES CXX)
find_package(asyncshift CONFIG REQUIRED)
asyncshift_rewrite(first SOURCE a/util.cpp STYLE coro)
asyncshift_rewrite(again SOURCE a/util.cpp STYLE coro)
asyncshift_rewrite(second SOURCE b/util.cpp STYLE coro)
"""


def cmd_same_name(env):
    """Two sources with one name and no OUTPUT_DIRECTORY: a configure error (the second got the first's file)."""
    src = os.path.join(env.work, "same-name")
    build = src + "-build"
    shutil.rmtree(src, ignore_errors=True)
    shutil.rmtree(build, ignore_errors=True)
    for sub in ("a", "b"):
        os.makedirs(os.path.join(src, sub))
        open(os.path.join(src, sub, "util.cpp"), "w").write("// %s\n" % sub)
    open(os.path.join(src, "CMakeLists.txt"), "w").write(SAME_NAME_PROJECT)
    out = env.run([env.args.cmake, "-S", src, "-B", build, "-G", env.args.generator,
                   "-DCMAKE_MAKE_PROGRAM=" + env.args.make_program, "-DCMAKE_PREFIX_PATH=" + env.prefix],
                  expect_ok=False)
    flat = " ".join(out.split())
    check(re.search(r"asyncshift_rewrite: \S*/a/util\.cpp and \S*/b/util\.cpp would both be rewritten to "
                    r"\S*/asyncshift/util\.coro\.cpp; give one of them its own OUTPUT_DIRECTORY", flat),
          "no configure error naming both sources")


# --- the documentation ------------------------------------------------------------

def cmd_usage_doc(env):
    """docs/usage.md's examples are the tested ones, and its CMake example is the consumer's."""
    blocks = doc_blocks(env.usage)
    for name in ("install", "files", "build", "files-p", "run", "bench"):
        check(name in blocks, "docs/usage.md has no block marked <!-- test: %s -->" % name)
    text = open(env.usage, encoding="utf-8").read()
    consumer = open(os.path.join(env.args.source_dir, "examples", "consumer", "CMakeLists.txt")).read()
    snippets = re.findall(r"<!--\s*same-as:\s*examples/consumer/CMakeLists.txt\s*-->\s*\n```cmake\n(.*?)```", text, re.S)
    check(snippets, "docs/usage.md shows no CMake example marked <!-- same-as: examples/consumer/CMakeLists.txt -->")
    for s in snippets:
        check(s in consumer, "docs/usage.md's CMake example is not in examples/consumer/CMakeLists.txt:\n" + s)


COMMANDS = {
    "install": cmd_install,
    "tool-on-files": cmd_tool_on_files,
    "consumer-build": cmd_consumer_build,
    "consumer-run": cmd_consumer_run,
    "consumer-bench": cmd_consumer_bench,
    "nothing-reruns": cmd_nothing_reruns,
    "header-touch": cmd_header_touch,
    "syntax-error": cmd_syntax_error,
    "refusal": cmd_refusal,
    "build-flags": cmd_build_flags,
    "same-name": cmd_same_name,
    "unconverted-entry": cmd_unconverted_entry,
    "usage-doc": cmd_usage_doc,
}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build-dir", required=True)
    p.add_argument("--source-dir", required=True)
    p.add_argument("--work-dir", required=True)
    p.add_argument("--cmake", required=True)
    p.add_argument("--generator", default="Ninja")
    p.add_argument("--make-program", required=True)
    p.add_argument("--cxx", required=True)
    p.add_argument("command", choices=sorted(COMMANDS))
    args = p.parse_args()
    try:
        COMMANDS[args.command](Env(args))
    except Failure as f:
        print("FAIL: %s" % f, flush=True)
        return 1
    print("PASS", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
