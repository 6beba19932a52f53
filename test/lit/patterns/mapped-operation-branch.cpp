// A parallel whose branch is one operation followed by
// `if (err) return cb(err); cb({}, f(v));`, f reading only the operation's
// value, the branch index and what the branch captures: every style returns
// `promisify<V>(...).map([=](V v) -> T { return f(v); })` from the branch, so
// f runs where the operation completes, as the continuation did, and no
// coroutine frame, promise or future is made per branch (as for a branch
// that passes its outcome on: operation-branch.cpp). A continuation that does
// anything more (logged_sizes) keeps a branch of its own.
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

void page_sizes(int n, asyncshift::callback<std::vector<std::size_t>> done) {
  asyncshift::parallel<std::size_t>(
      static_cast<std::size_t>(n),
      [=](std::size_t i, asyncshift::callback<std::size_t> measured) {
        fetch("page/" + std::to_string(i), [=](asyncshift::error err, std::string body) {
          if (err) return measured(err);
          measured({}, body.size() + i);
        });
      },
      done);
}

void scaled_sizes(int n, std::size_t scale, asyncshift::callback<std::vector<std::size_t>> done) {
  asyncshift::parallel<std::size_t>(
      static_cast<std::size_t>(n),
      [=](std::size_t i, asyncshift::callback<std::size_t> measured) {
        fetch("page/" + std::to_string(i), [=](asyncshift::error err, std::string body) {
          if (err) return measured(err);
          measured({}, body.size() * scale);
        });
      },
      done);
}

// The same with the error check braced, a default value beside the error,
// and the value taken by const reference.
void checked_sizes(int n, asyncshift::callback<std::vector<std::size_t>> done) {
  asyncshift::parallel<std::size_t>(
      static_cast<std::size_t>(n),
      [=](std::size_t i, asyncshift::callback<std::size_t> measured) {
        fetch("page/" + std::to_string(i), [=](asyncshift::error err, const std::string &body) {
          if (err) {
            return measured(err, 0);
          }
          measured(asyncshift::error{}, body.size());
        });
      },
      done);
}

void logged_sizes(int n, asyncshift::callback<std::vector<std::size_t>> done) {
  asyncshift::parallel<std::size_t>(
      static_cast<std::size_t>(n),
      [=](std::size_t i, asyncshift::callback<std::size_t> measured) {
        fetch("page/" + std::to_string(i), [=](asyncshift::error err, std::string body) {
          if (err) return measured(err);
          log_line(body);
          measured({}, body.size());
        });
      },
      done);
}

// ---- expected output
// CORO-LABEL: asyncshift::task<std::vector<std::size_t>> page_sizes(int n) {
// CORO-NEXT: auto branch = [=](std::size_t i) {
// CORO-NEXT: return asyncshift::promisify<std::string>(
// CORO-NEXT: [=](auto cb) { fetch("page/" + std::to_string(i), cb); })
// CORO-NEXT: .map([=](std::string body) -> std::size_t { return body.size() + i; });
// CORO-NEXT: };
// CORO-NEXT: co_return co_await asyncshift::when_all(static_cast<std::size_t>(n),
// CORO-NEXT: std::move(branch));
// CORO-NEXT: }
// CORO-LABEL: asyncshift::task<std::vector<std::size_t>> scaled_sizes(int n,
// CORO-NEXT: std::size_t scale) {
// CORO-NEXT: auto branch = [=](std::size_t i) {
// CORO-NEXT: return asyncshift::promisify<std::string>(
// CORO-NEXT: [=](auto cb) { fetch("page/" + std::to_string(i), cb); })
// CORO-NEXT: .map([=](std::string body) -> std::size_t {
// CORO-NEXT: return body.size() * scale;
// CORO-NEXT: });
// CORO-NEXT: };
// CORO-NEXT: co_return co_await asyncshift::when_all(static_cast<std::size_t>(n),
// CORO-NEXT: std::move(branch));
// CORO-NEXT: }
// CORO-LABEL: asyncshift::task<std::vector<std::size_t>> checked_sizes(int n) {
// CORO-NEXT: auto branch = [=](std::size_t i) {
// CORO-NEXT: return asyncshift::promisify<std::string>(
// CORO-NEXT: [=](auto cb) { fetch("page/" + std::to_string(i), cb); })
// CORO-NEXT: .map([=](std::string body) -> std::size_t { return body.size(); });
// CORO-NEXT: };
// CORO-NEXT: co_return co_await asyncshift::when_all(static_cast<std::size_t>(n),
// CORO-NEXT: std::move(branch));
// CORO-NEXT: }
// CORO-LABEL: asyncshift::task<std::vector<std::size_t>> logged_sizes(int n) {
// CORO-NEXT: auto branch = [=](std::size_t i) -> asyncshift::task<std::size_t> {
// CORO-NEXT: auto body = co_await asyncshift::promisify<std::string>(
// CORO-NEXT: [&](auto cb) { fetch("page/" + std::to_string(i), cb); });
// CORO-NEXT: log_line(body);
// CORO-NEXT: co_return body.size();
// CORO-NEXT: };
// CORO-NEXT: co_return co_await asyncshift::when_all(static_cast<std::size_t>(n),
// CORO-NEXT: std::move(branch));
// CORO-NEXT: }

// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<std::vector<std::size_t>>>
// CORO_VALUES-NEXT: page_sizes(int n) {
// CORO_VALUES-NEXT: auto branch = [=](std::size_t i) {
// CORO_VALUES-NEXT: return asyncshift::promisify<std::string>(
// CORO_VALUES-NEXT: [=](auto cb) { fetch("page/" + std::to_string(i), cb); })
// CORO_VALUES-NEXT: .map([=](std::string body) -> std::size_t { return body.size() + i; });
// CORO_VALUES-NEXT: };
// CORO_VALUES-NEXT: co_return co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::when_all(static_cast<std::size_t>(n), std::move(branch)));
// CORO_VALUES-NEXT: }
// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<std::vector<std::size_t>>>
// CORO_VALUES-NEXT: scaled_sizes(int n, std::size_t scale) {
// CORO_VALUES-NEXT: auto branch = [=](std::size_t i) {
// CORO_VALUES-NEXT: return asyncshift::promisify<std::string>(
// CORO_VALUES-NEXT: [=](auto cb) { fetch("page/" + std::to_string(i), cb); })
// CORO_VALUES-NEXT: .map([=](std::string body) -> std::size_t {
// CORO_VALUES-NEXT: return body.size() * scale;
// CORO_VALUES-NEXT: });
// CORO_VALUES-NEXT: };
// CORO_VALUES-NEXT: co_return co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::when_all(static_cast<std::size_t>(n), std::move(branch)));
// CORO_VALUES-NEXT: }
// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<std::vector<std::size_t>>>
// CORO_VALUES-NEXT: checked_sizes(int n) {
// CORO_VALUES-NEXT: auto branch = [=](std::size_t i) {
// CORO_VALUES-NEXT: return asyncshift::promisify<std::string>(
// CORO_VALUES-NEXT: [=](auto cb) { fetch("page/" + std::to_string(i), cb); })
// CORO_VALUES-NEXT: .map([=](std::string body) -> std::size_t { return body.size(); });
// CORO_VALUES-NEXT: };
// CORO_VALUES-NEXT: co_return co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::when_all(static_cast<std::size_t>(n), std::move(branch)));
// CORO_VALUES-NEXT: }
// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<std::vector<std::size_t>>>
// CORO_VALUES-NEXT: logged_sizes(int n) {
// CORO_VALUES-NEXT: auto branch =
// CORO_VALUES-NEXT: [=](std::size_t i) -> asyncshift::task<asyncshift::result<std::size_t>> {
// CORO_VALUES-NEXT: auto [err, body] =
// CORO_VALUES-NEXT: co_await asyncshift::settle(asyncshift::promisify<std::string>(
// CORO_VALUES-NEXT: [&](auto cb) { fetch("page/" + std::to_string(i), cb); }));
// CORO_VALUES-NEXT: if (err) {
// CORO_VALUES-NEXT: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: log_line(body);
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, body.size()};
// CORO_VALUES-NEXT: };
// CORO_VALUES-NEXT: co_return co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::when_all(static_cast<std::size_t>(n), std::move(branch)));
// CORO_VALUES-NEXT: }

