#include "pooled_gzip/pool_stats.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "codec/backend_table.h"
#include "codec/format.h"
#include "codec/pools.h"
#include "codec/traffic.h"

namespace pooled_gzip {
namespace {

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
  return absl::StrCat(CountersToString(stats), " writers{",
                      CountersToString(stats.writers), "} readers{",
                      CountersToString(stats.readers), "}");
}

std::vector<TrafficStats> GetTrafficStats() {
  using internal::Format;
  using internal::Traffic;
  using internal::TrafficOf;
  std::vector<TrafficStats> rows;
  for (bool compressing : {true, false}) {
    for (Format format : {Format::kGzip, Format::kDeflate}) {
      for (const internal::BackendRow& backend_row : internal::kBackendRows) {
        const Traffic& traffic =
            TrafficOf(compressing, format, backend_row.backend);
        TrafficStats row;
        row.compressing = compressing;
        row.algorithm = std::string(internal::FormatName(format));
        row.backend = std::string(backend_row.name);
        row.messages = traffic.messages.load(std::memory_order_relaxed);
        row.bytes_in = traffic.bytes_in.load(std::memory_order_relaxed);
        row.bytes_out = traffic.bytes_out.load(std::memory_order_relaxed);
        row.declined = traffic.declined.load(std::memory_order_relaxed);
        row.failed = traffic.failed.load(std::memory_order_relaxed);
        row.refused = traffic.refused.load(std::memory_order_relaxed);
        row.skipped = traffic.skipped.load(std::memory_order_relaxed);
        row.skipped_bytes =
            traffic.skipped_bytes.load(std::memory_order_relaxed);
        row.bytes_saved = traffic.bytes_saved.load(std::memory_order_relaxed);
        row.codec_nanoseconds =
            traffic.codec_nanoseconds.load(std::memory_order_relaxed);
        const uint64_t counted = row.messages + row.declined + row.failed +
                                 row.refused + row.skipped;
        if (counted > 0) rows.push_back(std::move(row));
      }
    }
  }
  return rows;
}

}  // namespace pooled_gzip
