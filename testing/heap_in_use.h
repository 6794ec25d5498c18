// The heap the process holds right now, by its allocator's own count, for
// tests that bound what the library keeps: glibc's bytes in use in every
// arena plus its mmap'ed chunks, or, where AddressSanitizer or
// ThreadSanitizer replace malloc (and glibc's count reads 0), the bytes their
// allocator has handed out and not taken back. Every thread's allocations
// count, so a test reads differences across work it alone does.

#ifndef POOLED_GZIP_TESTING_HEAP_IN_USE_H_
#define POOLED_GZIP_TESTING_HEAP_IN_USE_H_

#include <cstddef>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define POOLED_GZIP_SANITIZER_ALLOCATOR 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define POOLED_GZIP_SANITIZER_ALLOCATOR 1
#endif

namespace pooled_gzip::test_support {

size_t HeapInUse();

// Whether HeapInUse() is the sanitizers' count, which counts each block at
// its size class: received_memory_test's messages, in gRPC's slices of
// just over 1 KiB, count 1.32 times their size there and 1.10 times with
// glibc. A bound holds under both; a ratio of heap to payload is glibc's.
#ifdef POOLED_GZIP_SANITIZER_ALLOCATOR
inline constexpr bool kHeapCountedBySizeClass = true;
#else
inline constexpr bool kHeapCountedBySizeClass = false;
#endif

}  // namespace pooled_gzip::test_support

#endif  // POOLED_GZIP_TESTING_HEAP_IN_USE_H_
