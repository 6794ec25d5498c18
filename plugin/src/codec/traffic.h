// What the codec did: the counters behind pooled_gzip::GetTrafficStats().

#ifndef POOLED_GZIP_SRC_CODEC_TRAFFIC_H_
#define POOLED_GZIP_SRC_CODEC_TRAFFIC_H_

#include <atomic>
#include <chrono>
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
  std::atomic<uint64_t> bytes_saved{0};
  std::atomic<uint64_t> declined{0};
  std::atomic<uint64_t> failed{0};
  std::atomic<uint64_t> refused{0};
  std::atomic<uint64_t> skipped{0};
  std::atomic<uint64_t> skipped_bytes{0};
  std::atomic<uint64_t> codec_nanoseconds{0};
};

// One per direction, format and row of the backend table
// (codec/backend_table.h). A Backend of none of its values counts in a
// Traffic that nothing reads.
Traffic& TrafficOf(bool compressing, Format format, Backend backend);

// A vDSO read at each end: tens of nanoseconds (docs/design.md, "Codec time").
class CodecTimer {
 public:
  CodecTimer() : start_(std::chrono::steady_clock::now()) {}
  uint64_t ElapsedNanoseconds() const {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(
            std::chrono::steady_clock::now() - start_)
            .count());
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// RESOURCE_EXHAUSTED counts as the output limit met: a decompression
// refused by the cap, a compression declined. Any other error, as failed.
void CountMessage(bool compressing, Format format, Backend backend,
                  const absl::Status& status, size_t bytes_in, size_t bytes_out,
                  uint64_t nanoseconds);

// While one is alive, this thread's messages are not counted: the
// library's own (activation's look at gRPC's codec) are no traffic.
class UncountedScope {
 public:
  UncountedScope();
  ~UncountedScope();
  UncountedScope(const UncountedScope&) = delete;
  UncountedScope& operator=(const UncountedScope&) = delete;
};

// Counts a message sent plain without being compressed.
void CountSkipped(Format format, Backend backend, size_t bytes,
                  uint64_t nanoseconds);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_TRAFFIC_H_
