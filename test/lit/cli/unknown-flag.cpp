// An unknown flag is named, with a pointer to --help, and exit status 1;
// the tool's name comes once, as in every other error. LLVM's guess at a
// misspelling is kept for a long option only (`--bogus` is no misspelt `-o`).
// RUN: not %asyncshift --style=coro --frobnicate %s -- %flags 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// RUN: not %asyncshift --style=coro --bogus %s -- %flags 2> %t.bogus.err
// RUN: FileCheck %s --check-prefix=BOGUS --input-file=%t.bogus.err
// RUN: not %asyncshift --stlye=coro %s -- %flags 2> %t.misspelt.err
// RUN: FileCheck %s --check-prefix=MISSPELT --input-file=%t.misspelt.err
// CHECK: {{^}}asyncshift: error: Unknown command line argument '--frobnicate'
// CHECK: --help
// BOGUS: {{^}}asyncshift: error: Unknown command line argument '--bogus'.{{ *}}Try: '{{.*}} --help'
// BOGUS-NOT: Did you mean
// MISSPELT: Unknown command line argument '--stlye=coro'.
// MISSPELT-NEXT: Did you mean '--style=coro'?
