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
	@cmake --build $(BUILD)
	@python3 scripts/bench.py --build-dir $(BUILD)

clean:
	rm -rf $(BUILD)
