// The hand-off to real zlib: a served stream whose caller flushes other
// than Z_NO_FLUSH or Z_FINISH (zlib's output before the end, which a
// served stream does not give) is given to a real zlib stream, opened with
// the caller's allocator and the stream's parameters; what it took so far
// is replayed into it, and zlib serves it to the end. Inflating, zlib is
// given room for at most one byte past the cap in all, so that a stream
// past it fails with Z_MEM_ERROR as a served one does.

#ifndef POOLED_GZIP_SRC_SEAM_ZLIB_HANDOFF_H_
#define POOLED_GZIP_SRC_SEAM_ZLIB_HANDOFF_H_

#include <zlib.h>

#include "seam/served_stream.h"

namespace pooled_gzip {
namespace internal {

// Opens real zlib and replays what `served` took; Z_OK, or the error the
// stream then fails with.
int HandToZlib(ServedStream* served, z_streamp stream);

// One call of a stream real zlib serves: the replay's output first, then
// zlib on the caller's buffers.
int PassOn(ServedStream* served, z_streamp stream, int flush);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_SEAM_ZLIB_HANDOFF_H_
