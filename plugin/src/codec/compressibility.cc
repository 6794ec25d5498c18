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
constexpr size_t kStretchBytes = 64;
constexpr size_t kSampleBytes = kStretches * kStretchBytes;
// Shorter messages are compressed: too few bytes to judge, and compressing
// them costs little anyway.
constexpr size_t kMinJudgedBytes = 64;

// Copies the `size` bytes at `offset` of the concatenation, from piece
// `*piece` (at `*piece_start` in it) on; offsets must not decrease between
// calls.
void CopyAt(absl::Span<const absl::string_view> pieces, size_t offset,
            size_t size, size_t* piece, size_t* piece_start, uint8_t* out) {
  while (size > 0) {
    while (offset >= *piece_start + pieces[*piece].size()) {
      *piece_start += pieces[*piece].size();
      ++*piece;
    }
    const absl::string_view from = pieces[*piece];
    const size_t at = offset - *piece_start;
    const size_t n = std::min(size, from.size() - at);
    std::copy_n(reinterpret_cast<const uint8_t*>(from.data()) + at, n, out);
    out += n;
    offset += n;
    size -= n;
  }
}

}  // namespace

bool LooksIncompressible(absl::Span<const absl::string_view> pieces) {
  const size_t total = TotalSize(pieces);
  if (total < kMinJudgedBytes) return false;
  std::array<uint8_t, kSampleBytes> sample;
  size_t n = 0;
  size_t piece = 0;
  size_t piece_start = 0;
  if (total <= kSampleBytes) {
    CopyAt(pieces, 0, total, &piece, &piece_start, sample.data());
    n = total;
  } else {
    const size_t part = total / kStretches;
    for (size_t i = 0; i < kStretches; ++i) {
      const size_t offset = i * part + (part - kStretchBytes) / 2;
      CopyAt(pieces, offset, kStretchBytes, &piece, &piece_start,
             sample.data() + n);
      n += kStretchBytes;
    }
  }
  // Two tables, so that runs of one byte value do not serialise on one
  // counter.
  std::array<uint16_t, 256> even{};
  std::array<uint16_t, 256> odd{};
  size_t i = 0;
  for (; i + 1 < n; i += 2) {
    ++even[sample[i]];
    ++odd[sample[i + 1]];
  }
  if (i < n) ++even[sample[i]];
  uint64_t sum_of_squares = 0;
  for (size_t b = 0; b < 256; ++b) {
    const uint64_t count = uint64_t{even[b]} + odd[b];
    sum_of_squares += count * count;
  }
  // Pearson's chi-squared against the uniform distribution,
  //   chi2 = 256 * sum(count^2) / n - n,
  // is 255 on average for random bytes, with a standard deviation of
  // sqrt(2 * 255) < 23. Below 255 + 4 * 23 + n / 8 the sample is uniform
  // within chance, or so close to it (a chi-squared divergence of 1/8, an
  // entropy within 0.09 bit of 8) that coding bytes would save about 1%.
  const uint64_t samples = n;
  return 256 * sum_of_squares < samples * (samples + 255 + 92 + samples / 8);
}

}  // namespace internal
}  // namespace pooled_gzip
