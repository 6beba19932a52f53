// Converted member functions of an object that outlives the work: steps that
// read members and write one (written `this->` or not), a converted member
// calling another, a `parallel` whose branches read a member, and state that
// crosses a wait typed by a member typedef of a library class
// (`std::map<...>::const_iterator`, `size_type`). The chain styles capture
// `this` only in the lambdas that use the object, and spell those types
// through their class (test/lit/patterns/member-this-capture.cpp,
// deduced-member-types.cpp); every style must trace what the callbacks do.
#include <asyncshift/bench.hpp>

#include <map>
#include <string>
#include <vector>

using asyncshift::callback;
using asyncshift::error;
namespace fake = asyncshift::fake;

namespace {

class ledger {
public:
  void post(std::int64_t key, callback<std::int64_t> done) {
    fake::io("mf.read", key, [=, this](error err, std::int64_t v) {
      if (err) return done(err);
      auto it = totals_.find(key % 7);
      auto n = names_.size();
      fake::io("mf.write", v + bias_, [=, this](error err, std::int64_t w) {
        if (err) return done(err);
        std::int64_t seen = it == totals_.end() ? 0 : it->second;
        ++this->posts_; // written, never traced: executions share the object
        done({}, seen + static_cast<std::int64_t>(n) + w % 10);
      });
    });
  }

  void audit(std::int64_t key, callback<> done) {
    this->post(key, [=, this](error err, std::int64_t total) {
      if (err) return done(err);
      fake::io("mf.audit", total + scale(key), [=](error err, std::int64_t) { done(err); });
    });
  }

  void spread(std::int64_t key, callback<std::int64_t> done) {
    const std::size_t n = 1 + static_cast<std::size_t>(key % 3);
    asyncshift::parallel<std::int64_t>(
        n, [=, this](std::size_t i, callback<std::int64_t> cb) { fake::io("mf.branch", key + bias_ * static_cast<std::int64_t>(i), cb); },
        [=](error err, std::vector<std::int64_t> values) {
          if (err) return done(err);
          std::int64_t sum = 0;
          for (std::int64_t v : values) sum = sum * 5 + v % 50;
          done({}, sum);
        });
  }

private:
  std::int64_t scale(std::int64_t v) const { return v * 3 % 101; }
  std::int64_t bias_ = 11;
  std::map<std::int64_t, std::int64_t> totals_{{0, 5}, {2, 17}, {3, 40}, {6, 1}};
  std::int64_t posts_ = 0;
  std::vector<std::string> names_{"a", "b"};
};

ledger book;

void member_functions(std::uint64_t k, callback<> done) {
  const auto key = static_cast<std::int64_t>(k % 1009);
  if (k % 3 == 0) return book.audit(key, done);
  if (k % 3 == 1) {
    return book.spread(key, [=](error err, std::int64_t sum) {
      if (err) return done(err);
      fake::io("mf.spread", sum % 1000, [=](error err, std::int64_t) { done(err); });
    });
  }
  book.post(key, [=](error err, std::int64_t v) {
    if (err) return done(err);
    fake::io("mf.post", v % 1000, [=](error err, std::int64_t) { done(err); });
  });
}

} // namespace

ASYNCSHIFT_WORKLOAD("member_functions", member_functions);
