// Layer 2 of pooled-gzip: gzip and zlib ("deflate") streams over pooled zlib
// contexts. Knows nothing of gRPC; errors travel as absl::Status.

#ifndef POOLED_GZIP_CODEC_H_
#define POOLED_GZIP_CODEC_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "pooled_gzip/context_pool.h"
#include "pooled_gzip/pool_stats.h"

namespace pooled_gzip {

// The two wire formats gRPC calls "gzip" (RFC 1952) and "deflate" (which is
// the zlib format of RFC 1950, as every gRPC implementation reads it).
enum class Format { kGzip, kZlib };

absl::string_view FormatName(Format format);  // "gzip" or "deflate"

// zlib's default level (6), which is also what gRPC core uses.
inline constexpr int kDefaultLevel = -1;

// Where the codec writes its output, in chunks the sink allocates. This lets
// the gRPC glue hand zlib the memory of gRPC slices directly.
class ChunkSink {
 public:
  virtual ~ChunkSink() = default;
  // Returns a writable chunk of at least one byte. `size_hint` is how much
  // the codec expects to write; a sink should return exactly that much
  // unless it has a reason not to.
  virtual absl::Span<char> NextChunk(size_t size_hint) = 0;
  // The codec wrote the first `used` bytes of the last chunk. Called once per
  // chunk, before the next NextChunk.
  virtual void CommitChunk(size_t used) = 0;
};

// Appends to a std::string.
class StringSink final : public ChunkSink {
 public:
  explicit StringSink(std::string* out) : out_(out) {}
  absl::Span<char> NextChunk(size_t size_hint) override;
  void CommitChunk(size_t used) override;

 private:
  std::string* out_;
  size_t chunk_start_ = 0;
};

struct CompressOptions {
  Format format = Format::kGzip;
  int level = kDefaultLevel;  // -1 or 0..9
};

// Compresses the concatenation of `input` into one complete stream. Small
// messages get a single chunk sized by deflateBound. On error the sink may
// hold partial output, which the caller must drop.
absl::Status Compress(absl::Span<const absl::string_view> input,
                      const CompressOptions& options, ChunkSink* sink);

// Inflates exactly one complete stream from the concatenation of `input`.
// Errors: DATA_LOSS for corrupt or truncated input or bytes after the end of
// the stream; RESOURCE_EXHAUSTED as soon as the output would exceed
// `max_output_bytes`, having asked the sink for at most one byte more than
// that. On error the sink may hold partial output, which the caller must drop.
absl::Status Decompress(absl::Span<const absl::string_view> input,
                        Format format, size_t max_output_bytes,
                        ChunkSink* sink);

// Convenience wrappers for contiguous data.
absl::Status CompressToString(absl::string_view input,
                              const CompressOptions& options, std::string* out);
absl::Status DecompressToString(absl::string_view input, Format format,
                                size_t max_output_bytes, std::string* out);

// The process-wide pool of zlib contexts behind Compress and Decompress.
PoolStats GetPoolStats();
PoolLimits GetPoolLimits();
void SetPoolLimits(const PoolLimits& limits);

}  // namespace pooled_gzip

#endif  // POOLED_GZIP_CODEC_H_
