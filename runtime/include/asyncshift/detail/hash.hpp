// Small, fast, deterministic hashes for traces, ids and error injection.
//
// The simulated world hashes a few values per op (an op's arguments, its trace
// entry), identically in every style, so these are on every benchmark's
// measured path: each is one 64x64->128-bit multiply folded to 64 bits (the
// "mum" step of wyhash), a handful of instructions. mix64 (splitmix64's
// finaliser) stays for where the output's bits are compared against a
// threshold (error injection), which wants every output bit well mixed.
// The simulated world's ids (query arguments, version hashes, uuids) and its
// strings take cheaper steps (id_mix, hash_string): they only need to differ
// where their inputs do, since every op's trace entry, a full combine, mixes
// them before they reach the digest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

namespace asyncshift::detail {

/// splitmix64's finaliser: a bijective 64-bit mix.
constexpr std::uint64_t mix64(std::uint64_t x) noexcept {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

/// The full 128-bit product of \p a and \p b, its halves xor-ed together.
constexpr std::uint64_t mum(std::uint64_t a, std::uint64_t b) noexcept {
#if defined(__SIZEOF_INT128__)
  const unsigned __int128 r = static_cast<unsigned __int128>(a) * b;
  return static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
#else
  const std::uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
  const std::uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
  const std::uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
  const std::uint64_t lo = (ll & 0xffffffffu) | (mid << 32);
  const std::uint64_t hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
  return lo ^ hi;
#endif
}

/// Hashes the pair (a, b); not symmetric. The constants keep small inputs
/// (0, 1, small ids) away from the multiply's fixed points: a product with
/// a zero factor would forget the other input, and a == 0x2d35... is the only
/// such value of a.
constexpr std::uint64_t combine(std::uint64_t a, std::uint64_t b) noexcept {
  return mum(a ^ 0x2d358dccaa6c78a5ULL, b ^ 0x8bb84b93962eacc9ULL);
}

/// A cheap id made of (a, b) for the simulated world: the polynomial step
/// a*K + b, two instructions. For a fixed a it is a bijection of b, and for a
/// fixed b one of a (K is odd), so ids that differ in one input differ. Not
/// a hash: equal sums collide, so what has to be well mixed (trace entries,
/// failure decisions) uses combine.
constexpr std::uint64_t id_mix(std::uint64_t a, std::uint64_t b) noexcept {
  return a * 0x9e3779b97f4a7c15ULL + b;
}

/// Reads \p N bytes at \p p as a little-endian number (any machine order
/// would do at run time; the constexpr path must agree with it on ours).
template <std::size_t N>
constexpr std::uint64_t load_le(const char* p) noexcept {
  if (std::is_constant_evaluated()) {
    std::uint64_t w = 0;
    for (std::size_t j = 0; j < N; ++j) w |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[j])) << (8 * j);
    return w;
  }
  if constexpr (N == 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    return w;
  } else {
    std::uint32_t w;
    std::memcpy(&w, p, 4);
    return w;
  }
}

/// One word of hash_string: xor, then multiply by an odd constant.
constexpr std::uint64_t string_step(std::uint64_t h, std::uint64_t w) noexcept {
  return (h ^ w) * 0x9fb21c651e98df25ULL;
}

/// Hashes a string 8 bytes per multiply. The length goes into the seed, so
/// the last word may overlap the one before it (and a short tail is read
/// as wyhash does, with at most two loads) without two strings of different
/// lengths colliding by construction: no per-byte loop and no call to
/// memcpy. Each word costs an xor and a multiply (string_step), and a final
/// fold brings the high bits down; good enough for op names and the
/// simulated world's paths (the doxbee world hashes the same short path
/// twice per execution), which only need to differ where the strings do.
[[gnu::always_inline]] constexpr std::uint64_t hash_string(std::string_view s) noexcept {
  const char* p = s.data();
  const std::size_t n = s.size();
  std::uint64_t h = 0x4b33a62ed433d4a3ULL ^ n;
  if (n >= 8) {
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) h = string_step(h, load_le<8>(p + i));
    if (i < n) h = string_step(h, load_le<8>(p + n - 8));
  } else if (n >= 4) {
    h = string_step(h, load_le<4>(p) | (load_le<4>(p + n - 4) << 32));
  } else if (n > 0) {
    const auto byte = [&](std::size_t j) { return static_cast<std::uint64_t>(static_cast<unsigned char>(p[j])); };
    h = string_step(h, byte(0) | (byte(n / 2) << 8) | (byte(n - 1) << 16));
  }
  return h ^ (h >> 32);
}

} // namespace asyncshift::detail
