// An unknown flag is named, with a pointer to --help, and exit status 1;
// the tool's name comes once, as in every other error.
// RUN: not %asyncshift --style=coro --frobnicate %s -- %flags 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// CHECK: {{^}}asyncshift: error: Unknown command line argument '--frobnicate'
// CHECK: --help
