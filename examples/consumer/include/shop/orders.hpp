// The shop's shared pieces: the simulated operations an order goes through
// and the pricing rule. A header of the consumer's own, included by orders.cpp,
// so editing it must regenerate every rewritten style of that workload.
#pragma once

#include <asyncshift/fake.hpp>

#include <cstdint>
#include <vector>

namespace shop {

/// Items priced in parallel per order.
inline constexpr std::size_t items_per_order = 3;

inline const asyncshift::fake::op_name reserve_op{"reserve"};
inline const asyncshift::fake::op_name price_op{"price"};
inline const asyncshift::fake::op_name charge_op{"charge"};
inline const asyncshift::fake::op_name release_op{"release"};

/// What the customer pays for the priced items.
inline std::int64_t order_total(const std::vector<std::int64_t>& prices) {
  std::int64_t total = 0;
  for (std::int64_t p : prices) total += p % 1000;
  return total;
}

} // namespace shop
