// What the kernel says about this process's memory, for tests that must show
// a bound rather than assume one. Linux only (/proc).

#ifndef POOLED_GZIP_TEST_RELIABILITY_PROCESS_MEMORY_H_
#define POOLED_GZIP_TEST_RELIABILITY_PROCESS_MEMORY_H_

#include <cstddef>

namespace pooled_gzip::reliability {

// Resident set size now (VmRSS), in bytes; 0 if unreadable.
size_t CurrentRssBytes();

// Highest resident set size since the process started or since the last
// ResetPeakRss() (VmHWM), in bytes; 0 if unreadable.
size_t PeakRssBytes();

// Lowers the peak to the current RSS, so a following PeakRssBytes() covers
// only what happens from now on. False if the kernel refused.
bool ResetPeakRss();

inline constexpr size_t kMiB = size_t{1} << 20;

// True when built with AddressSanitizer, ThreadSanitizer or the fuzzer's
// coverage: their shadow memory and quarantines make RSS growth meaningless
// as a leak signal (LeakSanitizer takes that role there).
constexpr bool kSanitized =
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
    true;
#else
    false;
#endif
#else
    false;
#endif

}  // namespace pooled_gzip::reliability

#endif  // POOLED_GZIP_TEST_RELIABILITY_PROCESS_MEMORY_H_
