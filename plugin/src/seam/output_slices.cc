#include "seam/output_slices.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace pooled_gzip {
namespace internal {
namespace {

// Idle output buffers, all threads: enough for every stream of a busy
// server to find its 64 KiB messages' buffers, a fraction of the contexts'
// 64 MiB.
constexpr size_t kMaxIdleOutputBytes = 32 * 1024 * 1024;

// Never destroyed: slices may be unreffed by threads still running at exit.
BufferPool& Pool() {
  static BufferPool* pool = new BufferPool(kMaxIdleOutputBytes);
  return *pool;
}

// For the experiment that decides whether the pool stays: one binary, both
// ways, chosen by the environment.
bool PoolEnabled() {
  static const bool enabled = [] {
    const char* env = std::getenv("POOLED_GZIP_BUFFER_POOL");
    const bool on = env == nullptr || std::strcmp(env, "0") != 0;
    const char* stats = std::getenv("POOLED_GZIP_BUFFER_POOL_STATS");
    if (stats != nullptr && std::strcmp(stats, "1") == 0) {
      std::atexit([] {
        const BufferPoolCounters s = Pool().Stats();
        std::fprintf(stderr,
                     "pooled_gzip buffer pool %d: hits %llu misses %llu "
                     "returned %llu dropped_by_cap %llu idle %llu "
                     "idle_bytes %llu\n",
                     static_cast<int>(getpid()),
                     static_cast<unsigned long long>(s.hits),
                     static_cast<unsigned long long>(s.misses),
                     static_cast<unsigned long long>(s.returned),
                     static_cast<unsigned long long>(s.dropped_by_cap),
                     static_cast<unsigned long long>(s.idle),
                     static_cast<unsigned long long>(s.idle_bytes));
      });
    }
    return on;
  }();
  return enabled;
}

void ReturnToPool(void* buffer) { Pool().Release(buffer); }

}  // namespace

grpc_slice NewOutputSlice(size_t size) {
  if (!PoolEnabled() || !BufferPool::Serves(size)) {
    return grpc_slice_malloc(size);
  }
  void* buffer = Pool().Acquire(size);
  if (buffer == nullptr) return grpc_slice_malloc(size);
  return grpc_slice_new_with_user_data(buffer, size, &ReturnToPool, buffer);
}

BufferPoolCounters OutputBufferStats() { return Pool().Stats(); }

}  // namespace internal
}  // namespace pooled_gzip
