// -i through a symbolic link converts the file it names and keeps the link;
// a file with other hard links is replaced with a warning that they keep the
// old contents; a second -i run, which changes nothing, does not touch the
// file (its modification time stays, so nothing rebuilds).
// RUN: rm -rf %t && mkdir -p %t
// RUN: sed -e 's|^// *CHECK.*$|//|' %s > %t/real.cpp
// RUN: %asyncshift --style=coro %t/real.cpp -- %flags > %t/expected.cpp
// RUN: ln -s real.cpp %t/link.cpp
// RUN: %asyncshift --style=coro -i %t/link.cpp -- %flags
// RUN: test -L %t/link.cpp
// RUN: diff %t/expected.cpp %t/real.cpp
// RUN: touch -d '2001-01-01' %t/real.cpp
// RUN: %asyncshift --style=coro -i %t/link.cpp -- %flags
// RUN: stat -c %%Y %t/real.cpp | FileCheck %s --check-prefix=MTIME
// RUN: sed -e 's|^// *CHECK.*$|//|' %s > %t/h1.cpp && ln %t/h1.cpp %t/h2.cpp
// RUN: %asyncshift --style=coro -i %t/h1.cpp -- %flags 2>&1 | FileCheck %s --check-prefix=HARD
// RUN: diff %t/expected.cpp %t/h1.cpp
#include "ops.h"

void go(asyncshift::callback<> done) { flush(done); }

// MTIME: 978307200
// HARD: asyncshift: warning: '{{.*}}h1.cpp' has 1 other hard link(s); the file is replaced (atomically), so they keep the old contents
