// Small, fast, deterministic hashes for traces, ids and error injection.
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

constexpr std::uint64_t combine(std::uint64_t a, std::uint64_t b) noexcept {
  return mix64(a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2)));
}

/// FNV-1a, then mixed.
constexpr std::uint64_t hash_string_uncached(std::string_view s) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return mix64(h);
}

/// A few recently hashed short strings and their hashes. FNV-1a costs a
/// multiply per byte and the doxbee world hashes the same path on every
/// execution; comparing 8 bytes at a time is several times cheaper. The key
/// is the content (not the address), so the answer is always the hash.
struct string_hash_cache {
  static constexpr std::size_t max_len = 32;
  struct entry {
    std::size_t len = SIZE_MAX;
    std::uint64_t hash = 0;
    alignas(8) char bytes[max_len];
  };
  entry entries[4];
};
constinit inline thread_local string_hash_cache tl_string_hashes{};

inline bool same_bytes(const char* cached, const char* s, std::size_t n) noexcept {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t a, b;
    std::memcpy(&a, cached + i, 8);
    std::memcpy(&b, s + i, 8);
    if (a != b) return false;
  }
  for (; i < n; ++i)
    if (cached[i] != s[i]) return false;
  return true;
}

constexpr std::uint64_t hash_string(std::string_view s) noexcept {
  if (std::is_constant_evaluated() || s.size() > string_hash_cache::max_len) return hash_string_uncached(s);
  auto& e = tl_string_hashes.entries[(s.size() ^ (s.empty() ? 0u : static_cast<unsigned char>(s.back()))) & 3];
  if (e.len == s.size() && same_bytes(e.bytes, s.data(), s.size())) return e.hash;
  e.hash = hash_string_uncached(s);
  e.len = s.size();
  if (!s.empty()) std::memcpy(e.bytes, s.data(), s.size());
  return e.hash;
}

} // namespace asyncshift::detail
