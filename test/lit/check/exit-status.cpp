// --check writes nothing, reports every finding of every file as an error,
// and exits 1 when there is any (0 when all files are clean), so CI can run
// it as a gate. It checks code the rewriter would refuse (here, a loop).
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf '#include "ops.h"\nvoid good(int n, asyncshift::callback<> done) {\n  for (int i = 0; i < n; ++i) log_line("x");\n  flush(done);\n}\n' > %t/good.cpp
// RUN: printf '#include "ops.h"\nvoid bad(asyncshift::callback<> done) {\n  flush(done);\n  done({});\n}\n' > %t/bad.cpp
// RUN: %asyncshift --check %t/good.cpp -- %{tool_flags} > %t/out 2> %t/err
// RUN: count 0 < %t/out
// RUN: count 0 < %t/err
// RUN: not %asyncshift --check %t/good.cpp %t/bad.cpp -- %{tool_flags} > %t/out 2> %t/err
// RUN: count 0 < %t/out
// RUN: FileCheck %s --input-file=%t/err --implicit-check-not='error:'
// RUN: not grep 'Error while processing' %t/err
// A file named twice is checked once.
// RUN: not %asyncshift --check %t/bad.cpp %t/./bad.cpp -- %{tool_flags} 2> %t/twice.err
// RUN: grep "bad.cpp:4:3: error:" %t/twice.err | count 1
// RUN: rm %t/twice.err
// A header named .h is C++ (clang's driver would take it for C), with or without flags.
// RUN: cp %t/bad.cpp %t/bad.h
// RUN: not %asyncshift --check %t/bad.h -- %{tool_flags} 2> %t/h.err
// RUN: FileCheck %s --check-prefix=HEADER --input-file=%t/h.err --implicit-check-not='error:'
// RUN: rm %t/bad.h %t/h.err
// RUN: ls %t | FileCheck %s --check-prefix=FILES
// HEADER: bad.h:4:3: error: handler 'done' may be called twice on this path [asyncshift-callback-called-twice]
// CHECK: bad.cpp:4:3: error: handler 'done' may be called twice on this path [asyncshift-callback-called-twice]
// CHECK: bad.cpp:3:3: note: 'done' already passed on here
// FILES: bad.cpp
// FILES-NEXT: err
// FILES-NEXT: good.cpp
// FILES-NEXT: out
