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

void EvictStaleContexts(const ContextsInUse& in_use) {
  Writers().EvictIdleIf([&](const DeflaterKey& key) {
    return key.backend != in_use.backend || key.level != in_use.level;
  });
  Readers().EvictIdleIf([&](const InflaterKey& key) {
    const Backend decoder =
        key.format == Format::kGzip ? in_use.gzip_decoder : in_use.zlib_decoder;
    // zlib's readers are one kind whatever the strictness (ReaderFor).
    return key.backend != decoder ||
           (decoder != Backend::kZlib && key.strictness != in_use.strictness);
  });
}

}  // namespace internal

}  // namespace pooled_gzip
