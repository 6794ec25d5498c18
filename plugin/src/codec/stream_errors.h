#ifndef POOLED_GZIP_SRC_CODEC_STREAM_ERRORS_H_
#define POOLED_GZIP_SRC_CODEC_STREAM_ERRORS_H_

#include <cstddef>

#include "absl/status/status.h"
#include "codec/format.h"

namespace pooled_gzip {
namespace internal {

// RESOURCE_EXHAUSTED: compressing, the stream would pass `max` bytes. The
// writers' one error, worded once; the readers' are worded in
// zlib_backend.cc, as the fast readers leave every message they fail to zlib.
absl::Status StreamTooLarge(Format format, size_t max);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_STREAM_ERRORS_H_
