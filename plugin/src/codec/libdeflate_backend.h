// The libdeflate backend: whole-message deflate, faster than zlib at the
// same level (docs/backends.md, "Backends"). Its reader takes plain
// gzip messages in one call straight into the output; everything else goes
// to zlib (codec/zlib_fallback.h).

#ifndef POOLED_GZIP_SRC_CODEC_LIBDEFLATE_BACKEND_H_
#define POOLED_GZIP_SRC_CODEC_LIBDEFLATE_BACKEND_H_

#include <cstddef>

#include "codec/backend.h"

namespace pooled_gzip {
namespace internal {

// The one-shot reader's largest output: a bigger message (by its trailer)
// is streamed through zlib instead of being allocated in one piece.
inline constexpr size_t kLibdeflateMaxOneShotBytes = size_t{64} << 20;

// For the factory only: others call NewDeflater and NewInflater.
extern const BackendMaker kLibdeflateMaker;

// What libdeflate allocates for a compressor of `level` and for a
// decompressor. It does not say; these are measured (backend_test measures
// them again against the library it runs with).
size_t LibdeflateCompressorBytes(int level);
size_t LibdeflateDecompressorBytes();

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_LIBDEFLATE_BACKEND_H_
