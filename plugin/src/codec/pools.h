// The process-wide pools of writers and readers behind the codec. They
// share one idle budget, so PoolLimits bound them together.

#ifndef POOLED_GZIP_SRC_CODEC_POOLS_H_
#define POOLED_GZIP_SRC_CODEC_POOLS_H_

#include "codec/backend.h"
#include "pool/context_pool.h"

namespace pooled_gzip {
namespace internal {

struct DeflaterPolicy {
  using Context = Deflater;
  using Key = DeflaterKey;
  static Deflater* Create(const DeflaterKey& key) {
    return NewDeflater(key).release();
  }
  static bool Reset(Deflater* deflater) { return deflater->Reset(); }
  static size_t Bytes(const Deflater& deflater) { return deflater.HeapBytes(); }
  static bool Shrink(Deflater* deflater) { return deflater->FreeBuffers(); }
  static void Destroy(Deflater* deflater) { delete deflater; }
};

struct InflaterPolicy {
  using Context = Inflater;
  using Key = InflaterKey;
  static Inflater* Create(const InflaterKey& key) {
    return NewInflater(key).release();
  }
  static bool Reset(Inflater* inflater) { return inflater->Reset(); }
  static size_t Bytes(const Inflater& inflater) { return inflater.HeapBytes(); }
  static bool Shrink(Inflater* inflater) { return inflater->FreeBuffers(); }
  static void Destroy(Inflater* inflater) { delete inflater; }
};

using WriterPool = ThreadLocalPool<DeflaterPolicy>;
using ReaderPool = ThreadLocalPool<InflaterPolicy>;

// The idle budget both pools share.
const std::shared_ptr<IdleBudget>& Budget();

// Never destroyed, so thread exit can always return contexts to them.
// Safe across fork(): the first call to either registers a pthread_atfork
// handler for both (pool/context_pool.h). Code that holds a lock of its own
// while it uses them registers its handler after that first call, so that
// its lock is taken first: prepare handlers run last registered first.
WriterPool& Writers();
ReaderPool& Readers();

// The caps both pools share (Options::max_idle_contexts_per_thread and
// max_pooled_bytes); for the settings owner.
void SetIdleLimits(const PoolLimits& limits);

// What messages ask the pools for under the settings in force.
struct ContextsInUse {
  Backend backend;  // of the writers
  int level;        // resolved
  Backend gzip_decoder;
  Backend zlib_decoder;
  Strictness strictness;
};

// Takes the idle contexts no message will ask for under `in_use` (writers
// of other settings, readers of another decoder or strictness) out of the
// idle budget, so that contexts of the settings in use are pooled again:
// parked ones are freed now, living threads' own when their thread next
// uses the pool.
void EvictStaleContexts(const ContextsInUse& in_use);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_POOLS_H_
