// An allocator that takes memory straight from the kernel (mmap), for the
// end-to-end benchmark's own bookkeeping.
//
// glibc adapts its trim and mmap thresholds the first time a block larger
// than 128 KiB is freed, and those thresholds decide whether stock gzip's
// 256 KiB of zlib state per message is returned to the kernel and faulted
// back in, which is most of stock's cost for small messages. A latency
// vector growing past 128 KiB through malloc would change that in the middle
// of a run; memory from here leaves malloc exactly as the code under test
// left it.

#ifndef POOLED_GZIP_BENCH_DIRECT_ALLOCATOR_H_
#define POOLED_GZIP_BENCH_DIRECT_ALLOCATOR_H_

#include <sys/mman.h>

#include <cstddef>
#include <new>
#include <string>
#include <vector>

namespace pooled_gzip::bench {

template <typename T>
class DirectAllocator {
 public:
  using value_type = T;

  DirectAllocator() = default;
  template <typename U>
  DirectAllocator(const DirectAllocator<U>& /*other*/) {}

  T* allocate(size_t n) {
    void* p = mmap(nullptr, n * sizeof(T), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) { munmap(p, n * sizeof(T)); }

  template <typename U>
  bool operator==(const DirectAllocator<U>& /*other*/) const {
    return true;
  }
  template <typename U>
  bool operator!=(const DirectAllocator<U>& /*other*/) const {
    return false;
  }
};

// Round-trip latencies in microseconds.
using Latencies = std::vector<double, DirectAllocator<double>>;

// Text as long as a run's latencies, for the same reason.
using DirectString =
    std::basic_string<char, std::char_traits<char>, DirectAllocator<char>>;

}  // namespace pooled_gzip::bench

#endif  // POOLED_GZIP_BENCH_DIRECT_ALLOCATOR_H_
