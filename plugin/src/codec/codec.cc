#include "codec/codec.h"

#include <algorithm>
#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "codec/compressibility.h"
#include "codec/pools.h"
#include "codec/settings.h"
#include "codec/traffic.h"

namespace pooled_gzip {
namespace internal {
namespace {

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

absl::Status NotWorthCompressing() {
  return absl::FailedPreconditionError("not worth compressing");
}

// Not RESOURCE_EXHAUSTED: callers read that as the output limit met.
absl::Status CannotCreate(Backend backend, absl::string_view context) {
  return absl::InternalError(
      absl::StrCat("cannot create a ", BackendName(backend), " ", context));
}

}  // namespace

CompressOptions ConfiguredOptions(Format format, Skipping skipping) {
  const CompressSettings settings = CurrentCompressSettings();
  CompressOptions options;
  options.format = format;
  options.backend = settings.backend;
  options.level = settings.level;
  options.settings_generation = settings.settings_generation;
  if (skipping == Skipping::kAsConfigured) {
    options.skip_incompressible = settings.skip_incompressible;
    options.min_input_bytes = settings.min_compress_bytes;
  }
  return options;
}

ConfiguredReaderKey ConfiguredReader(Format format) {
  const DecompressSettings settings = CurrentDecompressSettings();
  return {settings.ReaderFor(format), settings.settings_generation};
}

absl::Span<char> StringSink::NextChunk(size_t size_hint) {
  chunk_start_ = out_->size();
  const size_t size = chunk_start_ + std::max<size_t>(size_hint, 1);
  if (size > out_->capacity()) {
    // Doubling keeps many small chunks linear, up to the cap. Into a new
    // string: libstdc++'s reserve doubles too, unless the string is empty.
    std::string grown;
    grown.reserve(
        std::max(size, std::min(2 * out_->capacity(), max_capacity_)));
    grown.append(*out_);
    out_->swap(grown);
  }
  out_->resize(size);
  return absl::MakeSpan(&(*out_)[chunk_start_], out_->size() - chunk_start_);
}

void StringSink::CommitChunk(size_t used) { out_->resize(chunk_start_ + used); }

absl::Status Compress(absl::Span<const absl::string_view> input,
                      const CompressOptions& options, ChunkSink* sink) {
  absl::StatusOr<int> level = ResolveLevel(options.backend, options.level);
  if (!level.ok()) return level.status();
  const size_t size = TotalSize(input);
  // No clock read for a message turned away before any work: it would
  // cost a quarter of such a message (docs/design.md, "Codec time").
  if (size < options.min_input_bytes) {
    CountSkipped(options.format, options.backend, size, 0);
    return NotWorthCompressing();
  }
  // No stream fits: declined as any message that does not shrink.
  if (options.max_output_bytes < MinStreamBytes(options.format)) {
    absl::Status declined = absl::ResourceExhaustedError(
        absl::StrCat("no ", FormatName(options.format), " stream fits in ",
                     options.max_output_bytes, " bytes"));
    CountMessage(/*compressing=*/true, options.format, options.backend,
                 declined, size, 0, 0);
    return declined;
  }
  const CodecTimer timer;
  if (options.skip_incompressible && LooksIncompressible(input)) {
    CountSkipped(options.format, options.backend, size,
                 timer.ElapsedNanoseconds());
    return NotWorthCompressing();
  }
  WriterPool& pool = Writers();
  WriterPool::Handle deflater = pool.Acquire(
      {options.backend, options.format, *level}, options.settings_generation);
  CountingSink counting(sink);
  absl::Status status =
      deflater != nullptr
          ? deflater->Deflate(input, options.max_output_bytes, &counting)
          : CannotCreate(options.backend, "compressor");
  // Outgrowing the limit, normal for incompressible data, leaves it usable.
  if (!status.ok() && !absl::IsResourceExhausted(status)) {
    pool.Discard(std::move(deflater));
  }
  deflater.reset();
  CountMessage(/*compressing=*/true, options.format, options.backend, status,
               size, counting.bytes(), timer.ElapsedNanoseconds());
  return status;
}

absl::Status Decompress(absl::Span<const absl::string_view> input,
                        Format format, size_t max_output_bytes, ChunkSink* sink,
                        std::optional<Backend> decoder, Strictness strictness,
                        uint64_t settings_generation) {
  const Backend backend = decoder.value_or(DefaultDecoder(format));
  // Before any counting: a message of no backend has no traffic row.
  if (!KnownBackend(backend)) {
    return absl::InvalidArgumentError(
        absl::StrCat("no decoder ", static_cast<int>(backend)));
  }
  const CodecTimer timer;
  ReaderPool& pool = Readers();
  ReaderPool::Handle inflater = pool.Acquire(
      InflaterKey{backend, format, strictness}, settings_generation);
  CountingSink counting(sink);
  absl::Status status =
      inflater != nullptr
          ? inflater->Inflate(input, max_output_bytes, &counting)
          : CannotCreate(backend, "decompressor");
  if (!status.ok()) pool.Discard(std::move(inflater));
  inflater.reset();
  CountMessage(/*compressing=*/false, format, backend, status, TotalSize(input),
               counting.bytes(), timer.ElapsedNanoseconds());
  return status;
}

absl::Status Decompress(absl::Span<const absl::string_view> input,
                        Format format, size_t max_output_bytes, ChunkSink* sink,
                        const ConfiguredReaderKey& reader) {
  return Decompress(input, format, max_output_bytes, sink, reader.key.backend,
                    reader.key.strictness, reader.settings_generation);
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
                                std::optional<Backend> decoder) {
  out->clear();
  StringSink sink(out, max_output_bytes);
  absl::Status status = Decompress(absl::MakeConstSpan(&input, 1), format,
                                   max_output_bytes, &sink, decoder);
  if (!status.ok()) out->clear();
  return status;
}

}  // namespace internal
}  // namespace pooled_gzip
