#include "codec/codec.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "codec/backend.h"
#include "codec/pools.h"
#include "codec/settings.h"
#include "pooled_gzip/pool_stats.h"

namespace pooled_gzip {
namespace internal {
namespace {

// Counters per direction, format and backend; relaxed atomics, as the
// pools' own.
struct Traffic {
  std::atomic<uint64_t> messages{0};
  std::atomic<uint64_t> bytes_in{0};
  std::atomic<uint64_t> bytes_out{0};
  std::atomic<uint64_t> declined_or_failed{0};
  std::atomic<uint64_t> refused{0};
};
constexpr int kBackends = 3;
static_assert(static_cast<int>(Backend::kIsal) + 1 == kBackends,
              "one traffic slot per backend");

Traffic& TrafficOf(bool compressing, Format format, Backend backend) {
  static Traffic traffic[2][2][kBackends];
  return traffic[compressing ? 0 : 1][format == Format::kGzip ? 0 : 1]
                [static_cast<int>(backend)];
}

// Counts one message's outcome.
void Count(bool compressing, Format format, Backend backend,
           const absl::Status& status, size_t bytes_in, size_t bytes_out) {
  Traffic& traffic = TrafficOf(compressing, format, backend);
  if (status.ok()) {
    traffic.messages.fetch_add(1, std::memory_order_relaxed);
    traffic.bytes_in.fetch_add(bytes_in, std::memory_order_relaxed);
    traffic.bytes_out.fetch_add(bytes_out, std::memory_order_relaxed);
  } else if (!compressing && absl::IsResourceExhausted(status)) {
    traffic.refused.fetch_add(1, std::memory_order_relaxed);
  } else {
    traffic.declined_or_failed.fetch_add(1, std::memory_order_relaxed);
  }
}

// Counts what a codec call hands its sink.
class CountingSink final : public ChunkSink {
 public:
  explicit CountingSink(ChunkSink* sink) : sink_(sink) {}
  absl::Span<char> NextChunk(size_t size_hint) override {
    return sink_->NextChunk(size_hint);
  }
  void CommitChunk(size_t used) override {
    bytes_ += used;
    sink_->CommitChunk(used);
  }
  size_t bytes() const { return bytes_; }

 private:
  ChunkSink* sink_;
  size_t bytes_ = 0;
};

}  // namespace

CompressOptions ConfiguredOptions(Format format) {
  const CodecSettings settings = CurrentSettings();
  CompressOptions options;
  options.format = format;
  options.backend = settings.backend;
  options.level = settings.level;
  return options;
}

absl::Span<char> StringSink::NextChunk(size_t size_hint) {
  chunk_start_ = out_->size();
  out_->resize(chunk_start_ + std::max<size_t>(size_hint, 1));
  return absl::MakeSpan(&(*out_)[chunk_start_], out_->size() - chunk_start_);
}

void StringSink::CommitChunk(size_t used) { out_->resize(chunk_start_ + used); }

absl::Status Compress(absl::Span<const absl::string_view> input,
                      const CompressOptions& options, ChunkSink* sink) {
  absl::StatusOr<int> level = ResolveLevel(options.backend, options.level);
  if (!level.ok()) return level.status();
  // No stream of the format fits: declined (and counted) as any message
  // that does not shrink, without taking a context.
  if (options.max_output_bytes < MinStreamBytes(options.format)) {
    absl::Status declined = absl::ResourceExhaustedError(
        absl::StrCat("no ", FormatName(options.format), " stream fits in ",
                     options.max_output_bytes, " bytes"));
    Count(/*compressing=*/true, options.format, options.backend, declined,
          TotalSize(input), 0);
    return declined;
  }
  WriterPool& pool = Writers();
  WriterPool::Handle deflater =
      pool.Acquire({options.backend, options.format, *level});
  if (deflater == nullptr) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot create a ", BackendName(options.backend), " compressor"));
  }
  CountingSink counting(sink);
  absl::Status status =
      deflater->Deflate(input, options.max_output_bytes, &counting);
  Count(/*compressing=*/true, options.format, options.backend, status,
        TotalSize(input), counting.bytes());
  // Outgrowing max_output_bytes is the normal end for incompressible data,
  // and the deflater is fine: discarding it would cost an allocation per
  // such message.
  if (!status.ok() && !absl::IsResourceExhausted(status)) {
    pool.Discard(std::move(deflater));
  }
  return status;
}

absl::Status Decompress(absl::Span<const absl::string_view> input,
                        Format format, size_t max_output_bytes, ChunkSink* sink,
                        Backend backend) {
  ReaderPool& pool = Readers();
  ReaderPool::Handle inflater = pool.Acquire(InflaterKey{backend, format});
  if (inflater == nullptr) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot create a ", BackendName(backend), " decompressor"));
  }
  CountingSink counting(sink);
  absl::Status status = inflater->Inflate(input, max_output_bytes, &counting);
  Count(/*compressing=*/false, format, backend, status, TotalSize(input),
        counting.bytes());
  if (!status.ok()) {
    pool.Discard(std::move(inflater));
  }
  return status;
}

absl::Status CompressToString(absl::string_view input,
                              const CompressOptions& options,
                              std::string* out) {
  out->clear();
  StringSink sink(out);
  return Compress(absl::MakeConstSpan(&input, 1), options, &sink);
}

absl::Status DecompressToString(absl::string_view input, Format format,
                                size_t max_output_bytes, std::string* out,
                                Backend backend) {
  out->clear();
  StringSink sink(out);
  absl::Status status = Decompress(absl::MakeConstSpan(&input, 1), format,
                                   max_output_bytes, &sink, backend);
  if (!status.ok()) out->clear();
  return status;
}

}  // namespace internal

std::vector<TrafficStats> GetTrafficStats() {
  using internal::Format;
  using internal::kBackends;
  using internal::Traffic;
  using internal::TrafficOf;
  std::vector<TrafficStats> rows;
  for (bool compressing : {true, false}) {
    for (Format format : {Format::kGzip, Format::kZlib}) {
      for (int b = 0; b < kBackends; ++b) {
        const Backend backend = static_cast<Backend>(b);
        const Traffic& traffic = TrafficOf(compressing, format, backend);
        TrafficStats row;
        row.compressing = compressing;
        row.algorithm = std::string(internal::FormatName(format));
        row.backend = std::string(BackendName(backend));
        row.messages = traffic.messages.load(std::memory_order_relaxed);
        row.bytes_in = traffic.bytes_in.load(std::memory_order_relaxed);
        row.bytes_out = traffic.bytes_out.load(std::memory_order_relaxed);
        row.declined_or_failed =
            traffic.declined_or_failed.load(std::memory_order_relaxed);
        row.refused = traffic.refused.load(std::memory_order_relaxed);
        if (row.messages + row.declined_or_failed + row.refused > 0) {
          rows.push_back(std::move(row));
        }
      }
    }
  }
  return rows;
}

}  // namespace pooled_gzip
