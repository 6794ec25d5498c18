// Where the codec writes its output, in chunks the sink allocates, so that
// the gRPC glue can hand a backend the memory of gRPC slices directly.

#ifndef POOLED_GZIP_SRC_CODEC_CHUNK_SINK_H_
#define POOLED_GZIP_SRC_CODEC_CHUNK_SINK_H_

#include <cstddef>
#include <limits>
#include <string>

#include "absl/types/span.h"

namespace pooled_gzip {
namespace internal {

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

// Appends to a std::string. Given the codec's `output_limit`, the string
// never gets room for more than the limit and the one byte more that the
// codec may ask for: std::string alone would double its capacity past it.
class StringSink final : public ChunkSink {
 public:
  explicit StringSink(std::string* out,
                      size_t output_limit = std::numeric_limits<size_t>::max())
      : out_(out),
        max_capacity_(output_limit == std::numeric_limits<size_t>::max()
                          ? output_limit
                          : output_limit + 1) {}
  absl::Span<char> NextChunk(size_t size_hint) override;
  void CommitChunk(size_t used) override;

 private:
  void Grow(size_t size);

  std::string* out_;
  size_t max_capacity_;
  size_t chunk_start_ = 0;
};

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_CHUNK_SINK_H_
