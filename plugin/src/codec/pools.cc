#include "codec/pools.h"

#include <memory>

namespace pooled_gzip {
namespace internal {
const std::shared_ptr<IdleBudget>& Budget() {
  static const auto* budget =
      new std::shared_ptr<IdleBudget>(std::make_shared<IdleBudget>());
  return *budget;
}

WriterPool& Writers() {
  static WriterPool* pool = new WriterPool(Budget());
  return *pool;
}

ReaderPool& Readers() {
  static ReaderPool* pool = new ReaderPool(Budget());
  return *pool;
}

void SetIdleLimits(const PoolLimits& limits) { Budget()->SetLimits(limits); }

void EvictStaleContexts(Backend backend, int level) {
  Writers().EvictReserveIf([&](const DeflaterKey& key) {
    return key.backend != backend || key.level != level;
  });
  Readers().EvictReserveIf(
      [&](const InflaterKey& key) { return key.backend != backend; });
}

}  // namespace internal

}  // namespace pooled_gzip
