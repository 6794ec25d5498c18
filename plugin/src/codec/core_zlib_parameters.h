// gRPC core's zlib parameters (message_compress.cc, 1.51 through master):
// what its message codec opens every stream with, and the room it gives
// each call. One place for them: the zlib seam recognizes core's streams by
// them (seam/zlib_seam.cc), the zlib backend opens its own with them, so
// that at level 6 its bytes are core's (codec/zlib_backend.cc), and the
// tests' model of core makes core's calls with them
// (testing/core_zlib_calls.cc).

#ifndef POOLED_GZIP_SRC_CODEC_CORE_ZLIB_PARAMETERS_H_
#define POOLED_GZIP_SRC_CODEC_CORE_ZLIB_PARAMETERS_H_

#include <zlib.h>

#include <cstddef>
#include <optional>

#include "codec/format.h"

namespace pooled_gzip {
namespace internal {

// A compressing stream's level, method, memLevel and strategy.
inline constexpr int kCoreLevel = Z_DEFAULT_COMPRESSION;
inline constexpr int kCoreMethod = Z_DEFLATED;
inline constexpr int kCoreMemLevel = 8;
inline constexpr int kCoreStrategy = Z_DEFAULT_STRATEGY;

// OUTPUT_BLOCK_SIZE: the output room of each deflate or inflate call, and
// of each slice core's output is made of.
inline constexpr size_t kCoreOutputBlockBytes = 1024;

// windowBits for `format`: zlib's largest window (MAX_WBITS, 15), plus 16
// for the gzip wrapper. Never +32 (auto-detection): core names the format.
constexpr int WindowBitsOf(Format format) {
  return format == Format::kGzip ? MAX_WBITS + 16 : MAX_WBITS;
}

// The format a windowBits of core's stands for; nullopt for any other.
constexpr std::optional<Format> FormatOfWindowBits(int window_bits) {
  for (Format format : {Format::kGzip, Format::kDeflate}) {
    if (WindowBitsOf(format) == window_bits) return format;
  }
  return std::nullopt;
}

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_CORE_ZLIB_PARAMETERS_H_
