#include "seam/byte_buffer_codec.h"

#include <grpc/slice.h>
#include <grpcpp/support/slice.h>

#include <limits>

#include "codec/settings.h"
#include "seam/byte_buffer_access.h"
#include "seam/compression_algorithm.h"
#include "seam/slice_buffers.h"

namespace pooled_gzip {
namespace internal {
namespace {

// Wraps compressed slices in a buffer marked so that gRPC core sends it as it
// is, and moves it into `out`. The buffer takes its own references.
void MoveInto(grpc_slice_buffer* slices, grpc_compression_algorithm algorithm,
              grpc::ByteBuffer* out) {
  // grpc::Slice has grpc_slice's representation (byte_buffer.h asserts it).
  grpc::ByteBuffer buffer(reinterpret_cast<const grpc::Slice*>(slices->slices),
                          slices->count);
  CByteBuffer(buffer)->data.raw.compression = algorithm;
  out->Swap(&buffer);
}

SliceViews BufferViews(const grpc::ByteBuffer& buffer) {
  grpc_byte_buffer* c_buffer = CByteBuffer(buffer);
  if (c_buffer == nullptr) return {};
  return ViewsOf(c_buffer->data.raw.slice_buffer);
}

absl::Status CompressViews(const SliceViews& views,
                           const CompressOptions& options,
                           grpc::ByteBuffer* out) {
  grpc_slice_buffer slices;
  grpc_slice_buffer_init(&slices);
  SliceBufferSink sink(&slices);
  absl::Status status = Compress(views, options, &sink);
  if (status.ok()) MoveInto(&slices, AlgorithmOf(options.format), out);
  grpc_slice_buffer_destroy(&slices);
  return status;
}

}  // namespace

absl::Status CompressInPlace(grpc::ByteBuffer* buffer,
                             const CompressOptions& options) {
  return CompressViews(BufferViews(*buffer), options, buffer);
}

absl::Status DecompressInPlace(grpc::ByteBuffer* buffer) {
  const std::optional<Format> format = FormatOf(BufferCompression(*buffer));
  if (!format) return absl::OkStatus();
  grpc_slice_buffer slices;
  grpc_slice_buffer_init(&slices);
  SliceBufferSink sink(&slices);
  // Our own outgoing message: its size is the application's business.
  const InflaterKey reader = ConfiguredReader(*format);
  absl::Status status = Decompress(BufferViews(*buffer), *format,
                                   std::numeric_limits<size_t>::max(), &sink,
                                   reader.backend, reader.strictness);
  if (status.ok()) MoveInto(&slices, GRPC_COMPRESS_NONE, buffer);
  grpc_slice_buffer_destroy(&slices);
  return status;
}

absl::Status CompressBytes(absl::string_view bytes,
                           const CompressOptions& options,
                           grpc::ByteBuffer* out) {
  return CompressViews(SliceViews{bytes}, options, out);
}

absl::Status DecompressBuffer(const grpc::ByteBuffer& buffer, Format format,
                              size_t max_output_bytes, std::string* out) {
  out->clear();
  StringSink sink(out, max_output_bytes);
  const InflaterKey reader = ConfiguredReader(format);
  absl::Status status =
      Decompress(BufferViews(buffer), format, max_output_bytes, &sink,
                 reader.backend, reader.strictness);
  if (!status.ok()) out->clear();
  return status;
}

}  // namespace internal
}  // namespace pooled_gzip
