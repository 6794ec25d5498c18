#include "glue/compression_algorithm.h"

namespace pooled_gzip {
namespace internal {

std::optional<Format> FormatOf(grpc_compression_algorithm algorithm) {
  switch (algorithm) {
    case GRPC_COMPRESS_GZIP:
      return Format::kGzip;
    case GRPC_COMPRESS_DEFLATE:
      return Format::kDeflate;
    default:
      return std::nullopt;
  }
}

grpc_compression_algorithm AlgorithmOf(Format format) {
  return format == Format::kGzip ? GRPC_COMPRESS_GZIP : GRPC_COMPRESS_DEFLATE;
}

}  // namespace internal
}  // namespace pooled_gzip
