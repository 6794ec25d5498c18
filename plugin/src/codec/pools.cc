#include "codec/pools.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "pooled_gzip/pool_stats.h"

namespace pooled_gzip {
namespace internal {
namespace {

const std::shared_ptr<IdleBudget>& Budget() {
  static const auto* budget =
      new std::shared_ptr<IdleBudget>(std::make_shared<IdleBudget>());
  return *budget;
}

std::string CountersToString(const PoolCounters& counters) {
  return absl::StrCat(
      "created=", counters.created, " reused=", counters.reused,
      " destroyed=", counters.destroyed, " discarded=", counters.discarded,
      " rejected_by_caps=", counters.rejected_by_caps,
      " evicted=", counters.evicted, " live=", counters.live,
      " pooled=", counters.pooled, " in_reserve=", counters.in_reserve,
      " pooled_bytes=", counters.pooled_bytes);
}

}  // namespace

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

PoolStats GetPoolStats() {
  PoolStats stats;
  stats.writers = internal::Writers().Stats();
  stats.readers = internal::Readers().Stats();
  auto sum = [&](uint64_t PoolCounters::*member) {
    stats.*member = stats.writers.*member + stats.readers.*member;
  };
  for (auto member :
       {&PoolCounters::created, &PoolCounters::reused, &PoolCounters::destroyed,
        &PoolCounters::discarded, &PoolCounters::rejected_by_caps,
        &PoolCounters::evicted, &PoolCounters::live, &PoolCounters::pooled,
        &PoolCounters::in_reserve, &PoolCounters::pooled_bytes}) {
    sum(member);
  }
  // Summed from two pools read one after the other, bytes one pool gave
  // back and the other claimed in between would count twice; the shared
  // budget's one counter is exact.
  stats.pooled_bytes = internal::Budget()->pooled_bytes();
  return stats;
}

std::string ToString(const PoolStats& stats) {
  return absl::StrCat(internal::CountersToString(stats), " writers{",
                      internal::CountersToString(stats.writers), "} readers{",
                      internal::CountersToString(stats.readers), "}");
}

}  // namespace pooled_gzip
