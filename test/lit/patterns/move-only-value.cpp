// A value that cannot be copied (a std::unique_ptr from an operation, or a
// local) read in the arguments of the next call. In callback style the call's
// arguments are read at once; in promise and future style the step returns the
// operation and its start function runs after the step has returned, so it
// moves the value in (`[=, fd = std::move(fd)]`; a copy would not compile).
// The coroutine styles keep the value in the frame and need nothing.
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=promise %t.cpp -- %{tool_flags} > %t.promise.cpp 2> %t.promise.err
// RUN: count 0 < %t.promise.err
// RUN: FileCheck %s --check-prefix=CHAIN --input-file=%t.promise.cpp
// RUN: %gxx %t.promise.cpp && %clangxx %t.promise.cpp
// RUN: %asyncshift --style=future %t.cpp -- %{tool_flags} > %t.future.cpp 2> %t.future.err
// RUN: count 0 < %t.future.err
// RUN: FileCheck %s --check-prefix=CHAIN --input-file=%t.future.cpp
// RUN: %gxx %t.future.cpp && %clangxx %t.future.cpp
// RUN: %asyncshift --style=coro %t.cpp -- %{tool_flags} > %t.coro.cpp
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
#include "ops.h"

#include <memory>

void open_file(std::string name, asyncshift::callback<std::unique_ptr<std::string>> cb);
void write_all(std::string what, asyncshift::callback<> cb);

void save(std::string name, asyncshift::callback<std::size_t> done) {
  open_file(name, [=](asyncshift::error err, std::unique_ptr<std::string> fd) {
    if (err) return done(err);
    std::size_t n = fd->size();
    auto copy = std::make_unique<std::string>(*fd + "!");
    write_all(*fd + *copy, [=](asyncshift::error err) {
      if (err) return done(err);
      done({}, n);
    });
  });
}

// CHAIN-LABEL: save(std::string name) {
// CHAIN: .then([=](std::unique_ptr<std::string> fd) {
// CHAIN: auto copy = std::make_unique<std::string>(*fd + "!");
// CHAIN-NEXT: return asyncshift::promisify(
// CHAIN-NEXT: [=, fd = std::move(fd), copy = std::move(copy)](auto cb) mutable {
// CHAIN-NEXT: write_all(*fd + *copy, std::move(cb));
