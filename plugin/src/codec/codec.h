// Layer 2 of pooled-gzip: gzip and zlib ("deflate") streams over pooled
// writers and readers of the chosen backend. Knows nothing of gRPC; errors
// travel as absl::Status.

#ifndef POOLED_GZIP_SRC_CODEC_CODEC_H_
#define POOLED_GZIP_SRC_CODEC_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "codec/backend.h"
#include "codec/chunk_sink.h"
#include "codec/format.h"
#include "pooled_gzip/options.h"

namespace pooled_gzip {
namespace internal {

struct CompressOptions {
  Format format = Format::kGzip;
  int level = kDefaultLevel;
  Backend backend = Backend::kZlib;
  // RESOURCE_EXHAUSTED as soon as the stream would be longer: lets a caller
  // that only wants a smaller message stop early on incompressible data.
  size_t max_output_bytes = std::numeric_limits<size_t>::max();
  // Options::skip_incompressible and min_compress_bytes, for a caller that
  // can send the message plain instead.
  bool skip_incompressible = false;
  size_t min_input_bytes = 0;
  // CompressSettings::pool_generation, for options read from the settings
  // (ConfiguredOptions); 0 for options a caller names itself.
  uint64_t settings_generation = 0;
};

// Compresses the concatenation of `input` into one complete stream. On error
// the sink may hold partial output, which the caller must drop.
// FAILED_PRECONDITION, the sink untouched, for a message the options skip;
// INTERNAL if no compressor can be created (out of memory).
absl::Status Compress(absl::Span<const absl::string_view> input,
                      const CompressOptions& options, ChunkSink* sink);

// Inflates exactly one complete stream from the concatenation of `input`.
// Errors: DATA_LOSS for corrupt or truncated input or bytes after the end of
// the stream; RESOURCE_EXHAUSTED as soon as the output would exceed
// `max_output_bytes`, having asked the sink for at most one byte more than
// that; INTERNAL if no decoder can be created (out of memory);
// INVALID_ARGUMENT for a `backend` that is none of Backend's values. On
// error the sink may hold partial output, which the caller must drop.
// A fast `backend` may take more than zlib does, as `strictness` allows.
// `settings_generation`: DecompressSettings::pool_generation, where the
// reader was named by the settings.
absl::Status Decompress(absl::Span<const absl::string_view> input,
                        Format format, size_t max_output_bytes, ChunkSink* sink,
                        Backend backend = Backend::kZlib,
                        Strictness strictness = Strictness::kDecoder,
                        uint64_t settings_generation = 0);

// `input` as one stream of stored blocks (deflate's level 0), always longer
// than `input`: for a caller that must hand over a valid stream of a
// message it decided not to compress. Not counted as traffic. INTERNAL if
// no writer can be created.
absl::Status Store(absl::Span<const absl::string_view> input, Format format,
                   ChunkSink* sink);

// Convenience wrappers for contiguous data.
absl::Status CompressToString(absl::string_view input,
                              const CompressOptions& options, std::string* out);
absl::Status DecompressToString(absl::string_view input, Format format,
                                size_t max_output_bytes, std::string* out,
                                Backend backend = Backend::kZlib);

// Whether a caller can send a message plain, so that the configured
// skipping applies to it.
enum class Skipping { kNever, kAsConfigured };

// CompressOptions for `format` with the process-wide backend and level,
// and skipping (codec/settings.h).
CompressOptions ConfiguredOptions(Format format,
                                  Skipping skipping = Skipping::kNever);

// The process-wide reader of `format`: decoder and strictness.
InflaterKey ConfiguredReader(Format format);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_CODEC_H_
