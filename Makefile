# asyncshift: two commands do everything on a fresh Debian 12 machine.
#
#   make test    build and run every suite (unit, lit, equivalence)
#   make bench   rewrite the workloads into every style, build, run, compare
#
# Both install missing Debian packages when run as root, configure with CMake
# and Ninja into build/, and build what they need.

BUILD ?= build
CMAKE_BUILD_TYPE ?= Release
CMAKE_FLAGS ?=

.PHONY: all deps bench-deps configure build test bench clean help

all: build

help:
	@echo "make test    build and run every test suite"
	@echo "make bench   run the benchmark and print the comparison table"

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

bench: bench-deps configure
	@cmake --build $(BUILD) --target asyncshift_bench
	@python3 scripts/bench.py --build-dir $(BUILD) $(BENCH_FLAGS)

clean:
	rm -rf $(BUILD)

# Sanitizers (not part of `make test`, which stays fast): the runtime unit
# tests under AddressSanitizer + UndefinedBehaviorSanitizer in build-asan/
# (the runtime's pool steps aside so ASan sees every block), and the
# cross-thread tests (the worker pool) under ThreadSanitizer in build-tsan/.
SANITIZE_CMAKE = -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DASYNCSHIFT_BUILD_TOOL=OFF -DASYNCSHIFT_BUILD_BENCH=OFF

.PHONY: test-sanitize
test-sanitize: deps
	@cmake -S . -B build-asan $(SANITIZE_CMAKE) \
	  -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
	@cmake --build build-asan --target asyncshift_runtime_tests asyncshift_runtime_thread_tests
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir build-asan --output-on-failure -j $$(nproc)
	@cmake -S . -B build-tsan $(SANITIZE_CMAKE) -DCMAKE_CXX_FLAGS="-fsanitize=thread -fno-omit-frame-pointer"
	@cmake --build build-tsan --target asyncshift_runtime_thread_tests
	@TSAN_OPTIONS=halt_on_error=1 ctest --test-dir build-tsan --output-on-failure -R '^worker_pool\.'

# Instructions per execution from callgrind (valgrind), both compilers: the
# overhead numbers that repeat exactly on a shared machine (docs/bench.md).
.PHONY: bench-instructions
bench-instructions: bench-deps configure
	@cmake --build $(BUILD) --target asyncshift_bench
	@python3 scripts/bench-instructions.py --build-dir $(BUILD) $(BENCH_FLAGS)
