// The grpc_byte_buffer behind a grpc::ByteBuffer, without private access.
//
// grpc::ByteBuffer's public header static_asserts that it "must have same
// representation as grpc_byte_buffer*". It is also a standard-layout class
// whose only member is that pointer, so the two are pointer-interconvertible
// and reading the member through a cast is well defined.

#ifndef POOLED_GZIP_SRC_GLUE_BYTE_BUFFER_ACCESS_H_
#define POOLED_GZIP_SRC_GLUE_BYTE_BUFFER_ACCESS_H_

#include <grpc/byte_buffer.h>
#include <grpcpp/support/byte_buffer.h>

#include <type_traits>

namespace pooled_gzip {
namespace internal {

inline grpc_byte_buffer* CByteBuffer(const grpc::ByteBuffer& buffer) {
  static_assert(std::is_standard_layout<grpc::ByteBuffer>::value,
                "grpc::ByteBuffer must be standard-layout");
  static_assert(sizeof(grpc::ByteBuffer) == sizeof(grpc_byte_buffer*),
                "grpc::ByteBuffer must be exactly one grpc_byte_buffer*");
  return *reinterpret_cast<grpc_byte_buffer* const*>(&buffer);
}

// GRPC_COMPRESS_NONE for an empty buffer.
inline grpc_compression_algorithm BufferCompression(
    const grpc::ByteBuffer& buffer) {
  grpc_byte_buffer* c_buffer = CByteBuffer(buffer);
  return c_buffer == nullptr ? GRPC_COMPRESS_NONE
                             : c_buffer->data.raw.compression;
}

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_GLUE_BYTE_BUFFER_ACCESS_H_
