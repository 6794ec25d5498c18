#include "plain_zlib.h"

#include <zlib.h>

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace pooled_gzip::interop {
namespace {

// zlib's windowBits: 15 is the zlib format (RFC 1950), +16 selects gzip
// (RFC 1952). Auto-detection (+32) is avoided on purpose: a "deflate" call
// must carry zlib data and a "gzip" call gzip data, nothing else.
absl::StatusOr<int> WindowBits(absl::string_view encoding) {
  if (encoding == "gzip") return 15 + 16;
  if (encoding == "deflate") return 15;
  return absl::InvalidArgumentError(
      absl::StrCat("no zlib format for grpc-encoding '", encoding, "'"));
}

}  // namespace

absl::StatusOr<std::string> PlainInflate(absl::string_view encoding,
                                         absl::string_view compressed,
                                         size_t max_bytes) {
  absl::StatusOr<int> window_bits = WindowBits(encoding);
  if (!window_bits.ok()) return window_bits.status();
  z_stream stream{};
  if (inflateInit2(&stream, *window_bits) != Z_OK) {
    return absl::InternalError("inflateInit2 failed");
  }
  stream.next_in =
      reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  stream.avail_in = static_cast<uInt>(compressed.size());
  std::string out;
  int rc = Z_OK;
  while (rc == Z_OK) {
    const size_t chunk = std::max<size_t>(4096, compressed.size() * 4);
    const size_t before = out.size();
    out.resize(before + chunk);
    stream.next_out = reinterpret_cast<Bytef*>(&out[before]);
    stream.avail_out = static_cast<uInt>(chunk);
    rc = inflate(&stream, Z_NO_FLUSH);
    out.resize(before + chunk - stream.avail_out);
    if (out.size() > max_bytes) {
      inflateEnd(&stream);
      return absl::ResourceExhaustedError("inflated past the limit");
    }
    // Z_BUF_ERROR with fresh output space: no input left to make progress
    // with, so the stream is cut short.
  }
  const size_t trailing = stream.avail_in;
  inflateEnd(&stream);
  if (rc != Z_STREAM_END) {
    return absl::DataLossError(
        absl::StrCat(encoding, " data is ",
                     rc == Z_BUF_ERROR || rc == Z_OK ? "truncated" : "corrupt",
                     " (zlib rc ", rc, ")"));
  }
  if (trailing != 0) {
    return absl::DataLossError(absl::StrCat(
        trailing, " bytes after the end of the ", encoding, " stream"));
  }
  return out;
}

absl::StatusOr<std::string> PlainCompress(absl::string_view encoding,
                                          absl::string_view bytes) {
  absl::StatusOr<int> window_bits = WindowBits(encoding);
  if (!window_bits.ok()) return window_bits.status();
  z_stream stream{};
  if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, *window_bits, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    return absl::InternalError("deflateInit2 failed");
  }
  std::string out(deflateBound(&stream, bytes.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  stream.avail_in = static_cast<uInt>(bytes.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&stream, Z_FINISH);
  out.resize(out.size() - stream.avail_out);
  deflateEnd(&stream);
  if (rc != Z_STREAM_END) return absl::InternalError("deflate did not finish");
  return out;
}

}  // namespace pooled_gzip::interop
