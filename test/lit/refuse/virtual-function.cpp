// An async virtual member function is refused with its location: converting
// it would change a signature its base class and its overrides share (before,
// an override was converted while its base kept the callback signature, and
// the output did not compile: "marked 'override', but does not override").
// A call through the base converts; the leaf annotation keeps the override.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not=error:
// RUN: not test -e %t.out.cpp
// RUN: not %asyncshift --style=promise %s -- %{tool_flags} 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: sed -e 's/^  void fetch(int k, asyncshift::callback<int> done) override {/  [[clang::annotate("asyncshift::leaf")]] void fetch(int k, asyncshift::callback<int> done) override {/' -e 's/^  virtual void load(/  [[clang::annotate("asyncshift::leaf")]] virtual void load(/' %s > %t.leaf.cpp
// RUN: %asyncshift --style=coro %t.leaf.cpp -- %{tool_flags} > %t.leaf.coro.cpp
// RUN: FileCheck %s --check-prefix=LEAF --input-file=%t.leaf.coro.cpp
// RUN: %gxx -Wno-attributes %t.leaf.coro.cpp && %clangxx %t.leaf.coro.cpp
#include "ops.h"

struct source {
  virtual ~source() = default;
  virtual void fetch(int k, asyncshift::callback<int> done) = 0;
};

struct doubler : source {
  void fetch(int k, asyncshift::callback<int> done) override {
    // CHECK: :[[@LINE-1]]:8: error: virtual member function 'fetch': converting it changes a signature its base and overrides share; cannot convert (to keep it in callback style and convert the rest, mark it {{\[\[}}clang::annotate("asyncshift::leaf")]]) [asyncshift-virtual-function]
    read_int(k, [=](asyncshift::error err, int v) {
      if (err) return done(err);
      done({}, v * 2);
    });
  }
};

struct cache {
  virtual ~cache() = default;
  virtual void load(int k, asyncshift::callback<int> done) {
    // CHECK: :[[@LINE-1]]:16: error: virtual member function 'load': {{.*}}[asyncshift-virtual-function]
    read_int(k, done);
  }
};

void use(source *s, int k, asyncshift::callback<int> done) {
  s->fetch(k, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    done({}, v + 1);
  });
}
// LEAF-LABEL: asyncshift::task<int> use(source *s, int k)
// LEAF: co_await asyncshift::promisify<int>(
// LEAF: s->fetch(k, cb)
