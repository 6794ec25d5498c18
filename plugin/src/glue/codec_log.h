// The codec's lines in gRPC's log: a message refused by the cap, and a
// failure that is the library's own. Either can repeat for every message
// of a busy process, so each kind is printed at most once a minute;
// GetTrafficStats() counts every occurrence.

#ifndef POOLED_GZIP_SRC_GLUE_CODEC_LOG_H_
#define POOLED_GZIP_SRC_GLUE_CODEC_LOG_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "codec/chunk_sink.h"
#include "codec/codec.h"
#include "codec/format.h"
#include "codec/settings.h"

namespace pooled_gzip {
namespace internal {

// A received message of `format` inflated past `cap`.
void LogRefusal(Format format, size_t cap);

// A failure that is neither the peer's (corrupt data) nor the cap's, nor a
// message not worth compressing, such as a context that cannot be created:
// each message fails alike, and nothing else tells.
void LogFailure(bool compressing, Format format, const absl::Status& status);

// The zlib seam's codec calls (seam/zlib_seam.h), logged as above: Compress
// logs a failure, not a message declined or skipped; Decompress, of a
// received message with the reader and cap of `settings`, logs a refusal and
// a failure, not corrupt data (the peer's).
absl::Status CompressLogged(absl::Span<const absl::string_view> input,
                            const CompressOptions& options, ChunkSink* sink);
absl::Status DecompressLogged(absl::Span<const absl::string_view> input,
                              Format format, const DecompressSettings& settings,
                              ChunkSink* sink);

// Whether a line limited to once a minute, whose next time is kept in
// `next_ns` (zero-initialised), is due now; taking it if so.
bool OnceAMinute(std::atomic<int64_t>& next_ns);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_GLUE_CODEC_LOG_H_
