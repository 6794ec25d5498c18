// The codec's input and output as gRPC slices: views of a grpc_slice_buffer
// for zlib to read, and a sink that lets zlib write straight into new
// slices. Shared by the gRPC glue and the benchmarks that measure it.

#ifndef POOLED_GZIP_SRC_GLUE_SLICE_BUFFERS_H_
#define POOLED_GZIP_SRC_GLUE_SLICE_BUFFERS_H_

#include <grpc/slice.h>
#include <grpc/slice_buffer.h>

#include "absl/container/inlined_vector.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "codec/chunk_sink.h"

namespace pooled_gzip {
namespace internal {

// Inline room for the few slices a message usually has, so that listing
// them allocates nothing. Valid while `buffer` is.
using SliceViews = absl::InlinedVector<absl::string_view, 4>;

inline SliceViews ViewsOf(const grpc_slice_buffer& buffer) {
  SliceViews views;
  views.reserve(buffer.count);
  for (size_t i = 0; i < buffer.count; ++i) {
    views.emplace_back(
        reinterpret_cast<const char*>(GRPC_SLICE_START_PTR(buffer.slices[i])),
        GRPC_SLICE_LENGTH(buffer.slices[i]));
  }
  return views;
}

// Each chunk is one slice of exactly the size the codec asks for, appended
// to `output` trimmed to what the codec wrote. A trimmed slice keeps its
// whole allocation for as long as gRPC keeps the message (a server may
// queue received messages), so a chunk the codec filled by less than four
// fifths is copied into a slice of its size: a received deflate message,
// whose size no trailer gives, would otherwise hold up to three times it.
class SliceBufferSink final : public ChunkSink {
 public:
  explicit SliceBufferSink(grpc_slice_buffer* output) : output_(output) {}
  // A codec that failed may leave its last chunk uncommitted.
  ~SliceBufferSink() override {
    if (open_) grpc_slice_unref(current_);
  }

  absl::Span<char> NextChunk(size_t size_hint) override {
    if (open_) grpc_slice_unref(current_);
    current_ = grpc_slice_malloc(size_hint);
    open_ = true;
    return absl::MakeSpan(
        reinterpret_cast<char*>(GRPC_SLICE_START_PTR(current_)),
        GRPC_SLICE_LENGTH(current_));
  }

  void CommitChunk(size_t used) override {
    open_ = false;
    if (used == 0) {
      grpc_slice_unref(current_);
      return;
    }
    const size_t slack = GRPC_SLICE_LENGTH(current_) - used;
    if (slack >= kMinSlackToCopy && slack > used / 4) {
      grpc_slice_buffer_add(
          output_,
          grpc_slice_from_copied_buffer(
              reinterpret_cast<const char*>(GRPC_SLICE_START_PTR(current_)),
              used));
      grpc_slice_unref(current_);
      return;
    }
    grpc_slice_buffer_add(output_, grpc_slice_sub_no_ref(current_, 0, used));
  }

 private:
  // Less slack than this is not worth a copy (about an allocator's rounding).
  static constexpr size_t kMinSlackToCopy = 512;

  grpc_slice_buffer* output_;
  grpc_slice current_;
  bool open_ = false;
};

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_GLUE_SLICE_BUFFERS_H_
