// Each deflate backend's answer to a stream, and the zlib backend's as the
// reference every backend must give: for the tests of the backends and of
// the zlib rules and fallback that hold them to zlib's answers.

#ifndef POOLED_GZIP_TESTING_BACKEND_ANSWERS_H_
#define POOLED_GZIP_TESTING_BACKEND_ANSWERS_H_

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "checking_sink.h"
#include "codec/backend.h"
#include "codec/codec.h"
#include "codec/format.h"
#include "pooled_gzip/options.h"

namespace pooled_gzip::test_support {

using internal::ChunkSink;
using internal::Compress;
using internal::CompressOptions;
using internal::Decompress;
using internal::Format;
using internal::FormatName;
using internal::Strictness;

inline constexpr size_t kNoLimit = std::numeric_limits<size_t>::max();

enum class Slicing {
  kWhole,       // one piece
  kRandomCuts,  // pieces of random sizes
  kBytes,       // one byte per piece
  kWithEmpty,   // random cuts with empty pieces before, between and after
};

inline const char* SlicingName(Slicing slicing) {
  switch (slicing) {
    case Slicing::kWhole:
      return "whole";
    case Slicing::kRandomCuts:
      return "random cuts";
    case Slicing::kBytes:
      return "1-byte pieces";
    case Slicing::kWithEmpty:
      return "with empty pieces";
  }
  return "";
}

inline std::vector<absl::string_view> Slice(absl::string_view data,
                                            Slicing slicing,
                                            uint32_t seed = 7) {
  std::vector<absl::string_view> pieces;
  std::mt19937 random(seed);
  const absl::string_view empty = data.substr(0, 0);
  switch (slicing) {
    case Slicing::kWhole:
      pieces.push_back(data);
      break;
    case Slicing::kBytes:
      for (size_t i = 0; i < data.size(); ++i) {
        pieces.push_back(data.substr(i, 1));
      }
      break;
    case Slicing::kRandomCuts:
    case Slicing::kWithEmpty: {
      const bool with_empty = slicing == Slicing::kWithEmpty;
      if (with_empty) pieces.push_back(empty);
      // Mostly small pieces, some large, so that cuts fall everywhere,
      // headers and trailers included.
      for (size_t i = 0; i < data.size();) {
        const size_t n = random() % 4 == 0 ? 1 + random() % (data.size() + 1)
                                           : 1 + random() % 64;
        pieces.push_back(data.substr(i, n));
        i += pieces.back().size();
        if (with_empty && random() % 3 == 0) pieces.push_back(empty);
      }
      if (with_empty) pieces.push_back(empty);
      break;
    }
  }
  return pieces;
}

inline absl::Status CompressWith(Backend backend, Format format, int level,
                                 absl::Span<const absl::string_view> pieces,
                                 ChunkSink* sink,
                                 size_t max_output_bytes = kNoLimit) {
  CompressOptions options;
  options.backend = backend;
  options.format = format;
  options.level = level;
  options.max_output_bytes = max_output_bytes;
  return Compress(pieces, options, sink);
}

inline std::string Compressed(Backend backend, Format format, int level,
                              absl::string_view data) {
  CheckingSink sink;
  const absl::Status status =
      CompressWith(backend, format, level, {data}, &sink);
  EXPECT_TRUE(status.ok()) << status;
  return sink.out();
}

struct Answer {
  absl::StatusCode code;
  std::string message;
  std::string out;
  size_t given;
};

inline Answer DecompressWith(Backend backend, Format format,
                             absl::Span<const absl::string_view> pieces,
                             size_t limit, size_t max_chunk = kNoLimit,
                             Strictness strictness = Strictness::kDecoder) {
  CheckingSink sink(max_chunk);
  const absl::Status status =
      Decompress(pieces, format, limit, &sink, backend, strictness);
  EXPECT_FALSE(sink.open())
      << BackendName(backend) << " left a chunk uncommitted: " << status;
  return {status.code(), std::string(status.message()),
          status.ok() ? sink.out() : "", sink.given()};
}

// What the zlib backend answers is what every backend must answer.
inline void ExpectSameAsZlib(Format format,
                             absl::Span<const absl::string_view> pieces,
                             size_t limit, const std::string& what,
                             size_t max_chunk = kNoLimit) {
  const Answer reference =
      DecompressWith(Backend::kZlib, format, pieces, limit, max_chunk);
  for (Backend backend : {Backend::kLibdeflate, Backend::kIsal}) {
    const Answer got =
        DecompressWith(backend, format, pieces, limit, max_chunk);
    EXPECT_EQ(got.code, reference.code)
        << what << ": " << BackendName(backend) << " vs zlib, "
        << FormatName(format) << ", limit " << limit << " (" << got.message
        << " vs " << reference.message << ")";
    EXPECT_TRUE(got.out == reference.out)
        << what << ": " << BackendName(backend) << " output differs";
    if (limit != kNoLimit) {
      EXPECT_LE(got.given, limit + 1)
          << what << ": " << BackendName(backend) << " asked the sink for "
          << got.given << " bytes under a limit of " << limit;
    }
  }
}

// `body` wrapped in `format`, with the checksum and size of `output`.
inline std::string Wrap(Format format, absl::string_view body,
                        absl::string_view output) {
  const auto* data = reinterpret_cast<const Bytef*>(output.data());
  const auto size = static_cast<uInt>(output.size());
  std::string stream;
  auto put = [&](uint32_t value, bool big_endian) {
    for (int i = 0; i < 4; ++i) {
      stream += static_cast<char>(value >> (8 * (big_endian ? 3 - i : i)));
    }
  };
  if (format == Format::kGzip) {
    stream.assign("\x1f\x8b\x08\0\0\0\0\0\0\x03", 10);
    stream.append(body.data(), body.size());
    put(static_cast<uint32_t>(crc32(0, data, size)), false);
    put(size, false);
  } else {
    stream.assign("\x78\x9c", 2);
    stream.append(body.data(), body.size());
    put(static_cast<uint32_t>(adler32(1, data, size)), true);
  }
  return stream;
}

}  // namespace pooled_gzip::test_support

#endif  // POOLED_GZIP_TESTING_BACKEND_ANSWERS_H_
