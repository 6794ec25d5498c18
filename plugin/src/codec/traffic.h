// What the codec did, per direction, format and backend: the counters
// behind pooled_gzip::GetTrafficStats(). Relaxed atomics, as the pools'
// own.

#ifndef POOLED_GZIP_SRC_CODEC_TRAFFIC_H_
#define POOLED_GZIP_SRC_CODEC_TRAFFIC_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "codec/format.h"
#include "pooled_gzip/options.h"

namespace pooled_gzip {
namespace internal {

struct Traffic {
  std::atomic<uint64_t> messages{0};
  std::atomic<uint64_t> bytes_in{0};
  std::atomic<uint64_t> bytes_out{0};
  std::atomic<uint64_t> declined_or_failed{0};
  std::atomic<uint64_t> refused{0};
};

inline constexpr int kBackends = 3;
static_assert(static_cast<int>(Backend::kIsal) + 1 == kBackends,
              "one traffic slot per backend");

Traffic& TrafficOf(bool compressing, Format format, Backend backend);

// Counts one message's outcome: a refusal is a decompression that met the
// cap (RESOURCE_EXHAUSTED); any other error, or a compression declined as
// not smaller, is declined_or_failed.
void CountMessage(bool compressing, Format format, Backend backend,
                  const absl::Status& status, size_t bytes_in,
                  size_t bytes_out);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_TRAFFIC_H_
