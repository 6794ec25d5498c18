// The ISA-L (igzip) backend: streaming deflate and inflate, several times
// faster than zlib for larger output. Its reader handles the plain gzip and
// zlib headers itself; other headers, and any message it cannot finish,
// go to zlib (codec/zlib_fallback.h).

#ifndef POOLED_GZIP_SRC_CODEC_ISAL_BACKEND_H_
#define POOLED_GZIP_SRC_CODEC_ISAL_BACKEND_H_

#include "codec/backend.h"

namespace pooled_gzip {
namespace internal {

// For the factory only: others call NewDeflater and NewInflater.
extern const BackendMaker kIsalMaker;

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_ISAL_BACKEND_H_
