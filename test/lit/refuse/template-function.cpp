// An async function template is refused with its location, whether its
// handler's type depends on the template's parameters (`callback<T>`) or not.
// Before, a `callback<T>` template was not seen as async at all and was left
// in callback style without a word (exit status 0). The note names the way
// out: mark the template a leaf (leaf.cpp below converts around it).
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not=error:
// RUN: not test -e %t.out.cpp
// RUN: not %asyncshift --style=promise %s -- %{tool_flags} 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: sed -e '/^template <class T> void fixed/,/^}/d' -e '/^template <class T> struct box/,/^};/d' %s > %t.cut.cpp
// RUN: sed -e 's/^template <class T> void twice/template <class T> [[clang::annotate("asyncshift::leaf")]] void twice/' %t.cut.cpp > %t.leaf.cpp
// RUN: %asyncshift --style=coro %t.leaf.cpp -- %{tool_flags} > %t.leaf.coro.cpp
// RUN: FileCheck %s --check-prefix=LEAF --input-file=%t.leaf.coro.cpp
// RUN: %gxx -Wno-attributes %t.leaf.coro.cpp && %clangxx %t.leaf.coro.cpp
#include "ops.h"

template <class T> void produce(T seed, asyncshift::callback<T> cb);

template <class T> void twice(T seed, asyncshift::callback<T> done) {
  // CHECK: :[[@LINE-1]]:25: error: async function template; cannot convert yet (to keep it in callback style and convert the rest, mark it {{\[\[}}clang::annotate("asyncshift::leaf")]]) [asyncshift-template-function]
  produce<T>(seed, [=](asyncshift::error err, T a) {
    if (err) return done(err);
    produce<T>(a, [=](asyncshift::error err, T b) {
      if (err) return done(err);
      done({}, b);
    });
  });
}

template <class T> void fixed(T seed, asyncshift::callback<int> done) {
  // CHECK: :[[@LINE-1]]:25: error: async function template; cannot convert yet {{.*}}[asyncshift-template-function]
  read_int(static_cast<int>(seed), [=](asyncshift::error err, int v) {
    if (err) return done(err);
    done({}, v);
  });
}

template <class T> struct box {
  T value;
  void load(asyncshift::callback<T> done) {
    // CHECK: :[[@LINE-1]]:8: error: async function template; cannot convert yet {{.*}}[asyncshift-template-function]
    produce<T>(value, [=](asyncshift::error err, T v) {
      if (err) return done(err);
      done({}, v);
    });
  }
};

void quad(int seed, asyncshift::callback<int> done) {
  twice<int>(seed, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    twice<int>(v, done);
  });
}
// LEAF-LABEL: asyncshift::task<int> quad(int seed)
// LEAF: co_await asyncshift::promisify<int>(
// LEAF: twice<int>(seed, cb)
// LEAF: co_return co_await asyncshift::promisify<int>(
