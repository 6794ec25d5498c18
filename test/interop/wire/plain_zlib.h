// gzip and zlib ("deflate" in gRPC) through plain zlib calls, one fresh
// stream per message: the yardstick the suite holds pooled-gzip's output to,
// so it shares no code with the plugin.

#ifndef POOLED_GZIP_TEST_INTEROP_WIRE_PLAIN_ZLIB_H_
#define POOLED_GZIP_TEST_INTEROP_WIRE_PLAIN_ZLIB_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace pooled_gzip::interop {

// Inflates exactly one complete stream in the format gRPC names `encoding`
// ("gzip" or "deflate"). Fails on an unknown encoding, corrupt or truncated
// data, bytes after the end of the stream, or output past `max_bytes`.
absl::StatusOr<std::string> PlainInflate(absl::string_view encoding,
                                         absl::string_view compressed,
                                         size_t max_bytes = size_t{64} << 20);

// Compresses `bytes` into one stream in the format gRPC names `encoding`.
absl::StatusOr<std::string> PlainCompress(absl::string_view encoding,
                                          absl::string_view bytes);

}  // namespace pooled_gzip::interop

#endif  // POOLED_GZIP_TEST_INTEROP_WIRE_PLAIN_ZLIB_H_
