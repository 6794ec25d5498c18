#include "codec/format.h"

namespace pooled_gzip {
namespace internal {

absl::string_view FormatName(Format format) {
  return format == Format::kGzip ? "gzip" : "deflate";
}

size_t TotalSize(absl::Span<const absl::string_view> pieces) {
  size_t total = 0;
  for (absl::string_view piece : pieces) total += piece.size();
  return total;
}

std::optional<uint32_t> GzipTrailerSize(
    absl::Span<const absl::string_view> pieces) {
  if (TotalSize(pieces) < MinStreamBytes(Format::kGzip)) return std::nullopt;
  // The four bytes may straddle pieces; they are little-endian.
  uint32_t size = 0;
  size_t needed = 4;
  for (auto piece = pieces.rbegin(); piece != pieces.rend() && needed > 0;
       ++piece) {
    for (size_t i = piece->size(); i > 0 && needed > 0; --i, --needed) {
      size = (size << 8) | static_cast<unsigned char>((*piece)[i - 1]);
    }
  }
  return size;
}

}  // namespace internal
}  // namespace pooled_gzip
