// --help teaches the command line; --version names the tool and its Clang.
// RUN: %asyncshift --help | FileCheck %s
// RUN: %asyncshift --version | FileCheck %s --check-prefix=VERSION
// CHECK: USAGE: asyncshift
// CHECK: --check
// CHECK: --out-dir
// CHECK: -p <string>
// CHECK: --style=<style>
// VERSION: asyncshift {{[0-9]+\.[0-9]+\.[0-9]+}} (LLVM/Clang 19.1
