// make_shared_state: one pooled block, a plain count, the last copy frees it.
#include "counted.hpp"

#include <asyncshift/shared_state.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

using namespace asyncshift;
using asyncshift::test::counted;
using asyncshift::test::live_objects;

namespace {
struct upload_state {
  std::int64_t blob_id = 0;
  std::string name;
};
} // namespace

TEST(shared_state, copies_share_one_object_and_the_last_one_frees_it) {
  counted::reset();
  const auto before = live_objects();
  {
    auto a = make_shared_state<counted>(7);
    EXPECT_EQ(live_objects(), before + 1) << "one block";
    auto b = a;
    EXPECT_EQ(a.get(), b.get());
    EXPECT_EQ(b.use_count(), 2u);
    b->id = 8;
    EXPECT_EQ((*a).id, 8);
    auto c = std::move(b);
    EXPECT_FALSE(b);
    EXPECT_EQ(c.use_count(), 2u);
  }
  EXPECT_EQ(counted::active(), 0);
  EXPECT_EQ(counted::copy_constructions, 0);
  EXPECT_EQ(live_objects(), before);
}

TEST(shared_state, an_aggregate_is_value_initialised_or_built_from_its_members) {
  auto a = make_shared_state<upload_state>();
  EXPECT_EQ(a->blob_id, 0);
  auto b = make_shared_state<upload_state>(std::int64_t{5}, std::string("f"));
  EXPECT_EQ(b->blob_id, 5);
  EXPECT_EQ(b->name, "f");
}

TEST(shared_state, is_one_pooled_block_and_a_pointer) {
  const auto bytes = detail::memory_snapshot().bytes;
  auto a = make_shared_state<std::int64_t>(1);
  // The count, how to free the block (for a chain that keeps it), the value:
  // 24 bytes in a 32-byte pooled block, where std::make_shared's is a 32-byte
  // heap block (virtual table, two counts, the value) behind malloc's header.
  EXPECT_EQ(detail::memory_snapshot().bytes - bytes, 32u);
  EXPECT_EQ(sizeof(a), sizeof(void*));
}
