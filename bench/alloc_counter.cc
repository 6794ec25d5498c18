// A counting malloc interposer. Defining malloc and friends in the
// executable makes the dynamic linker bind every library's calls to them
// (libz, libgrpc, libstdc++'s operator new), and glibc exports its own
// implementation as __libc_malloc etc., so each wrapper counts and forwards
// to the real allocator: the heap itself, and so glibc's trimming behaviour
// that the stock path suffers from, stay exactly as without the counter.

#include "alloc_counter.h"

#include <errno.h>

#include <atomic>
#include <cstddef>

extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* pointer, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
void __libc_free(void* pointer);
}

namespace pooled_gzip::bench {
namespace {

// Constant-initialized, so they work for allocations made before main.
std::atomic<uint64_t> allocs{0};
std::atomic<uint64_t> bytes{0};
std::atomic<uint64_t> frees{0};
std::atomic<uint64_t> deflate_state_allocs{0};
std::atomic<uint64_t> deflate_state_bytes{0};
std::atomic<uint64_t> inflate_state_allocs{0};
std::atomic<uint64_t> inflate_state_bytes{0};
std::atomic<uint64_t> deflate_inits{0};
std::atomic<uint64_t> inflate_inits{0};

// A plain int with a constant initializer: reading it needs no TLS
// constructor call, which would be unsafe from inside malloc.
thread_local int zlib_scope = 0;

void Count(size_t size) {
  allocs.fetch_add(1, std::memory_order_relaxed);
  bytes.fetch_add(size, std::memory_order_relaxed);
  switch (static_cast<internal::ZlibScope>(zlib_scope)) {
    case internal::ZlibScope::kNone:
      break;
    case internal::ZlibScope::kDeflate:
      deflate_state_allocs.fetch_add(1, std::memory_order_relaxed);
      deflate_state_bytes.fetch_add(size, std::memory_order_relaxed);
      break;
    case internal::ZlibScope::kInflate:
      inflate_state_allocs.fetch_add(1, std::memory_order_relaxed);
      inflate_state_bytes.fetch_add(size, std::memory_order_relaxed);
      break;
  }
}

uint64_t Load(const std::atomic<uint64_t>& counter) {
  return counter.load(std::memory_order_relaxed);
}

}  // namespace

namespace {

// Applies `op` to every field, so that adding a counter cannot leave one
// of the operators behind.
template <typename Op>
AllocCounts Combine(const AllocCounts& a, const AllocCounts& b, Op op) {
  AllocCounts r;
  r.allocs = op(a.allocs, b.allocs);
  r.bytes = op(a.bytes, b.bytes);
  r.frees = op(a.frees, b.frees);
  r.deflate_state_allocs = op(a.deflate_state_allocs, b.deflate_state_allocs);
  r.deflate_state_bytes = op(a.deflate_state_bytes, b.deflate_state_bytes);
  r.inflate_state_allocs = op(a.inflate_state_allocs, b.inflate_state_allocs);
  r.inflate_state_bytes = op(a.inflate_state_bytes, b.inflate_state_bytes);
  r.deflate_inits = op(a.deflate_inits, b.deflate_inits);
  r.inflate_inits = op(a.inflate_inits, b.inflate_inits);
  return r;
}

}  // namespace

AllocCounts operator-(const AllocCounts& after, const AllocCounts& before) {
  return Combine(after, before, [](uint64_t a, uint64_t b) { return a - b; });
}

AllocCounts operator+(const AllocCounts& a, const AllocCounts& b) {
  return Combine(a, b, [](uint64_t x, uint64_t y) { return x + y; });
}

AllocCounts ReadAllocCounts() {
  AllocCounts c;
  c.allocs = Load(allocs);
  c.bytes = Load(bytes);
  c.frees = Load(frees);
  c.deflate_state_allocs = Load(deflate_state_allocs);
  c.deflate_state_bytes = Load(deflate_state_bytes);
  c.inflate_state_allocs = Load(inflate_state_allocs);
  c.inflate_state_bytes = Load(inflate_state_bytes);
  c.deflate_inits = Load(deflate_inits);
  c.inflate_inits = Load(inflate_inits);
  return c;
}

bool AllocCounterActive() { return Load(allocs) > 0; }

namespace internal {

void SetZlibScope(ZlibScope scope) { zlib_scope = static_cast<int>(scope); }
ZlibScope GetZlibScope() { return static_cast<ZlibScope>(zlib_scope); }

void CountDeflateInit() {
  deflate_inits.fetch_add(1, std::memory_order_relaxed);
}
void CountInflateInit() {
  inflate_inits.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace internal
}  // namespace pooled_gzip::bench

// The interposed allocator; noexcept matches glibc's declarations. valloc and
// pvalloc are left to glibc: nothing measured here calls them, and their blocks
// are still freed correctly by the free below, which forwards to glibc.
using pooled_gzip::bench::Count;
using pooled_gzip::bench::frees;

extern "C" {

void* malloc(size_t size) noexcept {
  Count(size);
  return __libc_malloc(size);
}

void* calloc(size_t count, size_t size) noexcept {
  Count(count * size);
  return __libc_calloc(count, size);
}

void* realloc(void* pointer, size_t size) noexcept {
  // realloc(p, 0) frees; anything else is a (re)allocation of `size` bytes.
  if (size != 0) {
    Count(size);
  } else if (pointer != nullptr) {
    frees.fetch_add(1, std::memory_order_relaxed);
  }
  return __libc_realloc(pointer, size);
}

void free(void* pointer) noexcept {
  if (pointer != nullptr) frees.fetch_add(1, std::memory_order_relaxed);
  __libc_free(pointer);
}

void* memalign(size_t alignment, size_t size) noexcept {
  Count(size);
  return __libc_memalign(alignment, size);
}

void* aligned_alloc(size_t alignment, size_t size) noexcept {
  Count(size);
  return __libc_memalign(alignment, size);
}

int posix_memalign(void** out, size_t alignment, size_t size) noexcept {
  if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0) {
    return EINVAL;
  }
  Count(size);
  void* pointer = __libc_memalign(alignment, size);
  if (pointer == nullptr) return ENOMEM;
  *out = pointer;
  return 0;
}

}  // extern "C"
