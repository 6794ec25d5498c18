// What the context pools hold and have done, read with GetPoolStats(), and
// the caps that bound them.

#ifndef POOLED_GZIP_POOL_STATS_H_
#define POOLED_GZIP_POOL_STATS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "pooled_gzip/export.h"

namespace pooled_gzip {

// Counters of one pool. Read one by one without a lock, so a snapshot taken
// while other threads work may be off by the operations in flight (though
// `live` never wraps below 0); at rest:
//   live == created - destroyed
//   destroyed == discarded + rejected_by_caps + evicted + (idle contexts
//                freed at pool teardown)
struct PoolCounters {
  uint64_t created = 0;           // new contexts: pool misses
  uint64_t reused = 0;            // checkouts served from a free list: hits
  uint64_t destroyed = 0;         // contexts freed for any reason
  uint64_t discarded = 0;         // freed because they saw an error
  uint64_t rejected_by_caps = 0;  // freed on return because a cap was full
  uint64_t live = 0;              // in use or idle right now
  uint64_t pooled = 0;            // idle, in a thread's list or the reserve
  uint64_t in_reserve = 0;        // idle, left by threads that exited
  uint64_t pooled_bytes = 0;      // heap held by the idle contexts
  // Idle contexts left by threads that exited, freed to make room under the
  // byte cap for contexts of another kind; and idle contexts a Configure
  // call retired (of settings it replaced, or beyond caps it lowered), freed
  // by that call, or by their thread as it finished the checkout or return
  // it was in the middle of at that instant.
  uint64_t evicted = 0;

  // Deprecated aliases of `reused` and `created`.
  [[deprecated("use reused")]] uint64_t hits() const { return reused; }
  [[deprecated("use created")]] uint64_t misses() const { return created; }
};

// The members inherited from PoolCounters are the totals of both pools;
// pooled_bytes is the pools' shared budget's own count, exact at any
// moment, and within Options::max_pooled_bytes but for returns racing a
// Configure call that lowered it (which frees what is idle beyond it before
// it returns). It also counts the buffers the core codec keeps between
// messages, pooled as contexts are and bound by the same caps, which no
// other member counts (docs/design.md, "The pool"). A thread's list that a
// Configure call retired while the thread was changing it leaves
// pooled_bytes at once, and writers.pooled_bytes or readers.pooled_bytes
// when the thread lets go of it (see `evicted`).
struct PoolStats : PoolCounters {
  PoolCounters writers;  // compressing contexts
  PoolCounters readers;  // decompressing contexts
};

// Both pools' counters now. Never fails; callable from any thread. The
// counters are read one by one without a lock, so counters read while other
// threads work may be from different moments (see PoolCounters).
POOLED_GZIP_EXPORT PoolStats GetPoolStats();

// One line, for logs: "created=3 reused=997 ... writers{...} readers{...}".
// Never fails; reads only `stats`.
POOLED_GZIP_EXPORT std::string ToString(const PoolStats& stats);

// Messages through the codec on every path (core codec, raw mode), one row per
// direction, algorithm and backend that saw traffic.
struct TrafficStats {
  bool compressing = true;  // false: decompressing
  std::string algorithm;    // "gzip" or "deflate"
  std::string backend;      // "zlib", "libdeflate" or "isal"
  uint64_t messages = 0;    // completed: sent compressed, or inflated
  uint64_t bytes_in = 0;    // of those messages: what the codec was given
  uint64_t bytes_out = 0;   // and what it produced
  // Compressing: messages sent plain because compressing did not make them
  // smaller (core's rule). Normal for small or incompressible messages, not
  // an error.
  uint64_t declined = 0;
  // Errors. Decompressing: corrupt or truncated input. Both: messages failed
  // because no context could be created (out of memory).
  uint64_t failed = 0;
  // Decompressing: messages refused for inflating past a size limit (the
  // core codec's cap, or raw mode's max_message_bytes).
  uint64_t refused = 0;
  // Compressing: messages sent plain without being compressed, by
  // Options::skip_incompressible or min_compress_bytes, and their bytes.
  uint64_t skipped = 0;
  uint64_t skipped_bytes = 0;
  // Wire bytes the completed messages saved: what they carry less what
  // they took on the wire (a stream larger than its message saves none).
  uint64_t bytes_saved = 0;
  // Time inside the codec for the messages of this row, whatever their
  // outcome, on the monotonic clock (docs/design.md, "Codec time"); messages
  // turned away before any work (too short for any stream, or than
  // min_compress_bytes) add none.
  uint64_t codec_nanoseconds = 0;
};

// Every row that has counted a message since the process started (none
// before any traffic). Never fails; callable from any thread, without a
// lock. A row is several relaxed loads, not a snapshot: read while
// messages pass, its counters may be from different moments (`messages`
// counting a message whose `bytes_in` is not in yet); at rest they agree.
// Each counter only grows.
POOLED_GZIP_EXPORT std::vector<TrafficStats> GetTrafficStats();

// The pools' caps are Options::max_idle_contexts_per_thread and
// max_pooled_bytes (options.h).

}  // namespace pooled_gzip

#endif  // POOLED_GZIP_POOL_STATS_H_
