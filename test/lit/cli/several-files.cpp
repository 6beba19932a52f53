// Several files in one run: each is converted or refused on its own; a
// refusal makes the exit status 1 but the good file is still written.
// RUN: rm -rf %t && mkdir -p %t/gen
// RUN: printf '#include "ops.h"\nvoid good(asyncshift::callback<> done) { flush(done); }\n' > %t/good.cpp
// RUN: printf '#include "ops.h"\nvoid bad(asyncshift::callback<> done) {\n  for (;;) flush(done);\n}\n' > %t/bad.cpp
// RUN: not %asyncshift --style=coro --out-dir %t/gen %t/good.cpp %t/bad.cpp -- %flags 2> %t/err
// RUN: FileCheck %s --input-file=%t/err
// RUN: test -e %t/gen/good.coro.cpp
// RUN: not test -e %t/gen/bad.coro.cpp
// CHECK: bad.cpp:3:3: error: {{.*}}[asyncshift-async-in-loop]
