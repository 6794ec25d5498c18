// Counters of a context pool, read with pooled_gzip::GetPoolStats().

#ifndef POOLED_GZIP_POOL_STATS_H_
#define POOLED_GZIP_POOL_STATS_H_

#include <cstdint>
#include <string>

namespace pooled_gzip {

// A snapshot of monotonic counters and current levels. Counters are read one
// by one without a lock, so a snapshot taken while other threads work may be
// off by the operations in flight; at rest the identities hold:
//   live == created - destroyed
//   destroyed == discarded + rejected_by_caps + (idle contexts freed at
//                pool teardown)
struct PoolStats {
  uint64_t created = 0;           // new contexts: pool misses
  uint64_t reused = 0;            // checkouts served from a free list: hits
  uint64_t destroyed = 0;         // contexts freed for any reason
  uint64_t discarded = 0;         // freed because they saw an error
  uint64_t rejected_by_caps = 0;  // freed on return because a cap was full
  uint64_t live = 0;              // in use or idle right now
  uint64_t pooled = 0;            // idle, in a thread's list or the reserve
  uint64_t in_reserve = 0;        // idle, left by threads that exited
  uint64_t pooled_bytes = 0;      // heap held by the idle contexts

  uint64_t hits() const { return reused; }
  uint64_t misses() const { return created; }
};

// One line, for logs: "created=3 reused=997 destroyed=1 ...".
std::string ToString(const PoolStats& stats);

}  // namespace pooled_gzip

#endif  // POOLED_GZIP_POOL_STATS_H_
