// The per-call state is kept by the function's chain (keep(), and a plain
// pointer in every lambda; by each arm's chain when each arm returns one) only
// when nothing that captures it can run after the chain is gone. A detached call's handler and a lambda written in the
// source may run later: a function that has one naming a hoisted variable
// keeps the counted shared_state in every lambda instead.
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=promise %t.cpp -- %{tool_flags} > %t.promise.cpp 2> %t.promise.err
// RUN: count 0 < %t.promise.err
// RUN: FileCheck %s --check-prefix=PROMISE --input-file=%t.promise.cpp
// RUN: %gxx %t.promise.cpp && %clangxx %t.promise.cpp
// RUN: %asyncshift --style=future %t.cpp -- %{tool_flags} > %t.future.cpp 2> %t.future.err
// RUN: count 0 < %t.future.err
// RUN: FileCheck %s --check-prefix=FUTURE --input-file=%t.future.cpp
// RUN: %gxx %t.future.cpp && %clangxx %t.future.cpp
#include "ops.h"

#include <functional>
#include <vector>

std::vector<std::function<void()>> later;

void bump(int key, asyncshift::callback<> done) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    write_int(key, v + 1, done);
  });
}

// Nothing outlives the chain: the chain keeps the state.
void kept(asyncshift::callback<int> done) {
  read_int(1, [=](asyncshift::error err, int a) {
    if (err) return done(err);
    read_int(2, [=](asyncshift::error err, int b) {
      if (err) return done(err);
      done({}, a + b);
    });
  });
}

// Each arm returns a chain of its own: each keeps the state (a call takes one arm).
void either(bool first, asyncshift::callback<int> done) {
  if (first) {
    read_int(1, [=](asyncshift::error err, int a) {
      if (err) return done(err);
      read_int(a, [=](asyncshift::error err, int b) {
        if (err) return done(err);
        done({}, a + b);
      });
    });
  } else {
    read_int(2, [=](asyncshift::error err, int c) {
      if (err) return done(err);
      read_int(c, [=](asyncshift::error err, int d) {
        if (err) return done(err);
        done({}, c * d);
      });
    });
  }
}

// The detached call's handler reads `a` after the chain may have settled.
void detached(asyncshift::callback<int> done) {
  read_int(1, [=](asyncshift::error err, int a) {
    if (err) return done(err);
    read_int(2, [=](asyncshift::error err, int b) {
      if (err) return done(err);
      bump(b, [=](asyncshift::error) { log_line(std::to_string(a)); });
      done({}, a + b);
    });
  });
}

// A lambda in the source, kept by code the tool cannot see, reads `a`.
void stored(asyncshift::callback<int> done) {
  read_int(1, [=](asyncshift::error err, int a) {
    if (err) return done(err);
    read_int(2, [=](asyncshift::error err, int b) {
      if (err) return done(err);
      later.push_back([=] { log_line(std::to_string(a)); });
      done({}, a + b);
    });
  });
}

// ---- expected output
// PROMISE-LABEL: asyncshift::promise<int> kept() {
// PROMISE: auto state_owner = asyncshift::make_shared_state<kept_state>();
// PROMISE-NEXT: auto *state = state_owner.get();
// PROMISE-NEXT: return asyncshift::make_promise_chain<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(1, std::move(cb)); })
// PROMISE-NEXT: .keep(std::move(state_owner))
// PROMISE-LABEL: asyncshift::promise<int> either(bool first) {
// PROMISE: auto state_owner = asyncshift::make_shared_state<either_state>();
// PROMISE-NEXT: auto *state = state_owner.get();
// PROMISE-NEXT: if (first) {
// PROMISE-NEXT: return asyncshift::make_promise_chain<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(1, std::move(cb)); })
// PROMISE-NEXT: .keep(std::move(state_owner))
// PROMISE: } else {
// PROMISE-NEXT: return asyncshift::make_promise_chain<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(2, std::move(cb)); })
// PROMISE-NEXT: .keep(std::move(state_owner))
// PROMISE-LABEL: asyncshift::promise<int> detached() {
// PROMISE-NOT: keep(
// PROMISE: auto state = asyncshift::make_shared_state<detached_state>();
// PROMISE-NOT: keep(
// PROMISE: bump(b).then_callback(
// PROMISE-NEXT: [=](asyncshift::error) { log_line(std::to_string(state->a)); });
// PROMISE-LABEL: asyncshift::promise<int> stored() {
// PROMISE-NOT: keep(
// PROMISE: auto state = asyncshift::make_shared_state<stored_state>();
// PROMISE-NOT: keep(
// PROMISE: later.push_back([=] { log_line(std::to_string(state->a)); });

// FUTURE-LABEL: asyncshift::future<int> kept() {
// FUTURE: auto state_owner = asyncshift::make_shared_state<kept_state>();
// FUTURE-NEXT: auto *state = state_owner.get();
// FUTURE-NEXT: return asyncshift::make_future_chain<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(1, std::move(cb)); })
// FUTURE-NEXT: .keep(std::move(state_owner))
// FUTURE-LABEL: asyncshift::future<int> either(bool first) {
// FUTURE: auto state_owner = asyncshift::make_shared_state<either_state>();
// FUTURE-NEXT: auto *state = state_owner.get();
// FUTURE-NEXT: if (first) {
// FUTURE-NEXT: return asyncshift::make_future_chain<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(1, std::move(cb)); })
// FUTURE-NEXT: .keep(std::move(state_owner))
// FUTURE: } else {
// FUTURE-NEXT: return asyncshift::make_future_chain<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(2, std::move(cb)); })
// FUTURE-NEXT: .keep(std::move(state_owner))
// FUTURE-LABEL: asyncshift::future<int> detached() {
// FUTURE-NOT: keep(
// FUTURE: auto state = asyncshift::make_shared_state<detached_state>();
// FUTURE-NOT: keep(
// FUTURE: bump(b).then_callback(
// FUTURE-NEXT: [=](asyncshift::error) { log_line(std::to_string(state->a)); });
// FUTURE-LABEL: asyncshift::future<int> stored() {
// FUTURE-NOT: keep(
// FUTURE: auto state = asyncshift::make_shared_state<stored_state>();
// FUTURE-NOT: keep(
// FUTURE: later.push_back([=] { log_line(std::to_string(state->a)); });
