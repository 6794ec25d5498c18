// gzip and zlib ("deflate" in gRPC) through plain zlib calls, one fresh
// stream per message: the yardstick the tests, fuzzers and interop relay
// hold pooled-gzip's output to. It shares no code with the library (only
// the name of the format), so a bug there cannot hide here.

#ifndef POOLED_GZIP_TESTING_PLAIN_ZLIB_H_
#define POOLED_GZIP_TESTING_PLAIN_ZLIB_H_

#include <zlib.h>

#include <cstddef>
#include <limits>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "codec/format.h"

namespace pooled_gzip::plain_zlib {

using internal::Format;

inline constexpr size_t kNoLimit = std::numeric_limits<size_t>::max();

// zlib's windowBits for `format`: 15 is the zlib format (RFC 1950), +16
// selects gzip (RFC 1952). Never auto-detection (+32): a "deflate" call must
// carry zlib data and a "gzip" call gzip data, nothing else.
int WindowBits(Format format);

// The format gRPC names `encoding` ("gzip" or "deflate"); INVALID_ARGUMENT
// for any other name.
absl::StatusOr<Format> FormatOf(absl::string_view encoding);

struct DeflateOptions {
  int level = Z_DEFAULT_COMPRESSION;
  int strategy = Z_DEFAULT_STRATEGY;
  gz_header* header = nullptr;   // gzip only: deflateSetHeader's fields
  absl::string_view dictionary;  // zlib only: deflateSetDictionary's
};

// `data` as one stream, deflated in a single Z_FINISH call into one buffer
// (as most producers do; zlib's stored blocks depend on the room given).
// Aborts if zlib refuses the options.
std::string Deflate(absl::string_view data, Format format,
                    const DeflateOptions& options);
std::string Deflate(absl::string_view data, Format format,
                    int level = Z_DEFAULT_COMPRESSION);
// The same in the format gRPC names `encoding`.
absl::StatusOr<std::string> Deflate(absl::string_view data,
                                    absl::string_view encoding);

// One stream written a piece at a time, for inputs too large to hold (a
// decompression bomb of a GiB of zeros).
class Deflater {
 public:
  Deflater(Format format, const DeflateOptions& options);
  ~Deflater();
  Deflater(const Deflater&) = delete;
  Deflater& operator=(const Deflater&) = delete;

  void Write(absl::string_view data);
  // Ends the stream and returns all of it.
  std::string Finish();

 private:
  void Run(absl::string_view data, int flush);

  z_stream stream_{};
  std::string out_;
};

// What plain zlib makes of `data`, producing at most `max_output` bytes.
struct Inflated {
  enum class Outcome {
    kStream,          // one complete stream, nothing after it
    kTrailingBytes,   // a complete stream, then more bytes
    kTruncated,       // ends before its stream does
    kCorrupt,         // not a valid stream, or one that needs a dictionary
    kOutputExceeded,  // produced max_output bytes without reaching the end
  };
  Outcome outcome = Outcome::kCorrupt;
  std::string output;      // what was produced before stopping
  size_t consumed = 0;     // input bytes read before stopping
  int zlib_result = Z_OK;  // inflate()'s last answer
};
Inflated Inflate(absl::string_view data, Format format,
                 size_t max_output = kNoLimit);

// Exactly one complete stream: its content; DATA_LOSS if `data` is corrupt,
// truncated or has bytes after the stream, RESOURCE_EXHAUSTED past
// `max_output`.
absl::StatusOr<std::string> InflateOne(absl::string_view data, Format format,
                                       size_t max_output = kNoLimit);
// The same in the format gRPC names `encoding`.
absl::StatusOr<std::string> InflateOne(absl::string_view data,
                                       absl::string_view encoding,
                                       size_t max_output = kNoLimit);
// The same as a yes or no, for assertions; `out` holds the content.
bool InflateOne(absl::string_view data, Format format, std::string* out);

}  // namespace pooled_gzip::plain_zlib

#endif  // POOLED_GZIP_TESTING_PLAIN_ZLIB_H_
