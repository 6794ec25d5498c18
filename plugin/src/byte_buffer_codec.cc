#include "byte_buffer_codec.h"

#include <grpc/slice.h>
#include <grpcpp/support/slice.h>

#include "absl/container/inlined_vector.h"
#include "byte_buffer_access.h"

namespace pooled_gzip {
namespace internal {
namespace {

// Hands zlib the memory of freshly allocated gRPC slices.
class SliceSink final : public ChunkSink {
 public:
  absl::Span<char> NextChunk(size_t size_hint) override {
    current_ = grpc_slice_malloc(size_hint);
    return absl::MakeSpan(
        reinterpret_cast<char*>(GRPC_SLICE_START_PTR(current_)),
        GRPC_SLICE_LENGTH(current_));
  }

  void CommitChunk(size_t used) override {
    if (used == 0) {
      grpc_slice_unref(current_);
      return;
    }
    // Keeps the allocation, shows only what zlib wrote; no copy.
    slices_.emplace_back(grpc_slice_sub_no_ref(current_, 0, used),
                         grpc::Slice::STEAL_REF);
  }

  // A buffer that gRPC core sends without compressing it again.
  void MoveInto(grpc_compression_algorithm algorithm, grpc::ByteBuffer* out) {
    grpc::ByteBuffer buffer(slices_.data(), slices_.size());
    CByteBuffer(buffer)->data.raw.compression = algorithm;
    slices_.clear();
    out->Swap(&buffer);
  }

 private:
  grpc_slice current_;
  absl::InlinedVector<grpc::Slice, 2> slices_;
};

// Views of the slices of a raw buffer; valid while the buffer is.
absl::InlinedVector<absl::string_view, 4> SliceViews(
    const grpc::ByteBuffer& buffer) {
  absl::InlinedVector<absl::string_view, 4> views;
  grpc_byte_buffer* c_buffer = CByteBuffer(buffer);
  if (c_buffer == nullptr) return views;
  const grpc_slice_buffer& slices = c_buffer->data.raw.slice_buffer;
  views.reserve(slices.count);
  for (size_t i = 0; i < slices.count; ++i) {
    views.emplace_back(
        reinterpret_cast<const char*>(GRPC_SLICE_START_PTR(slices.slices[i])),
        GRPC_SLICE_LENGTH(slices.slices[i]));
  }
  return views;
}

}  // namespace

std::optional<Format> FormatOf(grpc_compression_algorithm algorithm) {
  switch (algorithm) {
    case GRPC_COMPRESS_GZIP:
      return Format::kGzip;
    case GRPC_COMPRESS_DEFLATE:
      return Format::kZlib;
    default:
      return std::nullopt;
  }
}

grpc_compression_algorithm AlgorithmOf(Format format) {
  return format == Format::kGzip ? GRPC_COMPRESS_GZIP : GRPC_COMPRESS_DEFLATE;
}

absl::Status CompressInPlace(grpc::ByteBuffer* buffer,
                             const CompressOptions& options) {
  SliceSink sink;
  absl::Status status = Compress(SliceViews(*buffer), options, &sink);
  if (!status.ok()) return status;
  sink.MoveInto(AlgorithmOf(options.format), buffer);
  return absl::OkStatus();
}

absl::Status CompressBytes(absl::string_view bytes,
                           const CompressOptions& options,
                           grpc::ByteBuffer* out) {
  SliceSink sink;
  absl::Status status =
      Compress(absl::MakeConstSpan(&bytes, 1), options, &sink);
  if (!status.ok()) return status;
  sink.MoveInto(AlgorithmOf(options.format), out);
  return absl::OkStatus();
}

absl::Status DecompressBuffer(const grpc::ByteBuffer& buffer, Format format,
                              size_t max_output_bytes, std::string* out) {
  out->clear();
  StringSink sink(out);
  absl::Status status =
      Decompress(SliceViews(buffer), format, max_output_bytes, &sink);
  if (!status.ok()) out->clear();
  return status;
}

}  // namespace internal
}  // namespace pooled_gzip
