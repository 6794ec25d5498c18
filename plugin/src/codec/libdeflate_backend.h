// The libdeflate backend: whole-message deflate, faster than zlib at the
// same level but for the smallest messages, which its writer hands to zlib.
// Its reader takes plain gzip messages in one call straight into the
// output, and leaves everything else to zlib.

#ifndef POOLED_GZIP_SRC_CODEC_LIBDEFLATE_BACKEND_H_
#define POOLED_GZIP_SRC_CODEC_LIBDEFLATE_BACKEND_H_

#include <cstddef>

#include "codec/backend.h"

namespace pooled_gzip {
namespace internal {

extern const BackendMaker kLibdeflateMaker;

// At the levels WritesSmallMessagesWithZlib names, the writer hands a
// message of at most this many bytes to zlib at the same level, in a stream
// sized to it (NewSizedZlibDeflater): libdeflate clears its whole
// matchfinder for every message, which up to here costs more than zlib's
// slower search (docs/design.md, "The writers"). Messages libdeflate
// stores as they are stay with it (WritesWithZlib).
inline constexpr size_t kZlibWrittenMessageBytes = 128;
bool WritesSmallMessagesWithZlib(int level);

// libdeflate stores a message of at most this many bytes as it is, without
// its matchfinder (55 - 4 * level, deflate_compress.c), as fast as a copy;
// core then sends such a message plain, as it came out no smaller.
size_t LibdeflateStoredBytes(int level);

// Whether the writer at `level` hands a message of `size` bytes to zlib.
bool WritesWithZlib(int level, size_t size);

// What libdeflate allocates for a compressor of `level` and for a
// decompressor: measured, as it does not say (backend_test checks them).
size_t LibdeflateCompressorBytes(int level);
size_t LibdeflateDecompressorBytes();

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_LIBDEFLATE_BACKEND_H_
