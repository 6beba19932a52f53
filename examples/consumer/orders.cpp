// orders: a workload in callback style, the one source every style of the
// consumer's benchmark is generated from. Reserve the stock, price the items
// in parallel, charge the total; when pricing or charging fails, release the
// reservation without waiting for it and fail the order.
#include <asyncshift/bench.hpp>

#include "shop/orders.hpp"

void place_order(std::uint64_t k, asyncshift::callback<> done) {
  asyncshift::fake::io(shop::reserve_op, static_cast<std::int64_t>(k), [=](asyncshift::error err, std::int64_t slot) {
    if (err) return done(err);
    asyncshift::parallel<std::int64_t>(
        shop::items_per_order,
        [=](std::size_t i, asyncshift::callback<std::int64_t> priced) {
          asyncshift::fake::io(shop::price_op, slot + static_cast<std::int64_t>(i), priced);
        },
        [=](asyncshift::error err, std::vector<std::int64_t> prices) {
          if (err) {
            asyncshift::fake::io(shop::release_op, slot, [](asyncshift::error, std::int64_t) {});
            return done(err);
          }
          asyncshift::fake::io(shop::charge_op, shop::order_total(prices), [=](asyncshift::error err, std::int64_t) {
            if (err) {
              asyncshift::fake::io(shop::release_op, slot, [](asyncshift::error, std::int64_t) {});
              return done(err);
            }
            done({});
          });
        });
  });
}

ASYNCSHIFT_WORKLOAD("orders", place_order);
