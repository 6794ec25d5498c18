// The input in one block, for libraries that take a message whole.

#ifndef POOLED_GZIP_SRC_CODEC_CONTIGUOUS_INPUT_H_
#define POOLED_GZIP_SRC_CODEC_CONTIGUOUS_INPUT_H_

#include <cstddef>
#include <memory>

#include "codec/backend.h"

namespace pooled_gzip {
namespace internal {

// A heap buffer kept from message to message, so that no message allocates
// (and page-faults) it again. Counted in its context's HeapBytes(), so the
// pool's byte cap decides how long it is kept (FreeBuffers).
class ReusableBuffer {
 public:
  // At least `size` bytes (one or more), or null if out of memory.
  char* Get(size_t size);
  // Frees the buffer; false if it held nothing.
  bool Free();
  size_t capacity() const { return capacity_; }

 private:
  std::unique_ptr<char[]> data_;
  size_t capacity_ = 0;
};

// The `total` bytes of `pieces` as one block: the only non-empty piece
// itself, or a copy in `buffer`. Null only if the copy cannot be allocated.
const char* Contiguous(Pieces pieces, size_t total, ReusableBuffer* buffer);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_CONTIGUOUS_INPUT_H_
