// ASYNCSHIFT_WORKLOAD's registration: one constructor per style of entry,
// and each starts execution k and reports its outcome to a callback.
#include <asyncshift/bench.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <string>

using namespace asyncshift;

namespace {

promise<> promise_entry(std::uint64_t k) {
  if (k == 1) return promise<>::reject(error("promise entry failed"));
  return promise<>::resolve();
}
future<> future_entry(std::uint64_t k) {
  if (k == 1) return make_failed_future(error("future entry failed"));
  return make_ready_future();
}

const bench::workload* find(const char* name) {
  for (const auto& w : bench::registry())
    if (std::strcmp(w.name, name) == 0) return &w;
  return nullptr;
}

} // namespace

TEST(bench_registration, promise_and_future_entries_register_with_their_style_and_complete) {
  static const bench::registration p("registration_test_promise", &promise_entry);
  static const bench::registration f("registration_test_future", &future_entry);
  const bench::workload* wp = find("registration_test_promise");
  const bench::workload* wf = find("registration_test_future");
  ASSERT_TRUE(wp && wf);
  EXPECT_STREQ(wp->style, "promise");
  EXPECT_STREQ(wf->style, "future");

  loop l(clock_kind::virtual_time);
  std::string outcomes;
  for (const bench::workload* w : {wp, wf})
    for (std::uint64_t k = 0; k < 2; ++k)
      w->start(w->entry, k, [&](error e) { outcomes += e ? "!" : "."; });
  l.run();
  EXPECT_EQ(outcomes, ".!.!");
  EXPECT_EQ(l.unhandled_rejections(), 0u);
}
