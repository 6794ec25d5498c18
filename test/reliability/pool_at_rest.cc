#include "pool_at_rest.h"

#include <chrono>
#include <thread>

#include "pooled_gzip/pool_stats.h"

namespace pooled_gzip::reliability {

bool PoolComesToRest(PoolStats* last) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (;;) {
    *last = GetPoolStats();
    if (last->created - last->destroyed == last->pooled) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
}

}  // namespace pooled_gzip::reliability
