// As a build step (-o OUT --depfile OUT.d): a refused file leaves neither the
// output nor a depfile behind, so the build step fails and runs again next
// time; once it converts, both are written and the depfile names OUT.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf '#include "ops.h"\nvoid bad(asyncshift::callback<> done) {\n  for (;;) flush(done);\n}\n' > %t/step.cpp
// RUN: not %asyncshift --style=coro %t/step.cpp -o %t/out.cpp --depfile %t/out.cpp.d -- %flags 2> %t/err
// RUN: FileCheck %s --check-prefix=REFUSED --input-file=%t/err
// RUN: not test -e %t/out.cpp
// RUN: not test -e %t/out.cpp.d
// RUN: printf '#include "ops.h"\nvoid good(asyncshift::callback<> done) { flush(done); }\n' > %t/step.cpp
// RUN: %asyncshift --style=coro %t/step.cpp -o %t/out.cpp --depfile %t/out.cpp.d -- %flags
// RUN: FileCheck %s --input-file=%t/out.cpp.d
// RUN: ls -a %t | FileCheck %s --check-prefix=NOTEMP
// REFUSED: step.cpp:3:3: error: {{.*}}[asyncshift-async-in-loop]
// CHECK: {{.*}}out.cpp:
// CHECK-DAG: step.cpp
// CHECK-DAG: Inputs/ops.h
// NOTEMP-NOT: .tmp
