// A leaf whose callback parameter is a non-const lvalue reference, reached by
// forwarding the handler: promise and future hand it the callback as an
// lvalue (a by-value or const& parameter gets it with std::move, which saves
// a reference count per op; an rvalue cannot bind to `callback<int>&`). A
// template's forwarding reference `H&&` takes an rvalue too, though the
// template's specialization for the call has `callback<int>&` there.
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

void read_into(int key, asyncshift::callback<int> &cb) { cb({}, key + 1); }
void read_const(int key, const asyncshift::callback<int> &cb) { cb({}, key + 2); }

template <class H> void read_forwarded(int key, H &&cb) { cb({}, key + 3); }
template <class H> void read_template_ref(int key, H &cb) { cb({}, key + 4); }

void by_reference(int key, asyncshift::callback<int> done) { read_into(key, done); }

void by_const_reference(int key, asyncshift::callback<int> done) { read_const(key, done); }

void by_value(int key, asyncshift::callback<int> done) { read_int(key, done); }

void by_forwarding_reference(int key, asyncshift::callback<int> done) { read_forwarded(key, done); }

void by_template_reference(int key, asyncshift::callback<int> done) { read_template_ref(key, done); }

// PROMISE-LABEL: asyncshift::promise<int> by_reference(int key) {
// PROMISE-NEXT: return asyncshift::make_promise<int>([&](auto cb) { read_into(key, cb); });
// PROMISE-LABEL: asyncshift::promise<int> by_const_reference(int key) {
// PROMISE-NEXT: return asyncshift::make_promise<int>(
// PROMISE-NEXT: [&](auto cb) { read_const(key, std::move(cb)); });
// PROMISE-LABEL: asyncshift::promise<int> by_value(int key) {
// PROMISE-NEXT: return asyncshift::make_promise<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(key, std::move(cb)); });
// PROMISE-LABEL: asyncshift::promise<int> by_forwarding_reference(int key) {
// PROMISE-NEXT: return asyncshift::make_promise<int>(
// PROMISE-NEXT: [&](auto cb) { read_forwarded(key, std::move(cb)); });
// PROMISE-LABEL: asyncshift::promise<int> by_template_reference(int key) {
// PROMISE-NEXT: return asyncshift::make_promise<int>(
// PROMISE-NEXT: [&](auto cb) { read_template_ref(key, cb); });

// FUTURE-LABEL: asyncshift::future<int> by_reference(int key) {
// FUTURE-NEXT: return asyncshift::make_future<int>([&](auto cb) { read_into(key, cb); });
// FUTURE-LABEL: asyncshift::future<int> by_const_reference(int key) {
// FUTURE-NEXT: return asyncshift::make_future<int>(
// FUTURE-NEXT: [&](auto cb) { read_const(key, std::move(cb)); });
// FUTURE-LABEL: asyncshift::future<int> by_value(int key) {
// FUTURE-NEXT: return asyncshift::make_future<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(key, std::move(cb)); });
// FUTURE-LABEL: asyncshift::future<int> by_forwarding_reference(int key) {
// FUTURE-NEXT: return asyncshift::make_future<int>(
// FUTURE-NEXT: [&](auto cb) { read_forwarded(key, std::move(cb)); });
// FUTURE-LABEL: asyncshift::future<int> by_template_reference(int key) {
// FUTURE-NEXT: return asyncshift::make_future<int>(
// FUTURE-NEXT: [&](auto cb) { read_template_ref(key, cb); });
