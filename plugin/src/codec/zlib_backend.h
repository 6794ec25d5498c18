// The zlib backend: the reference implementation, and at level 6 the
// exact bytes gRPC core produces (core's parameters,
// codec/core_zlib_parameters.h).

#ifndef POOLED_GZIP_SRC_CODEC_ZLIB_BACKEND_H_
#define POOLED_GZIP_SRC_CODEC_ZLIB_BACKEND_H_

#include <cstddef>
#include <memory>

#include "codec/backend.h"
#include "codec/format.h"

namespace pooled_gzip {
namespace internal {

extern const BackendMaker kZlibMaker;

// A zlib writer at `level` whose window and hash are sized for messages of
// at most `max_message_bytes`: its bytes for such a message are those of
// core's parameters but for a match the smaller hash loses, and its reset
// clears only that hash. Its zlib header names the smaller window. Null if
// zlib cannot allocate it.
std::unique_ptr<Deflater> NewSizedZlibDeflater(Format format, int level,
                                               size_t max_message_bytes);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_ZLIB_BACKEND_H_
