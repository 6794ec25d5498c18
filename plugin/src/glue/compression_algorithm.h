// gRPC's compression algorithms and the stream formats of the codec that
// serve them: gzip is a gzip stream, deflate a zlib stream (RFC 1950).

#ifndef POOLED_GZIP_SRC_GLUE_COMPRESSION_ALGORITHM_H_
#define POOLED_GZIP_SRC_GLUE_COMPRESSION_ALGORITHM_H_

#include <grpc/compression.h>

#include <optional>

#include "codec/format.h"

namespace pooled_gzip {
namespace internal {

// gzip -> kGzip, deflate -> kDeflate; nullopt for anything else.
std::optional<Format> FormatOf(grpc_compression_algorithm algorithm);
grpc_compression_algorithm AlgorithmOf(Format format);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_GLUE_COMPRESSION_ALGORITHM_H_
