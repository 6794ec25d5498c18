// The libdeflate backend: whole-message deflate, faster than zlib at the
// same level. Its reader takes plain gzip messages in one call straight
// into the output, and leaves everything else to zlib.

#ifndef POOLED_GZIP_SRC_CODEC_LIBDEFLATE_BACKEND_H_
#define POOLED_GZIP_SRC_CODEC_LIBDEFLATE_BACKEND_H_

#include <cstddef>

#include "codec/backend.h"

namespace pooled_gzip {
namespace internal {

extern const BackendMaker kLibdeflateMaker;

// What libdeflate allocates for a compressor of `level` and for a
// decompressor: measured, as it does not say (backend_test checks them).
size_t LibdeflateCompressorBytes(int level);
size_t LibdeflateDecompressorBytes();

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_LIBDEFLATE_BACKEND_H_
