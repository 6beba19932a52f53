// Without --style or --check the tool says what to do.
// RUN: not %asyncshift %s -- %flags 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// CHECK: asyncshift: error: say what to do: --style=STYLE or --check
