# asyncshift: two commands do everything on a fresh Debian 12 machine.
#
#   make test    build and run every suite (unit, lit, equivalence)
#   make bench   rewrite the workloads into every style, build, run, compare
#   make fuzz    generate random callback programs, rewrite into every style,
#                build, run and compare digests (FUZZ_N, FUZZ_SEED)
#   make fuzz-tool  feed the tool mutated sources and flags (FUZZ_TOOL_N)
#
# Both install missing Debian packages when run as root, configure with CMake
# and Ninja into build/, and build what they need.

BUILD ?= build
CMAKE_BUILD_TYPE ?= Release
CMAKE_FLAGS ?=

.PHONY: all deps bench-deps bench-configure configure build test bench clean help fuzz fuzz-tool

all: build

help:
	@echo "make test    build and run every test suite"
	@echo "make bench   run the benchmark and print the comparison table"
	@echo "make fuzz    differential testing on generated programs (FUZZ_N=200 FUZZ_SEED=1)"
	@echo "make fuzz-tool  mutation fuzzing of the tool's input (FUZZ_TOOL_N=10000)"

deps:
	@scripts/install-deps.sh test

bench-deps:
	@scripts/install-deps.sh bench

configure: deps
	@if [ ! -f $(BUILD)/build.ninja ]; then \
	  cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(CMAKE_BUILD_TYPE) $(CMAKE_FLAGS); \
	fi

build: configure
	@cmake --build $(BUILD)

test: build
	@scripts/run-tests.sh $(BUILD)

# Configures again (a second) after bench-deps: the peers whose packages it
# has just installed (Asio, Boost.Thread) are found only by a new configure,
# and a build/ made by `make test` was configured before they existed.
bench-configure: bench-deps configure
	@cmake -S . -B $(BUILD) >/dev/null

bench: bench-configure
	@cmake --build $(BUILD) --target asyncshift_bench
	@python3 scripts/bench.py --build-dir $(BUILD) $(BENCH_FLAGS)

clean:
	rm -rf $(BUILD)

# Sanitizers (not part of `make test`, which stays fast): the runtime unit
# tests and generated workloads (every style) under AddressSanitizer +
# UndefinedBehaviorSanitizer in build-asan/
# (the runtime's pool steps aside so ASan sees every block), and the
# cross-thread tests (the worker pool) under ThreadSanitizer in build-tsan/.
SANITIZE_CMAKE = -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DASYNCSHIFT_BUILD_TOOL=OFF -DASYNCSHIFT_BUILD_BENCH=OFF

.PHONY: test-sanitize
test-sanitize: configure
	@cmake -S . -B build-asan $(SANITIZE_CMAKE) \
	  -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
	@cmake --build build-asan --target asyncshift_runtime_tests asyncshift_runtime_thread_tests asyncshift_runtime_nostats_tests
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir build-asan --output-on-failure -j $$(nproc)
	@cmake -S . -B build-tsan $(SANITIZE_CMAKE) -DCMAKE_CXX_FLAGS="-fsanitize=thread -fno-omit-frame-pointer"
	@cmake --build build-tsan --target asyncshift_runtime_thread_tests
	@TSAN_OPTIONS=halt_on_error=1 ctest --test-dir build-tsan --output-on-failure -R '^(worker_pool|loop_inbox)\.'
	@# Generated workloads: every style of 20 generated programs, built with
	@# ASan+UBSan, run with error injection; leaks and UB fail the program.
	@cmake --build $(BUILD) --target asyncshift_tool
	@python3 test/fuzz/fuzz.py --n 20 --seed 3 --per-bundle 10 --sanitize --reduce-budget 0 \
	  --tool $(BUILD)/bin/asyncshift --out build-asan/fuzz

# Instructions per execution from callgrind (valgrind), both compilers: the
# overhead numbers that repeat exactly on a shared machine (docs/bench.md).
.PHONY: bench-instructions
bench-instructions: bench-configure
	@cmake --build $(BUILD) --target asyncshift_bench
	@python3 scripts/bench-instructions.py --build-dir $(BUILD) $(BENCH_FLAGS)

# Differential testing at scale (docs/reliability.md): FUZZ_N generated
# programs, every style, digests compared; failures reduced under build/fuzz/.
FUZZ_N ?= 200
FUZZ_SEED ?= 1
FUZZ_FLAGS ?=
fuzz: configure
	@cmake --build $(BUILD) --target asyncshift_tool
	@python3 test/fuzz/fuzz.py --n $(FUZZ_N) --seed $(FUZZ_SEED) --tool $(BUILD)/bin/asyncshift --out $(BUILD)/fuzz $(FUZZ_FLAGS)

# The tool never crashes: mutated sources and argument lists.
FUZZ_TOOL_N ?= 10000
fuzz-tool: configure
	@cmake --build $(BUILD) --target asyncshift_tool
	@python3 test/fuzz/mutate_tool.py --count $(FUZZ_TOOL_N) --seed $(FUZZ_SEED) --tool $(BUILD)/bin/asyncshift --out $(BUILD)/fuzz/mutate
