// A definition written outside its class or namespace (`void
// inventory::load(...)`) whose handler's type names a member of that class or
// namespace without qualifying it (`callback<item>`): the new return type
// goes after the parameters (`auto inventory::load(int id) ->
// asyncshift::task<item>`), where `item` is in scope, as it is in the
// handler's type; before the declarator it would not be. Other definitions
// keep the return type in front.
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=coro %t.cpp -- %{tool_flags} > %t.coro.cpp 2> %t.coro.err
// RUN: count 0 < %t.coro.err
// RUN: FileCheck %s --check-prefix=CORO --input-file=%t.coro.cpp
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
// RUN: %asyncshift --style=coro-values %t.cpp -- %{tool_flags} > %t.coro-values.cpp 2> %t.coro-values.err
// RUN: count 0 < %t.coro-values.err
// RUN: FileCheck %s --check-prefix=CORO_VALUES --input-file=%t.coro-values.cpp
// RUN: %gxx %t.coro-values.cpp && %clangxx %t.coro-values.cpp
// RUN: %asyncshift --style=promise %t.cpp -- %{tool_flags} > %t.promise.cpp 2> %t.promise.err
// RUN: count 0 < %t.promise.err
// RUN: FileCheck %s --check-prefix=PROMISE --input-file=%t.promise.cpp
// RUN: %gxx %t.promise.cpp && %clangxx %t.promise.cpp
// RUN: %asyncshift --style=future %t.cpp -- %{tool_flags} > %t.future.cpp 2> %t.future.err
// RUN: count 0 < %t.future.err
// RUN: FileCheck %s --check-prefix=FUTURE --input-file=%t.future.cpp
// RUN: %gxx %t.future.cpp && %clangxx %t.future.cpp
#include "ops.h"

class inventory {
public:
  struct item {
    int id = 0;
    int qty = 0;
  };
  void load(int id, asyncshift::callback<item> done);
  void count(int id, asyncshift::callback<int> done);
};

void inventory::load(int id, asyncshift::callback<item> done) {
  read_int(id, [=](asyncshift::error err, int qty) {
    if (err) return done(err);
    done({}, item{id, qty});
  });
}

void inventory::count(int id, asyncshift::callback<int> done) {
  load(id, [=](asyncshift::error err, item i) {
    if (err) return done(err);
    done({}, i.qty);
  });
}

namespace app {
struct box {
  int v = 0;
};
void get_box(int k, asyncshift::callback<box> done);
} // namespace app

void app::get_box(int k, asyncshift::callback<box> done) {
  read_int(k, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    done({}, box{v});
  });
}

// ---- expected output
// CORO: asyncshift::task<item> load(int id);
// CORO: auto inventory::load(int id) -> asyncshift::task<item> {
// CORO: asyncshift::task<int> inventory::count(int id) {
// CORO: auto app::get_box(int k) -> asyncshift::task<box> {

// CORO_VALUES: asyncshift::task<asyncshift::result<item>> load(int id);
// CORO_VALUES: auto inventory::load(int id) -> asyncshift::task<asyncshift::result<item>> {
// CORO_VALUES: asyncshift::task<asyncshift::result<int>> inventory::count(int id) {
// CORO_VALUES: auto app::get_box(int k) -> asyncshift::task<asyncshift::result<box>> {

// PROMISE: asyncshift::promise<item> load(int id);
// PROMISE: auto inventory::load(int id) -> asyncshift::promise<item> {
// PROMISE: asyncshift::promise<int> inventory::count(int id) {
// PROMISE: auto app::get_box(int k) -> asyncshift::promise<box> {

// FUTURE: asyncshift::future<item> load(int id);
// FUTURE: auto inventory::load(int id) -> asyncshift::future<item> {
// FUTURE: asyncshift::future<int> inventory::count(int id) {
// FUTURE: auto app::get_box(int k) -> asyncshift::future<box> {
