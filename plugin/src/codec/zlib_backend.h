// The zlib backend: the reference implementation, and at level 6 the
// exact bytes gRPC core produces (same windowBits, memLevel and strategy).

#ifndef POOLED_GZIP_SRC_CODEC_ZLIB_BACKEND_H_
#define POOLED_GZIP_SRC_CODEC_ZLIB_BACKEND_H_

#include "codec/backend.h"

namespace pooled_gzip {
namespace internal {

extern const BackendMaker kZlibMaker;

// 15 (a 32 KiB window, as gRPC core's), plus 16 for the gzip wrapper.
int ZlibWindowBits(Format format);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_ZLIB_BACKEND_H_
