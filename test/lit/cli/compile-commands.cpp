// -p reads compile_commands.json; a broken one gets one readable message.
// RUN: rm -rf %t && mkdir -p %t/ok %t/broken
// RUN: sed -e 's|^// *CHECK.*$|//|' %s > %t/ok/input.cpp
// RUN: printf '[{"directory": "%t/ok", "file": "%t/ok/input.cpp", "command": "c++ -std=c++20 %flags -c %t/ok/input.cpp"}]' > %t/ok/compile_commands.json
// RUN: %asyncshift --style=coro -p %t/ok %t/ok/input.cpp 2> %t/ok.err | FileCheck %s
// RUN: count 0 < %t/ok.err
// A listed file named relative to the working directory is found (no warning).
// RUN: cd %t/ok && %asyncshift --style=coro -p %t/ok input.cpp 2> %t/relative.err | FileCheck %s
// RUN: count 0 < %t/relative.err
// A file the database does not list is parsed with a neighbour's flags, and says so.
// RUN: cp %t/ok/input.cpp %t/ok/other.cpp
// RUN: %asyncshift --style=coro -p %t/ok %t/ok/other.cpp 2> %t/other.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=GUESSED --input-file=%t/other.err
// RUN: cp %t/ok/input.cpp %t/broken/input.cpp && printf '[{"directory": ' > %t/broken/compile_commands.json
// RUN: not %asyncshift --style=coro -p %t/broken %t/broken/input.cpp 2> %t/err
// RUN: FileCheck %s --check-prefix=BROKEN --input-file=%t/err --implicit-check-not=YAML
// RUN: mkdir -p %t/empty && cp %t/ok/input.cpp %t/empty/input.cpp && printf '[]' > %t/empty/compile_commands.json
// RUN: not %asyncshift --style=coro -p %t/empty %t/empty/input.cpp -o %t/empty/out.cpp 2> %t/empty.err
// RUN: FileCheck %s --check-prefix=EMPTY --input-file=%t/empty.err --implicit-check-not=error: --implicit-check-not=Skipping
// RUN: not test -e %t/empty/out.cpp
#include "ops.h"

void go(asyncshift::callback<> done) { flush(done); }

// CHECK: asyncshift::task<> go() {
// BROKEN: asyncshift: error: cannot read '{{.*}}compile_commands.json': it is not valid JSON ([1:15, byte=15]: Unexpected EOF)
// EMPTY: asyncshift: error: '{{.*}}input.cpp' is not in the compilation database, which lists no file to take its flags from; nothing done for it
// GUESSED: asyncshift: warning: '{{.*}}other.cpp' is not in the compilation database; parsing it with flags guessed from another entry (inferred from {{.*}}input.cpp)
