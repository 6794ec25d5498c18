#include "codec/compressibility.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#include "codec/format.h"

namespace pooled_gzip {
namespace internal {
namespace {

// The sample: this many stretches of this many bytes, one in the middle of
// each equal part of the message, so that a header at the start does not
// decide, and a message of several kinds of data is seen in each part.
constexpr size_t kStretches = 8;
constexpr size_t kStretchBytes = 32;
constexpr size_t kSampleBytes = kStretches * kStretchBytes;
// Shorter messages are compressed: too few bytes to judge, and compressing
// them costs little anyway.
constexpr size_t kMinJudgedBytes = 64;

// Byte counts of a sample and the sum of their squares, kept as bytes are
// added: (c + 1)^2 = c^2 + 2c + 1.
class Histogram {
 public:
  void Add(const char* bytes, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      sum_of_squares_ +=
          2 * uint32_t{counts_[static_cast<uint8_t>(bytes[i])]++} + 1;
    }
  }
  uint64_t sum_of_squares() const { return sum_of_squares_; }

 private:
  std::array<uint16_t, 256> counts_{};
  uint64_t sum_of_squares_ = 0;
};

// Adds the `size` bytes at `offset` of the concatenation, from piece
// `*piece` (at `*piece_start` in it) on; offsets must not decrease between
// calls.
void AddAt(absl::Span<const absl::string_view> pieces, size_t offset,
           size_t size, size_t* piece, size_t* piece_start,
           Histogram* histogram) {
  while (size > 0) {
    while (offset >= *piece_start + pieces[*piece].size()) {
      *piece_start += pieces[*piece].size();
      ++*piece;
    }
    const absl::string_view from = pieces[*piece];
    const size_t at = offset - *piece_start;
    const size_t n = std::min(size, from.size() - at);
    histogram->Add(from.data() + at, n);
    offset += n;
    size -= n;
  }
}

}  // namespace

bool LooksIncompressible(absl::Span<const absl::string_view> pieces) {
  const size_t total = TotalSize(pieces);
  if (total < kMinJudgedBytes) return false;
  const uint64_t n = std::min(total, kSampleBytes);
  // Pearson's chi-squared against the uniform distribution,
  //   chi2 = 256 * sum(count^2) / n - n,
  // is 255 on average for random bytes, with a standard deviation of
  // sqrt(2 * 255) < 23. Below 255 + 4 * 23 + n / 8 the sample is uniform
  // within chance, or so close to it (a chi-squared divergence of 1/8, an
  // entropy within 0.09 bit of 8) that coding bytes would save about 1%.
  // The sum only grows, so a skewed sample is known as such early.
  const uint64_t compressible = n * (n + 255 + 92 + n / 8);
  Histogram histogram;
  size_t piece = 0;
  size_t piece_start = 0;
  if (total <= kSampleBytes) {
    AddAt(pieces, 0, total, &piece, &piece_start, &histogram);
  } else {
    const size_t part = total / kStretches;
    for (size_t i = 0; i < kStretches; ++i) {
      AddAt(pieces, i * part + (part - kStretchBytes) / 2, kStretchBytes,
            &piece, &piece_start, &histogram);
      if (256 * histogram.sum_of_squares() >= compressible) return false;
    }
  }
  return 256 * histogram.sum_of_squares() < compressible;
}

}  // namespace internal
}  // namespace pooled_gzip
