#include "plain_zlib.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace pooled_gzip::plain_zlib {
namespace {

[[noreturn]] void Abort(const char* what, int result) {
  std::fprintf(stderr, "plain_zlib: %s failed (zlib %d)\n", what, result);
  std::abort();
}

Bytef* In(absl::string_view data) {
  return reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
}

void Init(z_stream* stream, Format format, const DeflateOptions& options) {
  int result = deflateInit2(stream, options.level, Z_DEFLATED,
                            WindowBits(format), 8, options.strategy);
  if (result != Z_OK) Abort("deflateInit2", result);
  if (options.header != nullptr &&
      (result = deflateSetHeader(stream, options.header)) != Z_OK) {
    Abort("deflateSetHeader", result);
  }
  if (!options.dictionary.empty() &&
      (result = deflateSetDictionary(
           stream, In(options.dictionary),
           static_cast<uInt>(options.dictionary.size()))) != Z_OK) {
    Abort("deflateSetDictionary", result);
  }
}

absl::string_view OutcomeText(Inflated::Outcome outcome) {
  switch (outcome) {
    case Inflated::Outcome::kTruncated:
      return "truncated";
    case Inflated::Outcome::kOutputExceeded:
      return "inflated past the limit";
    default:
      return "corrupt";
  }
}

}  // namespace

int WindowBits(Format format) { return format == Format::kGzip ? 15 + 16 : 15; }

absl::StatusOr<Format> FormatOf(absl::string_view encoding) {
  if (encoding == "gzip") return Format::kGzip;
  if (encoding == "deflate") return Format::kDeflate;
  return absl::InvalidArgumentError(
      absl::StrCat("no zlib format for grpc-encoding '", encoding, "'"));
}

std::string Deflate(absl::string_view data, Format format,
                    const DeflateOptions& options) {
  z_stream stream{};
  Init(&stream, format, options);
  // deflateBound leaves out a custom header's fields.
  std::string out(deflateBound(&stream, data.size()) + 1024, '\0');
  stream.next_in = In(data);
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int result = deflate(&stream, Z_FINISH);
  if (result != Z_STREAM_END) Abort("deflate", result);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

std::string Deflate(absl::string_view data, Format format, int level) {
  DeflateOptions options;
  options.level = level;
  return Deflate(data, format, options);
}

absl::StatusOr<std::string> Deflate(absl::string_view data,
                                    absl::string_view encoding) {
  absl::StatusOr<Format> format = FormatOf(encoding);
  if (!format.ok()) return format.status();
  return Deflate(data, *format);
}

Deflater::Deflater(Format format, const DeflateOptions& options) {
  Init(&stream_, format, options);
}

Deflater::~Deflater() { deflateEnd(&stream_); }

void Deflater::Write(absl::string_view data) { Run(data, Z_NO_FLUSH); }

std::string Deflater::Finish() {
  Run({}, Z_FINISH);
  return std::move(out_);
}

void Deflater::Run(absl::string_view data, int flush) {
  stream_.next_in = In(data);
  stream_.avail_in = static_cast<uInt>(data.size());
  char buffer[64 * 1024];
  do {
    stream_.next_out = reinterpret_cast<Bytef*>(buffer);
    stream_.avail_out = sizeof(buffer);
    const int result = deflate(&stream_, flush);
    if (result == Z_STREAM_ERROR) Abort("deflate", result);
    out_.append(buffer, sizeof(buffer) - stream_.avail_out);
  } while (stream_.avail_out == 0);
}

Inflated Inflate(absl::string_view data, Format format, size_t max_output) {
  Inflated inflated;
  z_stream stream{};
  int result = inflateInit2(&stream, WindowBits(format));
  if (result != Z_OK) Abort("inflateInit2", result);
  stream.next_in = In(data);
  stream.avail_in = static_cast<uInt>(data.size());
  std::string& out = inflated.output;
  // zlib wants somewhere to write even when there is no room.
  Bytef no_room = 0;
  stream.next_out = &no_room;
  // Output room grows as it is used, up to max_output; zlib answers the same
  // whatever room each call is given. A call without input or room that
  // cannot progress answers Z_BUF_ERROR, which ends the loop.
  while (result == Z_OK) {
    if (stream.avail_out == 0 && out.size() < max_output) {
      const size_t produced = out.size();
      const size_t room = std::min(
          max_output - produced, std::max<size_t>(64 * 1024, data.size() * 4));
      out.resize(produced + room);
      stream.next_out = reinterpret_cast<Bytef*>(&out[produced]);
      stream.avail_out = static_cast<uInt>(room);
    }
    result = inflate(&stream, Z_NO_FLUSH);
  }
  out.resize(out.size() - stream.avail_out);
  inflated.consumed = data.size() - stream.avail_in;
  inflated.zlib_result = result;
  using Outcome = Inflated::Outcome;
  if (result == Z_STREAM_END) {
    inflated.outcome =
        stream.avail_in == 0 ? Outcome::kStream : Outcome::kTrailingBytes;
  } else if (result == Z_BUF_ERROR && out.size() == max_output) {
    inflated.outcome = Outcome::kOutputExceeded;
  } else if (result == Z_BUF_ERROR) {
    inflated.outcome = Outcome::kTruncated;
  } else {
    inflated.outcome = Outcome::kCorrupt;
  }
  inflateEnd(&stream);
  return inflated;
}

absl::StatusOr<std::string> InflateOne(absl::string_view data, Format format,
                                       size_t max_output) {
  Inflated inflated = Inflate(data, format, max_output);
  const absl::string_view name = format == Format::kGzip ? "gzip" : "deflate";
  switch (inflated.outcome) {
    case Inflated::Outcome::kStream:
      return std::move(inflated.output);
    case Inflated::Outcome::kTrailingBytes:
      return absl::DataLossError(absl::StrCat(data.size() - inflated.consumed,
                                              " bytes after the end of the ",
                                              name, " stream"));
    case Inflated::Outcome::kOutputExceeded:
      return absl::ResourceExhaustedError("inflated past the limit");
    default:
      return absl::DataLossError(
          absl::StrCat(name, " data is ", OutcomeText(inflated.outcome),
                       " (zlib rc ", inflated.zlib_result, ")"));
  }
}

absl::StatusOr<std::string> InflateOne(absl::string_view data,
                                       absl::string_view encoding,
                                       size_t max_output) {
  absl::StatusOr<Format> format = FormatOf(encoding);
  if (!format.ok()) return format.status();
  return InflateOne(data, *format, max_output);
}

bool InflateOne(absl::string_view data, Format format, std::string* out) {
  absl::StatusOr<std::string> inflated = InflateOne(data, format);
  if (!inflated.ok()) return false;
  *out = *std::move(inflated);
  return true;
}

}  // namespace pooled_gzip::plain_zlib
