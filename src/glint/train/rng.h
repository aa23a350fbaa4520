#pragma once
// The one random number source of training. Its whole state is four 64-bit words, so a
// checkpoint can store it exactly and "train N, save, resume, train M" draws the same
// numbers as "train N+M". std::mt19937_64 + std::normal_distribution would not do: the
// distribution caches a spare value that is not part of the engine's state, and its
// algorithm differs between standard libraries.
#include <array>
#include <cmath>
#include <cstdint>

namespace glint {

// xoshiro256** (Blackman & Vigna), seeded through splitmix64.
class Rng {
 public:
  using State = std::array<std::uint64_t, 4>;

  explicit Rng(std::uint64_t seed = 0) { reseed(seed); }

  void reseed(std::uint64_t seed) {
    std::uint64_t x = seed;
    for (auto& w : s_) w = splitmix64(x);
  }

  std::uint64_t next_u64() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

  // Uniform integer in [0, n) (n > 0); Lemire's multiply-shift without the rejection step,
  // whose bias (< n / 2^64) is irrelevant here.
  std::uint64_t below(std::uint64_t n) {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(next_u64()) * n) >> 64);
  }

  // Standard normal by Box-Muller. The second value of each pair is dropped so that the
  // state stays exactly the four words above.
  double normal() {
    double u1 = 1.0 - uniform();  // (0, 1]: log stays finite
    double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

  const State& state() const { return s_; }
  void set_state(const State& s) { s_ = s; }
  bool operator==(const Rng&) const = default;

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static std::uint64_t splitmix64(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  State s_{};
};

}  // namespace glint
