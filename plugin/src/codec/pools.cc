#include "codec/pools.h"

#include <pthread.h>

#include <memory>

namespace pooled_gzip {
namespace internal {
namespace {

// Both pools, built together so that one fork handler, registered as they
// are built, covers them from their first use on.
struct Pools {
  WriterPool writers{Budget()};
  ReaderPool readers{Budget()};
};

Pools& ThePools();

// The writers' locks, then the readers': no code holds a lock of one pool
// while it takes a lock of the other.
void LockForFork() {
  ThePools().writers.LockForFork();
  ThePools().readers.LockForFork();
}

void UnlockAfterFork() {
  ThePools().readers.UnlockAfterFork();
  ThePools().writers.UnlockAfterFork();
}

// Never destroyed, so thread exit can always return contexts to them.
Pools& ThePools() {
  static Pools* const pools = [] {
    auto* built = new Pools;
    // A fork in a thread racing this waits for the pools to be built.
    pthread_atfork(LockForFork, UnlockAfterFork, UnlockAfterFork);
    return built;
  }();
  return *pools;
}

}  // namespace

const std::shared_ptr<IdleBudget>& Budget() {
  static const auto* budget =
      new std::shared_ptr<IdleBudget>(std::make_shared<IdleBudget>());
  return *budget;
}

WriterPool& Writers() { return ThePools().writers; }

ReaderPool& Readers() { return ThePools().readers; }

void SetIdleLimits(const PoolLimits& limits) { Budget()->SetLimits(limits); }

void EvictStaleContexts(const ContextsInUse& in_use) {
  // By value: the pools keep the predicates (EvictIdleIf).
  Writers().EvictIdleIf([in_use](const DeflaterKey& key) {
    return key.backend != in_use.backend || key.level != in_use.level;
  });
  Readers().EvictIdleIf([in_use](const InflaterKey& key) {
    const Backend decoder =
        key.format == Format::kGzip ? in_use.gzip_decoder : in_use.zlib_decoder;
    // zlib's readers are one kind whatever the strictness (ReaderFor).
    return key.backend != decoder ||
           (decoder != Backend::kZlib && key.strictness != in_use.strictness);
  });
}

}  // namespace internal

}  // namespace pooled_gzip
