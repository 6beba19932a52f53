// Generated code compiled in an older standard: the runtime's headers say
// once that they need C++20, as their first error, before the ones the older
// standard raises inside them (constinit, concepts, coroutines).
// RUN: not %clang_driver %flags -std=c++17 -fsyntax-only -x c++ %s 2>&1 | FileCheck %s
#include <asyncshift/asyncshift.hpp>

// CHECK: error: "asyncshift's runtime needs C++20: compile with -std=c++20 (or later)"
