// The codec's errors, worded once, so that every backend's match the zlib
// backend's word for word.

#ifndef POOLED_GZIP_SRC_CODEC_STREAM_ERRORS_H_
#define POOLED_GZIP_SRC_CODEC_STREAM_ERRORS_H_

#include <cstddef>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "codec/format.h"

namespace pooled_gzip {
namespace internal {

// RESOURCE_EXHAUSTED: compressing, the stream would pass `max` bytes.
absl::Status StreamTooLarge(Format format, size_t max);
// RESOURCE_EXHAUSTED: inflating, the message would pass `max` bytes.
absl::Status MessageTooLarge(Format format, size_t max);
// DATA_LOSS: the input ended before the stream did.
absl::Status TruncatedMessage(Format format);
// DATA_LOSS: the stream is invalid; `detail` is the decoder's reason.
absl::Status CorruptMessage(Format format, absl::string_view detail);
// DATA_LOSS: input is left after the end of the stream.
absl::Status TrailingBytes(Format format);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_STREAM_ERRORS_H_
