// An unknown style names the known ones.
// RUN: not %asyncshift --style=callbacks %s -- %flags 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// CHECK: asyncshift: error: unknown style 'callbacks' (known styles: {{.*}}coro{{.*}})
