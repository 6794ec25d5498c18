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
  // A writable chunk of at least one byte, best of `size_hint` bytes.
  virtual absl::Span<char> NextChunk(size_t size_hint) = 0;
  // The codec wrote the first `used` bytes of the last chunk. Called once
  // per chunk, before the next NextChunk: a sink that allocates per chunk
  // (a gRPC slice) frees or keeps it only then.
  virtual void CommitChunk(size_t used) = 0;
};

// Appends to a std::string, never reserving more than `output_limit` + 1
// bytes (all the codec asks for), where std::string would double past it.
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
  std::string* out_;
  size_t max_capacity_;
  size_t chunk_start_ = 0;
};

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_CHUNK_SINK_H_
