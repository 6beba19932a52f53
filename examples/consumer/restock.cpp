// restock: a second workload in callback style that does not include
// shop/orders.hpp, built with asyncshift_rewrite() into a target of the
// consumer's own. Check the shelf, then reorder what is missing, one item
// after another.
#include <asyncshift/bench.hpp>

namespace {
const asyncshift::fake::op_name shelf_op{"shelf"};
const asyncshift::fake::op_name reorder_op{"reorder"};
} // namespace

void restock(std::uint64_t k, asyncshift::callback<> done) {
  asyncshift::fake::io(shelf_op, static_cast<std::int64_t>(k % 7), [=](asyncshift::error err, std::int64_t missing) {
    if (err) return done(err);
    asyncshift::each_series(
        static_cast<std::size_t>(missing % 3 + 1),
        [=](std::size_t i, asyncshift::callback<> reordered) {
          asyncshift::fake::io(reorder_op, missing + static_cast<std::int64_t>(i), reordered);
        },
        done);
  });
}

ASYNCSHIFT_WORKLOAD("restock", restock);
