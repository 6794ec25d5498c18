// The default writer's smallest messages (codec/libdeflate_backend.h,
// kZlibWrittenMessageBytes): zlib writes them in a stream sized to them,
// the default's bytes stay within 1% of core's zlib-6 on realistic
// payloads, and every decoder and plain zlib read them back on both sides
// of the boundary, in both formats and in pieces. The sized stream's heap
// counts in the writer's and goes with its buffers.

#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "backend_answers.h"
#include "checking_sink.h"
#include "codec/backend.h"
#include "codec/backend_table.h"
#include "codec/codec.h"
#include "codec/libdeflate_backend.h"
#include "each_decoder.h"
#include "gtest/gtest.h"
#include "payloads.h"
#include "plain_zlib.h"
#include "pooled_gzip/options.h"

namespace pooled_gzip::internal {
namespace {

using test_support::Answer;
using test_support::CheckingSink;
using test_support::Compressed;
using test_support::CompressWith;
using test_support::DecompressWith;
using test_support::kNoLimit;
using test_support::Slice;
using test_support::Slicing;
using test_support::SlicingName;

constexpr Format kFormats[] = {Format::kGzip, Format::kDeflate};
constexpr size_t kBoundary = kZlibWrittenMessageBytes;

// Whether zlib wrote `stream` rather than libdeflate, by its header: zlib's
// sized window in the zlib format (libdeflate always names 32 KiB), zlib's
// OS byte (Unix) in gzip (libdeflate writes "unknown").
bool WrittenByZlib(const std::string& stream, Format format) {
  const auto byte = [&](size_t i) {
    return static_cast<unsigned char>(stream.at(i));
  };
  return format == Format::kDeflate ? (byte(0) >> 4) < 7 : byte(9) == 3;
}

// Proto, JSON and source text, as gRPC services send them.
constexpr payloads::Kind kRealisticKinds[] = {
    payloads::Kind::kRecords, payloads::Kind::kJson, payloads::Kind::kSource};

// Summed over this many messages of each kind and size: one message of a
// few hundred bytes is within a byte or two of zlib's either way, which is
// more than 1% of it for libdeflate as for zlib itself at other settings.
constexpr uint32_t kMessagesPerCell = 16;

TEST(SmallMessagesTest, DefaultBytesAreWithinOnePercentOfZlib6) {
  for (payloads::Kind kind : kRealisticKinds) {
    for (size_t size : {kBoundary, size_t{256}, size_t{1024}, size_t{4096}}) {
      for (Format format : kFormats) {
        size_t ours = 0;
        size_t zlib6 = 0;
        for (uint32_t seed = 0; seed < kMessagesPerCell; ++seed) {
          const std::string message = payloads::Make(kind, size, seed);
          ours +=
              Compressed(Backend::kLibdeflate, format, kDefaultLevel, message)
                  .size();
          zlib6 += plain_zlib::Deflate(message, format, 6).size();
        }
        std::cout << "[ bytes    ] " << payloads::KindName(kind) << " "
                  << payloads::SizeLabel(size) << " " << FormatName(format)
                  << ": " << ours << ", zlib-6 " << zlib6 << "\n";
        EXPECT_LE(ours * 100, zlib6 * 101)
            << payloads::KindName(kind) << " " << payloads::SizeLabel(size)
            << " " << FormatName(format) << ": " << ours << " bytes, zlib-6 "
            << zlib6;
      }
    }
  }
}

// Above what libdeflate stores as it is, which costs it no more than a
// copy, and up to the boundary.
TEST(SmallMessagesTest, ZlibWritesPastLibdeflatesStoredSizeUpToTheBoundary) {
  const LevelRange levels = LevelsOf(Backend::kLibdeflate);
  for (int level = levels.min; level <= levels.max; ++level) {
    EXPECT_EQ(WritesSmallMessagesWithZlib(level), level >= 2 && level <= 9)
        << "level " << level;
    const size_t stored = LibdeflateStoredBytes(level);
    for (Format format : kFormats) {
      for (size_t size : {size_t{0}, size_t{1}, stored, stored + 1, kBoundary,
                          kBoundary + 1}) {
        const std::string message =
            payloads::Make(payloads::Kind::kSource, size, 1);
        const std::string stream =
            Compressed(Backend::kLibdeflate, format, level, message);
        const bool by_zlib = size > stored && size <= kBoundary &&
                             WritesSmallMessagesWithZlib(level);
        EXPECT_EQ(WritesWithZlib(level, size), by_zlib)
            << "level " << level << ", " << size << " bytes";
        EXPECT_EQ(WrittenByZlib(stream, format), by_zlib)
            << "level " << level << ", " << FormatName(format) << ", " << size
            << " bytes";
        std::string plain;
        ASSERT_TRUE(plain_zlib::InflateOne(stream, format, &plain));
        EXPECT_TRUE(plain == message);
      }
    }
  }
}

// LibdeflateStoredBytes is the installed libdeflate's own rule: a message of
// that size comes out as a stored block however well it would compress, one
// byte more is searched. (Level 0 stores every message.)
TEST(SmallMessagesTest, LibdeflateStoresUpToLibdeflateStoredBytes) {
  const LevelRange levels = LevelsOf(Backend::kLibdeflate);
  for (int level = std::max(levels.min, 1); level <= levels.max; ++level) {
    std::unique_ptr<libdeflate_compressor, void (*)(libdeflate_compressor*)>
        compressor(libdeflate_alloc_compressor(level),
                   libdeflate_free_compressor);
    ASSERT_NE(compressor, nullptr);
    const size_t stored = LibdeflateStoredBytes(level);
    EXPECT_GT(stored, 0u) << "level " << level;
    for (size_t size : {stored, stored + 1}) {
      const std::string message(size, 'a');
      std::string out(libdeflate_deflate_compress_bound(compressor.get(), size),
                      '\0');
      const size_t produced = libdeflate_deflate_compress(
          compressor.get(), message.data(), size, out.data(), out.size());
      ASSERT_GT(produced, 0u);
      // The first block's type: bits 1 and 2 of its first byte, 0 stored.
      const bool is_stored =
          ((static_cast<unsigned char>(out[0]) >> 1) & 3) == 0;
      EXPECT_EQ(is_stored, size <= stored)
          << "level " << level << ", " << size << " bytes of 'a'";
    }
  }
}

// Each decoder as Options::decoder selects it, and plain zlib as any peer;
// the fast decoders read the sized stream themselves, not through zlib.
TEST(SmallMessagesTest, EveryDecoderReadsBothSidesOfTheBoundaryInPieces) {
  for (Format format : kFormats) {
    for (size_t size : {kBoundary - 1, kBoundary, kBoundary + 1}) {
      for (Slicing slicing :
           {Slicing::kWhole, Slicing::kRandomCuts, Slicing::kBytes}) {
        const std::string message =
            payloads::Make(payloads::Kind::kRecords, size, 2);
        SCOPED_TRACE(absl::StrCat(FormatName(format), ", ", size, " bytes, ",
                                  SlicingName(slicing)));
        CheckingSink sink;
        ASSERT_TRUE(CompressWith(Backend::kLibdeflate, format, kDefaultLevel,
                                 Slice(message, slicing), &sink)
                        .ok());
        const std::string stream = sink.out();
        std::string plain;
        ASSERT_TRUE(plain_zlib::InflateOne(stream, format, &plain));
        EXPECT_TRUE(plain == message);

        const std::vector<absl::string_view> pieces = Slice(stream, slicing);
        test_support::ExpectEachDecoderInflatesTheMessage(
            std::string(FormatName(format)), [&] {
              CheckingSink out;
              EXPECT_TRUE(Decompress(pieces, format, size, &out,
                                     ConfiguredReader(format))
                              .ok());
              EXPECT_TRUE(out.out() == message);
            });
        for (Backend decoder : kAllBackends) {
          const Answer short_limit =
              DecompressWith(decoder, format, pieces, size - 1);
          EXPECT_EQ(short_limit.code, absl::StatusCode::kResourceExhausted)
              << BackendName(decoder);
        }
      }
    }
  }
}

TEST(SmallMessagesTest, FastDecodersReadTheSizedStreamThemselves) {
  const std::string message =
      payloads::Make(payloads::Kind::kJson, kBoundary, 3);
  for (Format format : kFormats) {
    const std::string stream =
        Compressed(Backend::kLibdeflate, format, kDefaultLevel, message);
    ASSERT_TRUE(WrittenByZlib(stream, format));
    for (Backend decoder : {Backend::kLibdeflate, Backend::kIsal}) {
      // libdeflate leaves the zlib format to zlib whoever wrote it.
      if (decoder == Backend::kLibdeflate && format == Format::kDeflate) {
        continue;
      }
      std::unique_ptr<Inflater> inflater = NewInflater({decoder, format});
      ASSERT_NE(inflater, nullptr);
      const size_t fresh = inflater->HeapBytes();
      CheckingSink sink;
      ASSERT_TRUE(inflater->Inflate({stream}, kNoLimit, &sink).ok());
      EXPECT_TRUE(sink.out() == message);
      ASSERT_TRUE(inflater->Reset());
      EXPECT_EQ(inflater->HeapBytes(), fresh)
          << BackendName(decoder) << " " << FormatName(format)
          << ": the zlib fallback read it";
    }
  }
}

// One writer, messages of both sides in turn: each is one whole stream, an
// output limit leaves it usable, and its sized stream is counted and freed
// with its buffers.
TEST(SmallMessagesTest, OneWriterTakesBothSidesInTurnAndCountsItsHeap) {
  for (Format format : kFormats) {
    std::unique_ptr<Deflater> writer =
        NewDeflater({Backend::kLibdeflate, format, 6});
    ASSERT_NE(writer, nullptr);
    const size_t fresh = writer->HeapBytes();
    size_t sized_stream = 0;
    for (size_t size : {kBoundary, size_t{4096}, size_t{10}, kBoundary + 1,
                        size_t{1}, kBoundary}) {
      const std::string message =
          payloads::Make(payloads::Kind::kSource, size, 4);
      CheckingSink sink;
      ASSERT_TRUE(writer->Deflate({message}, kNoLimit, &sink).ok());
      ASSERT_TRUE(writer->Reset());
      std::string plain;
      ASSERT_TRUE(plain_zlib::InflateOne(sink.out(), format, &plain))
          << size << " bytes";
      EXPECT_TRUE(plain == message);
      if (sized_stream == 0) sized_stream = writer->HeapBytes() - fresh;

      CheckingSink too_small;
      EXPECT_EQ(writer->Deflate({message}, 5, &too_small).code(),
                absl::StatusCode::kResourceExhausted);
      ASSERT_TRUE(writer->Reset());
    }
    // Its window, hash and buffers are a few KiB, not core's 256 KiB.
    EXPECT_GT(sized_stream, 4096u);
    EXPECT_LT(sized_stream, 24u * 1024);
    EXPECT_TRUE(writer->FreeBuffers());
    EXPECT_EQ(writer->HeapBytes(), fresh) << "the sized stream was kept";
    const std::string again(kBoundary, 'a');
    CheckingSink sink;
    ASSERT_TRUE(writer->Deflate({again}, kNoLimit, &sink).ok());
    std::string plain;
    ASSERT_TRUE(plain_zlib::InflateOne(sink.out(), format, &plain));
    EXPECT_EQ(plain, again);
  }
}

}  // namespace
}  // namespace pooled_gzip::internal
