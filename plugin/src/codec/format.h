// gRPC's two stream formats, and what every backend needs to know of them.

#ifndef POOLED_GZIP_SRC_CODEC_FORMAT_H_
#define POOLED_GZIP_SRC_CODEC_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <optional>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace pooled_gzip {
namespace internal {

// gRPC's "gzip" is RFC 1952; its "deflate" is the zlib format of RFC 1950,
// as every gRPC implementation reads it.
enum class Format { kGzip, kDeflate };

absl::string_view FormatName(Format format);  // "gzip" or "deflate"

// No stream of `format` is shorter than this: wrapper plus one empty block.
inline constexpr size_t MinStreamBytes(Format format) {
  return format == Format::kGzip ? 10 + 8 + 1 : 2 + 4 + 1;
}

size_t TotalSize(absl::Span<const absl::string_view> pieces);

// A gzip stream's uncompressed size mod 2^32 from its trailer: the peer's
// word, so only a hint; nullopt if the input is too short.
std::optional<uint32_t> GzipTrailerSize(
    absl::Span<const absl::string_view> pieces);

// A gzip header with no optional field: ID1 ID2 CM FLG=0 MTIME(4) XFL OS.
inline constexpr size_t kPlainGzipHeaderBytes = 10;

// The length of a header a fast decoder may skip: the plain gzip header or
// a zlib header zlib accepts without a dictionary; 0 for anything else
// (optional fields, a header CRC, reserved flags, an odd window, input too
// short for a stream), which zlib decides.
size_t PlainHeaderBytes(Format format,
                        absl::Span<const absl::string_view> input);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_FORMAT_H_
