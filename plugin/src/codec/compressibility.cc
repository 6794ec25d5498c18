#include "codec/compressibility.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#include "codec/format.h"

namespace pooled_gzip {
namespace internal {
namespace {

// A stretch in the middle of each equal part of the message, so that a
// header does not decide, and each part of a mixed message is seen.
constexpr size_t kStretches = 8;
constexpr size_t kStretchBytes = 32;
constexpr size_t kSampleBytes = kStretches * kStretchBytes;
// Shorter messages are compressed: too few bytes to judge, and cheap.
constexpr size_t kMinJudgedBytes = 64;

}  // namespace

bool LooksIncompressible(absl::Span<const absl::string_view> pieces) {
  const size_t total = TotalSize(pieces);
  if (total < kMinJudgedBytes) return false;
  const uint64_t n = std::min(total, kSampleBytes);
  // Pearson's chi-squared against the uniform distribution,
  //   chi2 = 256 * sum(count^2) / n - n,
  // is 255 on average for random bytes, with a standard deviation under
  // 23. Below 255 + 4 * 23 + n / 8 the sample is uniform within chance, or
  // so close (an entropy within 0.09 bit of 8) that coding bytes would save
  // about 1%. The sum only grows, so a skewed sample is known early.
  const uint64_t compressible = n * (n + 255 + 92 + n / 8);
  // A message no longer than a sample is its own.
  const size_t stretches = total <= kSampleBytes ? 1 : kStretches;
  const size_t stretch = n / stretches;
  const size_t part = total / stretches;
  std::array<uint16_t, 256> counts{};
  uint64_t sum_of_squares = 0;  // as counts grow: (c + 1)^2 = c^2 + 2c + 1
  size_t piece = 0;
  size_t piece_start = 0;  // where `piece` starts in the concatenation
  for (size_t i = 0; i < stretches; ++i) {
    size_t offset = i * part + (part - stretch) / 2;
    for (size_t left = stretch; left > 0;) {
      while (offset >= piece_start + pieces[piece].size()) {
        piece_start += pieces[piece++].size();
      }
      const absl::string_view bytes =
          pieces[piece].substr(offset - piece_start, left);
      for (const char byte : bytes) {
        sum_of_squares +=
            2 * uint32_t{counts[static_cast<uint8_t>(byte)]++} + 1;
      }
      offset += bytes.size();
      left -= bytes.size();
    }
    if (256 * sum_of_squares >= compressible) return false;
  }
  return true;
}

}  // namespace internal
}  // namespace pooled_gzip
