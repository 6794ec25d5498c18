#include "glue/codec_log.h"

#include <chrono>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "glue/grpc_log.h"

namespace pooled_gzip {
namespace internal {

bool OnceAMinute(std::atomic<int64_t>& next_ns) {
  constexpr std::chrono::nanoseconds kInterval = std::chrono::seconds(60);
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count();
  int64_t next = next_ns.load(std::memory_order_relaxed);
  return now >= next &&
         next_ns.compare_exchange_strong(next, now + kInterval.count(),
                                         std::memory_order_relaxed);
}

void LogRefusal(Format format, size_t cap) {
  static std::atomic<int64_t> next_ns{0};
  if (!OnceAMinute(next_ns)) return;
  const bool explicit_cap = AppliedOptions().max_decompressed_bytes.has_value();
  POOLED_GZIP_LOG(
      kError,
      absl::StrFormat(
          "pooled_gzip: refused a received %s message: it inflates past the "
          "decompression cap of %u bytes (%s), so gRPC fails its call as a "
          "decompression error. Raise the cap with "
          "pooled_gzip::Options::max_decompressed_bytes. Logged at most once "
          "a minute; GetTrafficStats() counts every refusal.",
          FormatName(format), cap,
          explicit_cap ? std::string("set by Options::max_decompressed_bytes")
                       : absl::StrCat("twice the largest receive limit noted, ",
                                      NotedReceiveLimit(), " bytes")));
}

void LogFailure(bool compressing, Format format, const absl::Status& status) {
  static std::atomic<int64_t> next_ns[2]{};  // compressing, decompressing
  if (!OnceAMinute(next_ns[compressing ? 0 : 1])) return;
  POOLED_GZIP_LOG(
      kError,
      absl::StrFormat(
          "pooled_gzip: %s %s message failed: %s. Logged at most once a "
          "minute; GetTrafficStats() counts every failure.",
          compressing ? "compressing a" : "inflating a received",
          FormatName(format), status.ToString()));
}

absl::Status CompressLogged(absl::Span<const absl::string_view> input,
                            const CompressOptions& options, ChunkSink* sink) {
  absl::Status status = Compress(input, options, sink);
  if (!status.ok() && !absl::IsResourceExhausted(status) &&
      !absl::IsFailedPrecondition(status)) {
    LogFailure(/*compressing=*/true, options.format, status);
  }
  return status;
}

absl::Status DecompressLogged(absl::Span<const absl::string_view> input,
                              Format format, const DecompressSettings& settings,
                              ChunkSink* sink) {
  const InflaterKey reader = settings.ReaderFor(format);
  absl::Status status =
      Decompress(input, format, settings.cap, sink, reader.backend,
                 reader.strictness, settings.settings_generation);
  if (absl::IsResourceExhausted(status)) {
    LogRefusal(format, settings.cap);
  } else if (!status.ok() && !absl::IsDataLoss(status)) {
    LogFailure(/*compressing=*/false, format, status);
  }
  return status;
}

}  // namespace internal
}  // namespace pooled_gzip