// PROMISE-LABEL: asyncshift::promise<std::vector<std::size_t>> page_sizes(int n) {
// PROMISE-NEXT: return asyncshift::make_promise(
// PROMISE-NEXT: asyncshift::when_all(static_cast<std::size_t>(n), [=](std::size_t i) {
// PROMISE-NEXT: return asyncshift::promisify<std::string>([=](auto cb) {
// PROMISE-NEXT: fetch("page/" + std::to_string(i), std::move(cb));
// PROMISE-NEXT: })
// PROMISE-NEXT: .map([=](std::string body) -> std::size_t {
// PROMISE-NEXT: return body.size() + i;
// PROMISE-NEXT: });
// PROMISE-NEXT: }));
// PROMISE-NEXT: }
// PROMISE-LABEL: asyncshift::promise<std::vector<std::size_t>> scaled_sizes(int n,
// PROMISE-NEXT: std::size_t scale) {
// PROMISE-NEXT: return asyncshift::make_promise(
// PROMISE-NEXT: asyncshift::when_all(static_cast<std::size_t>(n), [=](std::size_t i) {
// PROMISE-NEXT: return asyncshift::promisify<std::string>([=](auto cb) {
// PROMISE-NEXT: fetch("page/" + std::to_string(i), std::move(cb));
// PROMISE-NEXT: })
// PROMISE-NEXT: .map([=](std::string body) -> std::size_t {
// PROMISE-NEXT: return body.size() * scale;
// PROMISE-NEXT: });
// PROMISE-NEXT: }));
// PROMISE-NEXT: }
// PROMISE-LABEL: asyncshift::promise<std::vector<std::size_t>> checked_sizes(int n) {
// PROMISE-NEXT: return asyncshift::make_promise(
// PROMISE-NEXT: asyncshift::when_all(static_cast<std::size_t>(n), [=](std::size_t i) {
// PROMISE-NEXT: return asyncshift::promisify<std::string>([=](auto cb) {
// PROMISE-NEXT: fetch("page/" + std::to_string(i), std::move(cb));
// PROMISE-NEXT: })
// PROMISE-NEXT: .map([=](std::string body) -> std::size_t { return body.size(); });
// PROMISE-NEXT: }));
// PROMISE-NEXT: }
// PROMISE-LABEL: asyncshift::promise<std::vector<std::size_t>> logged_sizes(int n) {
// PROMISE-NEXT: return asyncshift::promise<std::size_t>::all(
// PROMISE-NEXT: static_cast<std::size_t>(n),
// PROMISE-NEXT: [=](std::size_t i) -> asyncshift::promise<std::size_t> {
// PROMISE-NEXT: return asyncshift::make_promise_chain<std::string>([&](auto cb) {
// PROMISE-NEXT: fetch("page/" + std::to_string(i), std::move(cb));
// PROMISE-NEXT: })
// PROMISE-NEXT: .then([=](std::string body) -> std::size_t {
// PROMISE-NEXT: log_line(body);
// PROMISE-NEXT: return body.size();
// PROMISE-NEXT: });
// PROMISE-NEXT: });
// PROMISE-NEXT: }

// FUTURE-LABEL: asyncshift::future<std::vector<std::size_t>> page_sizes(int n) {
// FUTURE-NEXT: return asyncshift::make_future(
// FUTURE-NEXT: asyncshift::when_all(static_cast<std::size_t>(n), [=](std::size_t i) {
// FUTURE-NEXT: return asyncshift::promisify<std::string>([=](auto cb) {
// FUTURE-NEXT: fetch("page/" + std::to_string(i), std::move(cb));
// FUTURE-NEXT: })
// FUTURE-NEXT: .map([=](std::string body) -> std::size_t {
// FUTURE-NEXT: return body.size() + i;
// FUTURE-NEXT: });
// FUTURE-NEXT: }));
// FUTURE-NEXT: }
// FUTURE-LABEL: asyncshift::future<std::vector<std::size_t>> scaled_sizes(int n,
// FUTURE-NEXT: std::size_t scale) {
// FUTURE-NEXT: return asyncshift::make_future(
// FUTURE-NEXT: asyncshift::when_all(static_cast<std::size_t>(n), [=](std::size_t i) {
// FUTURE-NEXT: return asyncshift::promisify<std::string>([=](auto cb) {
// FUTURE-NEXT: fetch("page/" + std::to_string(i), std::move(cb));
// FUTURE-NEXT: })
// FUTURE-NEXT: .map([=](std::string body) -> std::size_t {
// FUTURE-NEXT: return body.size() * scale;
// FUTURE-NEXT: });
// FUTURE-NEXT: }));
// FUTURE-NEXT: }
// FUTURE-LABEL: asyncshift::future<std::vector<std::size_t>> checked_sizes(int n) {
// FUTURE-NEXT: return asyncshift::make_future(
// FUTURE-NEXT: asyncshift::when_all(static_cast<std::size_t>(n), [=](std::size_t i) {
// FUTURE-NEXT: return asyncshift::promisify<std::string>([=](auto cb) {
// FUTURE-NEXT: fetch("page/" + std::to_string(i), std::move(cb));
// FUTURE-NEXT: })
// FUTURE-NEXT: .map([=](std::string body) -> std::size_t { return body.size(); });
// FUTURE-NEXT: }));
// FUTURE-NEXT: }
// FUTURE-LABEL: asyncshift::future<std::vector<std::size_t>> logged_sizes(int n) {
// FUTURE-NEXT: return asyncshift::when_all(
// FUTURE-NEXT: static_cast<std::size_t>(n),
// FUTURE-NEXT: [=](std::size_t i) -> asyncshift::future<std::size_t> {
// FUTURE-NEXT: return asyncshift::make_future_chain<std::string>([&](auto cb) {
// FUTURE-NEXT: fetch("page/" + std::to_string(i), std::move(cb));
// FUTURE-NEXT: })
// FUTURE-NEXT: .then([=](std::string body) -> std::size_t {
// FUTURE-NEXT: log_line(body);
// FUTURE-NEXT: return body.size();
// FUTURE-NEXT: });
// FUTURE-NEXT: });
// FUTURE-NEXT: }
