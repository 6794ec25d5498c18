// Raw mode: the codec applied to grpc::ByteBuffer, slices in and slices
// out, with no copies beyond what the backend itself does.

#include "pooled_gzip/raw_mode.h"

#include <google/protobuf/message_lite.h>
#include <grpc/slice.h>
#include <grpcpp/support/slice.h>

#include "absl/strings/str_cat.h"
#include "codec/codec.h"
#include "codec/settings.h"
#include "glue/byte_buffer_access.h"
#include "glue/compression_algorithm.h"
#include "glue/slice_buffers.h"

namespace pooled_gzip {
namespace {

// At the gRPC boundary only: the two enums share gRPC's canonical codes.
grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      std::string(status.message()));
}

// Compresses `bytes` into `out`, marked so that gRPC core sends it as it is.
absl::Status CompressBytes(absl::string_view bytes,
                           const internal::CompressOptions& options,
                           grpc::ByteBuffer* out) {
  grpc_slice_buffer slices;
  grpc_slice_buffer_init(&slices);
  internal::SliceBufferSink sink(&slices);
  const absl::Status status =
      internal::Compress(internal::SliceViews{bytes}, options, &sink);
  if (status.ok()) {
    // grpc::Slice has grpc_slice's representation (byte_buffer.h asserts
    // it); the buffer takes its own references.
    grpc::ByteBuffer buffer(reinterpret_cast<const grpc::Slice*>(slices.slices),
                            slices.count);
    internal::CByteBuffer(buffer)->data.raw.compression =
        internal::AlgorithmOf(options.format);
    out->Swap(&buffer);
  }
  grpc_slice_buffer_destroy(&slices);
  return status;
}

// Inflates slices that are still compressed with `format`.
absl::Status DecompressSlices(const internal::SliceViews& views,
                              internal::Format format, size_t max_output_bytes,
                              std::string* out) {
  internal::StringSink sink(out, max_output_bytes);
  absl::Status status =
      internal::Decompress(views, format, max_output_bytes, &sink,
                           internal::ConfiguredReader(format));
  if (!status.ok()) out->clear();
  return status;
}

}  // namespace

grpc_compression_algorithm ReceivedCompression(const grpc::ByteBuffer& buffer) {
  return internal::BufferCompression(buffer);
}

grpc::Status DecodeToString(const grpc::ByteBuffer& buffer, std::string* out,
                            size_t max_message_bytes) {
  out->clear();
  const grpc_byte_buffer* c_buffer = internal::CByteBuffer(buffer);
  if (c_buffer == nullptr) {
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                        "the buffer holds no message");
  }
  const internal::SliceViews views =
      internal::ViewsOf(c_buffer->data.raw.slice_buffer);
  const grpc_compression_algorithm algorithm = c_buffer->data.raw.compression;
  if (algorithm == GRPC_COMPRESS_NONE) {
    if (buffer.Length() > max_message_bytes) {
      return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                          absl::StrCat("message of ", buffer.Length(),
                                       " bytes exceeds ", max_message_bytes));
    }
    out->reserve(buffer.Length());
    for (absl::string_view slice : views) {
      out->append(slice.data(), slice.size());
    }
    return grpc::Status::OK;
  }
  std::optional<internal::Format> format = internal::FormatOf(algorithm);
  if (!format) {
    return grpc::Status(
        grpc::StatusCode::INVALID_ARGUMENT,
        absl::StrCat("pooled_gzip cannot decode compression algorithm ",
                     algorithm));
  }
  // A 0-byte message comes with no slices, and gRPC's own decoder reads
  // that as the empty message: its inflate loop never runs.
  if (views.empty()) return grpc::Status::OK;
  return ToGrpcStatus(DecompressSlices(views, *format, max_message_bytes, out));
}

grpc::Status DecodeMessage(const grpc::ByteBuffer& buffer,
                           google::protobuf::MessageLite* message,
                           size_t max_message_bytes) {
  std::string bytes;
  grpc::Status status = DecodeToString(buffer, &bytes, max_message_bytes);
  if (!status.ok()) return status;
  if (!message->ParseFromString(bytes)) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        absl::StrCat("cannot parse ", message->GetTypeName()));
  }
  return grpc::Status::OK;
}

grpc::Status EncodeBytes(absl::string_view bytes,
                         grpc_compression_algorithm algorithm,
                         grpc::ByteBuffer* out, std::optional<int> level) {
  if (algorithm == GRPC_COMPRESS_NONE) {
    grpc::Slice slice(bytes.data(), bytes.size());
    grpc::ByteBuffer plain(&slice, 1);
    out->Swap(&plain);
    return grpc::Status::OK;
  }
  std::optional<internal::Format> format = internal::FormatOf(algorithm);
  if (!format) {
    return grpc::Status(
        grpc::StatusCode::INVALID_ARGUMENT,
        absl::StrCat("pooled_gzip cannot encode compression algorithm ",
                     algorithm));
  }
  internal::CompressOptions options = internal::ConfiguredOptions(*format);
  if (level) options.level = *level;
  return ToGrpcStatus(CompressBytes(bytes, options, out));
}

grpc::Status EncodeMessage(const google::protobuf::MessageLite& message,
                           grpc_compression_algorithm algorithm,
                           grpc::ByteBuffer* out, std::optional<int> level) {
  std::string bytes;
  if (!message.SerializeToString(&bytes)) {
    return grpc::Status(
        grpc::StatusCode::INTERNAL,
        absl::StrCat("cannot serialize ", message.GetTypeName()));
  }
  return EncodeBytes(bytes, algorithm, out, level);
}

}  // namespace pooled_gzip
