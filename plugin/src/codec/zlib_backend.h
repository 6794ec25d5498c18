// The zlib backend: the reference implementation, and at level 6 the
// exact bytes gRPC core produces (core's parameters,
// codec/core_zlib_parameters.h).

#ifndef POOLED_GZIP_SRC_CODEC_ZLIB_BACKEND_H_
#define POOLED_GZIP_SRC_CODEC_ZLIB_BACKEND_H_

#include "codec/backend.h"

namespace pooled_gzip {
namespace internal {

extern const BackendMaker kZlibMaker;

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_ZLIB_BACKEND_H_
