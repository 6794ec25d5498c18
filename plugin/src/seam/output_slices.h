// The slices the codec writes its output into.

#ifndef POOLED_GZIP_SRC_SEAM_OUTPUT_SLICES_H_
#define POOLED_GZIP_SRC_SEAM_OUTPUT_SLICES_H_

#include <grpc/slice.h>

#include <cstddef>

#include "pool/buffer_pool.h"

namespace pooled_gzip {
namespace internal {

// A slice of `size` bytes whose memory, when the slice's last reference
// goes (on any thread), returns to the output buffer pool; small sizes, and
// all of them with POOLED_GZIP_BUFFER_POOL=0, are plain grpc_slice_malloc.
grpc_slice NewOutputSlice(size_t size);

BufferPoolCounters OutputBufferStats();

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_SEAM_OUTPUT_SLICES_H_
