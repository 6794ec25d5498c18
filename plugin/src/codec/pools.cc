#include "codec/pools.h"

#include <pthread.h>

#include <memory>

#include "codec/settings.h"

namespace pooled_gzip {
namespace internal {
namespace {

// Built together, so that one fork handler covers all from their first use.
struct Pools {
  WriterPool writers{Budget()};
  ReaderPool readers{Budget()};
  BufferPool buffers{Budget()};
};

Pools& ThePools();

// One pool's locks after another's: no code holds a lock of one pool while
// it takes a lock of another.
void LockForFork() {
  ThePools().writers.LockForFork();
  ThePools().readers.LockForFork();
  ThePools().buffers.LockForFork();
}

void UnlockAfterFork() {
  ThePools().buffers.UnlockAfterFork();
  ThePools().readers.UnlockAfterFork();
  ThePools().writers.UnlockAfterFork();
}

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

// A fresh process's limits are Options{}'s, as Configure(Options{}) sets.
const std::shared_ptr<IdleBudget>& Budget() {
  static const auto* budget = new std::shared_ptr<IdleBudget>(
      std::make_shared<IdleBudget>(PoolLimitsOf(Options{})));
  return *budget;
}

WriterPool& Writers() { return ThePools().writers; }

ReaderPool& Readers() { return ThePools().readers; }

BufferPool& Buffers() { return ThePools().buffers; }

}  // namespace internal
}  // namespace pooled_gzip
