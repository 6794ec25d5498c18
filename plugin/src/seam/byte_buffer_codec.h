// The codec applied to grpc::ByteBuffer: slices in, slices out, no copies
// beyond what zlib itself does.

#ifndef POOLED_GZIP_SRC_SEAM_BYTE_BUFFER_CODEC_H_
#define POOLED_GZIP_SRC_SEAM_BYTE_BUFFER_CODEC_H_

#include <grpc/compression.h>
#include <grpcpp/support/byte_buffer.h>

#include <optional>

#include "absl/status/status.h"
#include "codec/codec.h"

namespace pooled_gzip {
namespace internal {

// Replaces `buffer` (an uncompressed message) with its compressed form,
// marked so that gRPC sends it as is. On error `buffer` is left untouched.
absl::Status CompressInPlace(grpc::ByteBuffer* buffer,
                             const CompressOptions& options);

// Replaces a compressed `buffer` with its plain message. On error `buffer`
// is left untouched.
absl::Status DecompressInPlace(grpc::ByteBuffer* buffer);

// Compresses contiguous bytes into `out`, marked as above.
absl::Status CompressBytes(absl::string_view bytes,
                           const CompressOptions& options,
                           grpc::ByteBuffer* out);

// Inflates a buffer that is still compressed with `format`.
absl::Status DecompressBuffer(const grpc::ByteBuffer& buffer, Format format,
                              size_t max_output_bytes, std::string* out);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_SEAM_BYTE_BUFFER_CODEC_H_
