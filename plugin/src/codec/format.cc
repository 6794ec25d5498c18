#include "codec/format.h"

#include <algorithm>
#include <cstring>

namespace pooled_gzip {
namespace internal {
namespace {

// The first `out.size()` bytes of the input; false if it is shorter.
bool CopyPrefix(absl::Span<const absl::string_view> pieces,
                absl::Span<uint8_t> out) {
  size_t filled = 0;
  for (absl::string_view piece : pieces) {
    if (filled == out.size()) break;
    const size_t n = std::min(piece.size(), out.size() - filled);
    std::memcpy(out.data() + filled, piece.data(), n);
    filled += n;
  }
  return filled == out.size();
}

}  // namespace

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

size_t PlainHeaderBytes(Format format,
                        absl::Span<const absl::string_view> input) {
  if (TotalSize(input) < MinStreamBytes(format)) return 0;
  uint8_t header[4];  // no stream is shorter
  if (!CopyPrefix(input, absl::MakeSpan(header))) return 0;
  if (format == Format::kGzip) {
    const bool plain = header[0] == 0x1f && header[1] == 0x8b &&
                       header[2] == 8 && header[3] == 0;
    return plain ? kPlainGzipHeaderBytes : 0;
  }
  const unsigned cmf = header[0];
  const unsigned flg = header[1];
  const bool plain = (cmf & 0x0f) == 8 && (cmf >> 4) <= 7 &&
                     ((cmf << 8) | flg) % 31 == 0 && (flg & 0x20) == 0;
  return plain ? 2 : 0;
}

}  // namespace internal
}  // namespace pooled_gzip
