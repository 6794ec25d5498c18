// Heap accounting for the benchmark binaries: every malloc, calloc, realloc
// and free of the process is counted, and allocations made while zlib is
// building or growing a stream's state are counted separately.
//
// The counting itself lives in alloc_counter.cc (a malloc interposer) and
// zlib_probe.cc (wrappers around zlib's entry points). Both are linked into
// the benchmark executables only, never into the library, so the library's
// own code is measured unmodified.

#ifndef POOLED_GZIP_BENCH_ALLOC_COUNTER_H_
#define POOLED_GZIP_BENCH_ALLOC_COUNTER_H_

#include <cstdint>

namespace pooled_gzip::bench {

// Monotonic, process-wide counters. Subtract two snapshots to get what
// happened in between.
struct AllocCounts {
  uint64_t allocs = 0;  // malloc, calloc, realloc, memalign and friends
  uint64_t bytes = 0;   // bytes those calls asked for
  uint64_t frees = 0;   // free calls with a non-null pointer

  // Allocations made inside deflateInit2_/deflateEnd, and inside
  // inflateInit2_/inflate/inflateEnd (inflate allocates its window lazily,
  // on first use). This is "zlib state": what pooling exists to reuse.
  uint64_t deflate_state_allocs = 0;
  uint64_t deflate_state_bytes = 0;
  uint64_t inflate_state_allocs = 0;
  uint64_t inflate_state_bytes = 0;

  // Calls to deflateInit2_ and inflateInit2_: one per fresh zlib stream.
  uint64_t deflate_inits = 0;
  uint64_t inflate_inits = 0;

  uint64_t zlib_state_allocs() const {
    return deflate_state_allocs + inflate_state_allocs;
  }
  uint64_t zlib_state_bytes() const {
    return deflate_state_bytes + inflate_state_bytes;
  }
};

AllocCounts operator-(const AllocCounts& after, const AllocCounts& before);
AllocCounts operator+(const AllocCounts& a, const AllocCounts& b);

// Reads the counters (each with a relaxed load: exact when the process is
// quiet, off by in-flight calls otherwise).
AllocCounts ReadAllocCounts();

// True once the interposer has seen an allocation, i.e. it really replaced
// the C library's malloc in this binary. Benchmarks refuse to report heap
// figures otherwise.
bool AllocCounterActive();

namespace internal {

// Which zlib state, if any, the calling thread is currently building.
enum class ZlibScope : int { kNone = 0, kDeflate = 1, kInflate = 2 };

// Set by zlib_probe.cc around zlib calls; read by the malloc interposer.
void SetZlibScope(ZlibScope scope);
ZlibScope GetZlibScope();

void CountDeflateInit();
void CountInflateInit();

}  // namespace internal
}  // namespace pooled_gzip::bench

#endif  // POOLED_GZIP_BENCH_ALLOC_COUNTER_H_
