#include "codec/stream_io.h"

#include <cstring>
#include <optional>

namespace pooled_gzip {
namespace internal {

size_t FirstChunkGuess(Format format, Pieces input) {
  if (format == Format::kGzip) {
    if (std::optional<uint32_t> size = GzipTrailerSize(input)) {
      return size_t{*size} + 1;
    }
  }
  return std::max<size_t>(TotalSize(input) * 4, 256);
}

void WriteAll(absl::string_view data, ChunkSink* sink) {
  while (!data.empty()) {
    absl::Span<char> chunk = sink->NextChunk(data.size());
    const size_t n = std::min(chunk.size(), data.size());
    std::memcpy(chunk.data(), data.data(), n);
    sink->CommitChunk(n);
    data.remove_prefix(n);
  }
}

}  // namespace internal
}  // namespace pooled_gzip
