#include "pooled_gzip/raw_mode.h"

#include <google/protobuf/message_lite.h>

#include "absl/strings/str_cat.h"
#include "seam/byte_buffer_access.h"
#include "seam/byte_buffer_codec.h"
#include "seam/compression_algorithm.h"
#include "seam/status_conversion.h"

namespace pooled_gzip {

grpc_compression_algorithm ReceivedCompression(const grpc::ByteBuffer& buffer) {
  return internal::BufferCompression(buffer);
}

grpc::Status DecodeToString(const grpc::ByteBuffer& buffer, std::string* out,
                            size_t max_message_bytes) {
  out->clear();
  const grpc_compression_algorithm algorithm = ReceivedCompression(buffer);
  if (algorithm == GRPC_COMPRESS_NONE) {
    if (buffer.Length() > max_message_bytes) {
      return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                          absl::StrCat("message of ", buffer.Length(),
                                       " bytes exceeds ", max_message_bytes));
    }
    std::vector<grpc::Slice> slices;
    grpc::Status status = buffer.Dump(&slices);
    if (!status.ok()) return status;
    out->reserve(buffer.Length());
    for (const grpc::Slice& slice : slices) {
      out->append(reinterpret_cast<const char*>(slice.begin()), slice.size());
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
  return internal::ToGrpcStatus(
      internal::DecompressBuffer(buffer, *format, max_message_bytes, out));
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
  return internal::ToGrpcStatus(internal::CompressBytes(bytes, options, out));
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
