#include "codec/traffic.h"

#include <cstddef>
#include <optional>

#include "codec/backend_table.h"

namespace pooled_gzip {
namespace internal {
namespace {

thread_local int uncounted_depth = 0;

}  // namespace

UncountedScope::UncountedScope() { ++uncounted_depth; }
UncountedScope::~UncountedScope() { --uncounted_depth; }

Traffic& TrafficOf(bool compressing, Format format, Backend backend) {
  static Traffic traffic[2][2][kBackendCount];
  static Traffic unknown_backend;
  const std::optional<size_t> row = RowIndexOf(backend);
  if (!row) return unknown_backend;
  return traffic[compressing ? 0 : 1][format == Format::kGzip ? 0 : 1][*row];
}

void CountMessage(bool compressing, Format format, Backend backend,
                  const absl::Status& status, size_t bytes_in, size_t bytes_out,
                  uint64_t nanoseconds) {
  if (uncounted_depth > 0) return;
  Traffic& traffic = TrafficOf(compressing, format, backend);
  traffic.codec_nanoseconds.fetch_add(nanoseconds, std::memory_order_relaxed);
  if (status.ok()) {
    traffic.messages.fetch_add(1, std::memory_order_relaxed);
    traffic.bytes_in.fetch_add(bytes_in, std::memory_order_relaxed);
    traffic.bytes_out.fetch_add(bytes_out, std::memory_order_relaxed);
    // The wire bytes the message saved; a stream larger than what it
    // carries (raw mode compresses whatever it is given) saved none.
    const size_t wire = compressing ? bytes_out : bytes_in;
    const size_t plain = compressing ? bytes_in : bytes_out;
    if (plain > wire) {
      traffic.bytes_saved.fetch_add(plain - wire, std::memory_order_relaxed);
    }
  } else if (!absl::IsResourceExhausted(status)) {
    traffic.failed.fetch_add(1, std::memory_order_relaxed);
  } else if (compressing) {
    traffic.declined.fetch_add(1, std::memory_order_relaxed);
  } else {
    traffic.refused.fetch_add(1, std::memory_order_relaxed);
  }
}

void CountSkipped(Format format, Backend backend, size_t bytes,
                  uint64_t nanoseconds) {
  if (uncounted_depth > 0) return;
  Traffic& traffic = TrafficOf(/*compressing=*/true, format, backend);
  traffic.codec_nanoseconds.fetch_add(nanoseconds, std::memory_order_relaxed);
  traffic.skipped.fetch_add(1, std::memory_order_relaxed);
  traffic.skipped_bytes.fetch_add(bytes, std::memory_order_relaxed);
}

}  // namespace internal
}  // namespace pooled_gzip
