#include "heap_in_use.h"

#include <malloc.h>

#ifdef POOLED_GZIP_SANITIZER_ALLOCATOR
#include <sanitizer/allocator_interface.h>
#endif

namespace pooled_gzip::test_support {

size_t HeapInUse() {
#ifdef POOLED_GZIP_SANITIZER_ALLOCATOR
  return __sanitizer_get_current_allocated_bytes();
#else
  const struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
#endif
}

}  // namespace pooled_gzip::test_support
