// Layer 2 of pooled-gzip: gzip and zlib ("deflate") streams over pooled
// writers and readers of the chosen backend. Knows nothing of gRPC.

#ifndef POOLED_GZIP_SRC_CODEC_CODEC_H_
#define POOLED_GZIP_SRC_CODEC_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
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
  int level = Options().level;
  Backend backend = Options().backend;
  // RESOURCE_EXHAUSTED as soon as the stream would be longer.
  size_t max_output_bytes = std::numeric_limits<size_t>::max();
  // Options::skip_incompressible and min_compress_bytes.
  bool skip_incompressible = false;
  size_t min_input_bytes = 0;
  // CompressSettings::settings_generation, if any.
  uint64_t settings_generation = 0;
};

// Compresses the concatenation of `input` into one complete stream, with
// Deflater::Deflate's errors, and FAILED_PRECONDITION, the sink untouched,
// for a message the options skip; INTERNAL if no compressor can be created.
absl::Status Compress(absl::Span<const absl::string_view> input,
                      const CompressOptions& options, ChunkSink* sink);

// Inflates exactly one complete stream from the concatenation of `input`,
// with Inflater::Inflate's errors, and INTERNAL if no decoder can be
// created, INVALID_ARGUMENT for a `decoder` of none of Backend's values. On
// error the sink may hold partial output, which the caller must drop.
// `decoder` unset: `format`'s default, as with Options::decoder unset.
// `settings_generation`: DecompressSettings::settings_generation, if any.
absl::Status Decompress(absl::Span<const absl::string_view> input,
                        Format format, size_t max_output_bytes, ChunkSink* sink,
                        std::optional<Backend> decoder = Options().decoder,
                        Strictness strictness = Strictness::kDecoder,
                        uint64_t settings_generation = 0);

absl::Status CompressToString(absl::string_view input,
                              const CompressOptions& options, std::string* out);
absl::Status DecompressToString(
    absl::string_view input, Format format, size_t max_output_bytes,
    std::string* out, std::optional<Backend> decoder = Options().decoder);

// kAsConfigured for a caller that can send a message plain.
enum class Skipping { kNever, kAsConfigured };

// CompressOptions for `format` from the process-wide settings.
CompressOptions ConfiguredOptions(Format format,
                                  Skipping skipping = Skipping::kNever);

// The process-wide reader of `format` (decoder and strictness), with the
// reader pool's generation read before it, which makes a checkout for
// settings a Configure retires meanwhile come back stale.
struct ConfiguredReaderKey {
  InflaterKey key;
  uint64_t settings_generation = 0;
};
ConfiguredReaderKey ConfiguredReader(Format format);

// Decompress with `reader`'s key and generation together.
absl::Status Decompress(absl::Span<const absl::string_view> input,
                        Format format, size_t max_output_bytes, ChunkSink* sink,
                        const ConfiguredReaderKey& reader);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_CODEC_H_
