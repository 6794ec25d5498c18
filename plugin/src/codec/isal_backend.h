// The ISA-L (igzip) backend: streaming deflate and inflate, several times
// faster than zlib for larger output. Its reader leaves other than plain
// headers, and any message it cannot finish, to zlib.

#ifndef POOLED_GZIP_SRC_CODEC_ISAL_BACKEND_H_
#define POOLED_GZIP_SRC_CODEC_ISAL_BACKEND_H_

#include "codec/backend.h"

namespace pooled_gzip {
namespace internal {

extern const BackendMaker kIsalMaker;

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_ISAL_BACKEND_H_
