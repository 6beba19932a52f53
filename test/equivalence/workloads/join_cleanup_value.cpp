// A named continuation whose error cleanup reads its value parameter, reached
// with an error and a value of the caller's choosing (`finish(err, 5)`) and
// from a call it is handed to (a failed call passes the default value). The
// cleanup starts an op whose argument is that value, so the trace shows which
// value it saw: the coroutine styles must run it with the jump's value (they
// once ran it with the variable still unassigned). Promise and future refuse
// the shape (test/lit/refuse/join-cleanup-reads-value.cpp), so they are not
// in the list.
#include <asyncshift/bench.hpp>

#include <string>

using asyncshift::callback;
using asyncshift::error;
namespace fake = asyncshift::fake;

namespace {

void transfer(std::int64_t amount, callback<std::string> done) {
  fake::io("jcv.debit", amount, [=](error err, std::int64_t balance) {
    if (err) return done(err);
    auto finish = [=](error err, std::int64_t receipt) {
      if (err) {
        fake::io("jcv.undo", receipt, [](error, std::int64_t) {});
        return done(err);
      }
      done({}, std::to_string(receipt) + "/" + std::to_string(balance));
    };
    if (balance % 2 == 0) {
      fake::io("jcv.audit", balance, [=](error err, std::int64_t audited) {
        if (err) return finish(err, 5 + amount);
        fake::io("jcv.credit", audited, finish);
      });
    } else {
      fake::io("jcv.credit", amount, finish);
    }
  });
}

void join_cleanup_value(std::uint64_t k, callback<> done) {
  transfer(static_cast<std::int64_t>(k % 977), [=](error err, std::string receipt) {
    if (err) return done(err);
    fake::io("jcv.log", static_cast<std::int64_t>(receipt.size()), [=](error err, std::int64_t) { done(err); });
  });
}

} // namespace

ASYNCSHIFT_WORKLOAD("join_cleanup_value", join_cleanup_value);
