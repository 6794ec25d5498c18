// Stored streams written straight into a sink: libdeflate's level-0 bytes,
// which zlib reads back, whatever the pieces of the message and the chunks
// of the sink, at every block boundary.

#include "codec/stored_stream.h"

#include <gtest/gtest.h>
#include <libdeflate.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "checking_sink.h"
#include "plain_zlib.h"
#include "random_inputs.h"

namespace pooled_gzip::internal {
namespace {

using test_support::CheckingSink;

constexpr Format kFormats[] = {Format::kGzip, Format::kDeflate};
// Around one and two full blocks of 65,535 bytes.
constexpr size_t kSizes[] = {0, 1, 65534, 65535, 65536, 131070, 131071, 200000};
constexpr size_t kPieces[] = {~size_t{0}, 65535, 4096, 7};
constexpr size_t kChunks[] = {~size_t{0}, 1000, 1};

std::string LibdeflateLevel0(Format format, const std::string& message) {
  std::unique_ptr<libdeflate_compressor, void (*)(libdeflate_compressor*)>
      compressor(libdeflate_alloc_compressor(0), libdeflate_free_compressor);
  const bool gzip = format == Format::kGzip;
  std::string out(
      gzip ? libdeflate_gzip_compress_bound(compressor.get(), message.size())
           : libdeflate_zlib_compress_bound(compressor.get(), message.size()),
      '\0');
  const size_t size =
      gzip ? libdeflate_gzip_compress(compressor.get(), message.data(),
                                      message.size(), out.data(), out.size())
           : libdeflate_zlib_compress(compressor.get(), message.data(),
                                      message.size(), out.data(), out.size());
  out.resize(size);
  return out;
}

std::vector<absl::string_view> Split(absl::string_view data, size_t piece) {
  std::vector<absl::string_view> pieces;
  for (size_t at = 0; at < data.size(); at += piece) {
    pieces.push_back(data.substr(at, piece));
  }
  return pieces;
}

TEST(StoredStream, LibdeflateLevel0sBytesInAnyPiecesAndChunks) {
  for (Format format : kFormats) {
    for (size_t size : kSizes) {
      const std::string message = payloads::RandomBytes(size);
      const std::string expected = LibdeflateLevel0(format, message);
      ASSERT_EQ(StoredStreamBytes(format, size), expected.size());
      for (size_t piece : kPieces) {
        for (size_t chunk : kChunks) {
          if (chunk == 1 && size > 65536) continue;  // 200k chunks: slow
          SCOPED_TRACE(testing::Message() << FormatName(format) << ", " << size
                                          << " B in pieces of " << piece
                                          << ", chunks of " << chunk);
          CheckingSink sink(chunk);
          Store(Split(message, piece), format, &sink);
          EXPECT_FALSE(sink.open());
          EXPECT_EQ(sink.out(), expected);
          EXPECT_EQ(plain_zlib::InflateOne(sink.out(), format).value_or("?"),
                    message);
        }
      }
    }
  }
}

// One chunk of the whole stream, asked for at once.
TEST(StoredStream, AsksForTheWholeStreamAtOnce) {
  const std::string message = payloads::RandomBytes(150000);
  CheckingSink sink;
  Store(Split(message, 4096), Format::kGzip, &sink);
  EXPECT_EQ(sink.chunks(), 1);
  EXPECT_EQ(sink.given(), StoredStreamBytes(Format::kGzip, message.size()));
}

}  // namespace
}  // namespace pooled_gzip::internal
