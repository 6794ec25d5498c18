// gRPC's own grpc_msg_compress/decompress, served at their zlib calls once
// the core codec is active, against core's contract on real zlib, including
// its edges. On the zlib backend: the same return values and the same
// output bytes on every case. On every backend: core's contract on the
// backend's own streams, which real zlib reads back, and stock's answer to
// every stream received, from every decoder (Options::decoder) on every
// encoder's streams.

#include <grpc/grpc.h>
#include <grpc/slice.h>
#include <grpc/slice_buffer.h>
#include <gtest/gtest.h>
#include <libdeflate.h>
#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <ostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "codec/backend_table.h"
#include "codec/codec.h"
#include "codec/pools.h"
#include "glue/compression_algorithm.h"
#include "log_capture.h"
#include "message_codec.h"
#include "payloads.h"
#include "pooled_gzip/pooled_gzip.h"
#include "seam/activation.h"
#include "seam/zlib_seam.h"
#include "traffic_totals.h"

namespace pooled_gzip::internal {
namespace {

constexpr grpc_compression_algorithm kAlgorithms[] = {
    GRPC_COMPRESS_NONE, GRPC_COMPRESS_DEFLATE, GRPC_COMPRESS_GZIP};

// How a message is cut into slices, as the transport may hand it over.
enum class Slicing {
  kNone,
  kOne,
  kRandomCuts,
  kEmptySlicesMixedIn,
  kBytes,
  kFrames
};
constexpr Slicing kSlicings[] = {
    Slicing::kNone,       Slicing::kOne,
    Slicing::kRandomCuts, Slicing::kEmptySlicesMixedIn,
    Slicing::kBytes,      Slicing::kFrames};

class SliceBuffer {
 public:
  SliceBuffer() { grpc_slice_buffer_init(&buffer_); }
  ~SliceBuffer() { grpc_slice_buffer_destroy(&buffer_); }
  SliceBuffer(const SliceBuffer&) = delete;
  SliceBuffer& operator=(const SliceBuffer&) = delete;

  grpc_slice_buffer* get() { return &buffer_; }

  void Add(absl::string_view bytes) {
    grpc_slice_buffer_add_indexed(
        &buffer_, grpc_slice_from_copied_buffer(bytes.data(), bytes.size()));
  }

  void Fill(absl::string_view data, Slicing slicing, std::mt19937* rng) {
    if (slicing == Slicing::kNone && data.empty()) return;
    if (slicing == Slicing::kOne || slicing == Slicing::kNone) {
      Add(data);
      return;
    }
    size_t pos = 0;
    if (data.empty()) Add("");
    while (pos < data.size()) {
      size_t n = 1;
      switch (slicing) {
        case Slicing::kBytes:
          n = data.size() > 4096 ? 1 + (*rng)() % 97 : 1;
          break;
        case Slicing::kFrames:
          n = 16384 - 9 + (*rng)() % 19;
          break;
        default:
          n = 1 + (*rng)() % std::max<size_t>(1, data.size() / 3);
      }
      n = std::min(n, data.size() - pos);
      if (slicing == Slicing::kEmptySlicesMixedIn && (*rng)() % 3 == 0) Add("");
      Add(data.substr(pos, n));
      pos += n;
    }
    if (slicing == Slicing::kEmptySlicesMixedIn) Add("");
  }

  std::string Flat() const { return test_support::Flatten(buffer_); }

 private:
  grpc_slice_buffer buffer_;
};

std::string Words(size_t size, uint32_t seed) {
  return payloads::Make(payloads::Kind::kWords, size, seed);
}

std::vector<std::string> Messages() {
  std::vector<std::string> messages = {"", "x", std::string(100, 'a')};
  for (size_t size : {6, 7, 8, 18, 19, 20, 21, 22, 25, 40, 1000, 1024, 16384,
                      65536, 200000}) {
    messages.push_back(Words(size, static_cast<uint32_t>(size)));
  }
  messages.push_back(payloads::Make(payloads::Kind::kRandom, 1024, 1));
  messages.push_back(payloads::Make(payloads::Kind::kRandom, 70000, 2));
  messages.push_back(std::string(256 << 10, '\0'));
  return messages;
}

struct Outcome {
  int result;
  std::string output;
  bool operator==(const Outcome& other) const {
    return result == other.result && output == other.output;
  }
};

// Runs `fn` on `input` cut by `slicing`, with bytes already in `output` as
// core allows.
Outcome RunCodec(test_support::MessageCodecFn fn,
                 grpc_compression_algorithm algorithm, absl::string_view input,
                 Slicing slicing, uint32_t seed) {
  std::mt19937 rng(seed);
  SliceBuffer in;
  in.Fill(input, slicing, &rng);
  SliceBuffer out;
  out.Add("PRE");
  const int result = fn(algorithm, in.get(), out.get());
  return {result, out.Flat()};
}

// Streams stock produced, and what a peer might send instead of them.
std::vector<std::string> Variants(const std::string& stream,
                                  grpc_compression_algorithm algorithm) {
  std::vector<std::string> variants = {stream};
  if (stream.empty()) return variants;
  for (size_t cut : {size_t{1}, stream.size() / 2, stream.size() - 1}) {
    if (cut < stream.size()) variants.push_back(stream.substr(0, cut));
  }
  variants.push_back(stream + "x");     // trailing data
  variants.push_back(stream + stream);  // two members
  std::string flipped = stream;
  flipped[flipped.size() / 2] ^= 0x55;
  variants.push_back(flipped);
  std::string bad_trailer = stream;
  bad_trailer.back() ^= 1;
  variants.push_back(bad_trailer);
  if (stream.size() <= 10) return variants;
  // The other wrapper around the same data.
  const std::string other =
      algorithm == GRPC_COMPRESS_GZIP
          ? std::string("\x78\x9c") + stream.substr(10)
          : std::string("\x1f\x8b\x08\0\0\0\0\0\0\x03", 10) + stream.substr(2);
  variants.push_back(other);
  return variants;
}

using ::pooled_gzip::test_support::RefusedMessages;

uint64_t Refusals() { return RefusedMessages(); }

test_support::DirectionTotals TotalsOf(bool compressing,
                                       grpc_compression_algorithm algorithm) {
  return test_support::Totals(
      compressing, algorithm == GRPC_COMPRESS_GZIP ? "gzip" : "deflate");
}

// Sets the process-wide backend at its default level and the decoder of
// both formats, and checks that gRPC's codec is served. The decoder is set
// explicitly: left unset, it would be the same two defaults whatever the
// backend, and the other decoders would never meet stock's streams.
void UseCodecs(Backend backend, Backend decoder) {
  Options options = GetOptions();
  options.backend = backend;
  options.level = kDefaultLevel;
  options.decoder = decoder;
  ASSERT_TRUE(Configure(options).ok());
  ASSERT_TRUE(InstallCoreCodec()) << CoreCodecExplanation();
}

class CoreCodecTest : public ::testing::Test {
 protected:
  // zlib at its default level is the backend that matches core byte for
  // byte; CoreCodecOnEveryBackend checks the others by contract.
  void SetUp() override { UseCodecs(Backend::kZlib, Backend::kZlib); }
};

// What core's contract asks of PooledCompress's `pooled` outcome on a
// backend whose streams differ from zlib's (RunCodec's "PRE" in front):
// a stream that makes the output strictly shorter than the message and that
// real zlib's decompress reads back to the message, or a 0 with the
// message appended unchanged, where the backend's own stream of the message
// would not have been shorter. Empty if it holds, else what broke.
std::string ContractBreach(grpc_compression_algorithm algorithm,
                           const std::string& message, Slicing slicing,
                           const Outcome& pooled) {
  if (pooled.output.compare(0, 3, "PRE") != 0) return "prefix lost";
  const std::string appended = pooled.output.substr(3);
  if (pooled.result == 0) {
    if (appended != message) return "declined, but not left as the message";
    // Compressing one slice is deterministic: the backend's stream of the
    // same bytes is what the codec measured.
    if (slicing != Slicing::kOne) return "";
    std::string stream;
    if (!CompressToString(message, ConfiguredOptions(*FormatOf(algorithm)),
                          &stream)
             .ok()) {
      return "the backend cannot compress it";
    }
    if (3 + stream.size() < message.size()) {
      return "declined a stream of " + std::to_string(stream.size()) +
             " B that would have been smaller";
    }
    return "";
  }
  if (pooled.result != 1) return "result " + std::to_string(pooled.result);
  if (pooled.output.size() >= message.size()) return "not smaller";
  const Outcome read_back = RunCodec(&test_support::ReferenceDecompress,
                                     algorithm, appended, Slicing::kOne, 0);
  if (!(read_back == Outcome{1, "PRE" + message})) {
    return "real zlib does not read the stream back to the message";
  }
  return "";
}

// Runs every case up to `max_size` once on `backend` and `decoder` (already
// configured); returns the number of mismatches (details logged). Byte for
// byte on zlib; on the others, by contract for what they compress and byte
// for byte for what they decompress, their own streams included.
int CompareAll(Backend backend, Backend decoder, uint32_t seed,
               size_t max_size = ~size_t{0}, int* comparisons = nullptr) {
  int mismatches = 0;
  int compared = 0;
  int index = 0;
  for (const std::string& message : Messages()) {
    if (message.size() > max_size) continue;
    for (grpc_compression_algorithm algorithm : kAlgorithms) {
      for (Slicing slicing : kSlicings) {
        const uint32_t case_seed = seed + index++;
        const Outcome stock = RunCodec(&test_support::ReferenceCompress,
                                       algorithm, message, slicing, case_seed);
        const uint64_t made = StreamsServedOnThisThread(/*compressing=*/true);
        const Outcome pooled = RunCodec(&grpc_msg_compress, algorithm, message,
                                        slicing, case_seed);
        ++compared;
        // Served by the pools, not handed to zlib: every stream core opens
        // (none for NONE, nor for a message of no slices).
        const bool opened = algorithm != GRPC_COMPRESS_NONE &&
                            !(message.empty() && slicing == Slicing::kNone);
        if (StreamsServedOnThisThread(/*compressing=*/true) - made !=
            (opened ? 1u : 0u)) {
          ++mismatches;
          ADD_FAILURE() << "compress of " << message.size() << " B, algorithm "
                        << algorithm << ": not served by the pools";
        }
        const std::string breach =
            backend == Backend::kZlib || algorithm == GRPC_COMPRESS_NONE
                ? (stock == pooled ? "" : "differs from stock")
                : ContractBreach(algorithm, message, slicing, pooled);
        if (!breach.empty()) {
          ++mismatches;
          ADD_FAILURE() << "compress on " << BackendName(backend)
                        << ": algorithm " << algorithm << ", " << message.size()
                        << " B, slicing " << static_cast<int>(slicing) << ": "
                        << breach << "; stock " << stock.result << "/"
                        << stock.output.size() << " B, pooled " << pooled.result
                        << "/" << pooled.output.size() << " B";
        }
        if (slicing != Slicing::kOne) continue;
        // What stock sent, and what this backend sends: every backend must
        // answer both, and every variant of them, as stock does.
        std::vector<std::string> streams = {stock.output.substr(3)};
        if (backend != Backend::kZlib && pooled.result == 1) {
          streams.push_back(pooled.output.substr(3));
        }
        for (const std::string& stream : streams) {
          for (const std::string& variant : Variants(stream, algorithm)) {
            for (Slicing cut : kSlicings) {
              const Outcome stock_in =
                  RunCodec(&test_support::ReferenceDecompress, algorithm,
                           variant, cut, case_seed);
              const uint64_t inflated =
                  StreamsServedOnThisThread(/*compressing=*/false);
              const Outcome pooled_in = RunCodec(
                  &grpc_msg_decompress, algorithm, variant, cut, case_seed);
              ++compared;
              // Each message inflated was inflated by the pools (none of
              // no slices, which core does not inflate).
              const bool served_in =
                  algorithm != GRPC_COMPRESS_NONE && pooled_in.result == 1 &&
                  !(variant.empty() && cut == Slicing::kNone);
              if (StreamsServedOnThisThread(/*compressing=*/false) - inflated !=
                  (served_in ? 1u : 0u)) {
                ++mismatches;
                ADD_FAILURE() << "decompress of a " << variant.size()
                              << " B stream: not served by the pools";
              }
              if (!(stock_in == pooled_in)) {
                ++mismatches;
                ADD_FAILURE()
                    << "decompress by " << BackendName(decoder) << " of "
                    << BackendName(backend) << "'s streams: algorithm "
                    << algorithm << ", " << variant.size()
                    << " B stream, slicing " << static_cast<int>(cut)
                    << ": stock " << stock_in.result << "/"
                    << stock_in.output.size() << " B, pooled "
                    << pooled_in.result << "/" << pooled_in.output.size()
                    << " B";
              }
            }
          }
        }
      }
    }
  }
  if (comparisons != nullptr) *comparisons = compared;
  return mismatches;
}

TEST_F(CoreCodecTest, SameResultsAndBytesAsStock) {
  int comparisons = 0;
  EXPECT_EQ(
      CompareAll(Backend::kZlib, Backend::kZlib, 1, ~size_t{0}, &comparisons),
      0);
  std::cout << "  " << comparisons << " cases compared with stock\n";
  EXPECT_GT(comparisons, 3000);
}

// Pooled contexts shared out per thread must not leak state between
// threads; the small messages are enough to interleave many calls.
TEST_F(CoreCodecTest, SameResultsFromManyThreads) {
  std::vector<std::thread> threads;
  std::vector<int> mismatches(3, -1);
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([t, &mismatches] {
      mismatches[t] = CompareAll(Backend::kZlib, Backend::kZlib, 100 * t,
                                 /*max_size=*/20000);
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int m : mismatches) EXPECT_EQ(m, 0);
}

// The same cases on every other encoder and decoder pair: each backend's
// streams are its own, but core's contract, and every decoder's answer to
// what arrives (stock's streams and each backend's), are stock's.
struct Codecs {
  Backend backend;  // compresses
  Backend decoder;  // decompresses, both formats
};

void PrintTo(const Codecs& codecs, std::ostream* os) {
  *os << BackendName(codecs.backend) << " read by "
      << BackendName(codecs.decoder);
}

std::vector<Codecs> EveryPairButZlibOnZlib() {
  std::vector<Codecs> pairs;
  for (Backend backend : kAllBackends) {
    for (Backend decoder : kAllBackends) {
      if (backend == Backend::kZlib && decoder == Backend::kZlib) continue;
      pairs.push_back({backend, decoder});
    }
  }
  return pairs;
}

class CoreCodecOnEveryBackend : public ::testing::TestWithParam<Codecs> {
 protected:
  void SetUp() override { UseCodecs(GetParam().backend, GetParam().decoder); }
  void TearDown() override { ASSERT_TRUE(Configure(Options{}).ok()); }
};

TEST_P(CoreCodecOnEveryBackend, SameContractAsStock) {
  int comparisons = 0;
  EXPECT_EQ(CompareAll(GetParam().backend, GetParam().decoder, 1, ~size_t{0},
                       &comparisons),
            0);
  std::cout << "  " << comparisons << " cases compared with stock\n";
  EXPECT_GT(comparisons, 3000);
}

INSTANTIATE_TEST_SUITE_P(EncoderDecoderPairs, CoreCodecOnEveryBackend,
                         testing::ValuesIn(EveryPairButZlibOnZlib()),
                         [](const testing::TestParamInfo<Codecs>& info) {
                           return std::string(BackendName(info.param.backend)) +
                                  "_read_by_" +
                                  std::string(BackendName(info.param.decoder));
                         });

// Pooled contexts shared out per thread, each backend compressing and
// decompressing (zlib's pair is CoreCodecTest's): the pairs across
// backends add no per-thread state of their own.
class CoreCodecFromManyThreads : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override { UseCodecs(GetParam(), GetParam()); }
  void TearDown() override { ASSERT_TRUE(Configure(Options{}).ok()); }
};

TEST_P(CoreCodecFromManyThreads, SameContractAsStock) {
  std::vector<std::thread> threads;
  std::vector<int> mismatches(3, -1);
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([t, &mismatches, backend = GetParam()] {
      mismatches[t] = CompareAll(backend, backend, 100 * t, /*max_size=*/20000);
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int m : mismatches) EXPECT_EQ(m, 0);
}

INSTANTIATE_TEST_SUITE_P(FastBackends, CoreCodecFromManyThreads,
                         testing::Values(Backend::kLibdeflate, Backend::kIsal),
                         [](const testing::TestParamInfo<Backend>& info) {
                           return std::string(BackendName(info.param));
                         });

TEST_F(CoreCodecTest, InvalidAlgorithmLikeCore) {
  const auto invalid = GRPC_COMPRESS_ALGORITHMS_COUNT;
  const std::string message = Words(1000, 3);
  EXPECT_EQ(RunCodec(&grpc_msg_compress, invalid, message, Slicing::kOne, 0),
            RunCodec(&test_support::ReferenceCompress, invalid, message,
                     Slicing::kOne, 0));
  EXPECT_EQ(RunCodec(&grpc_msg_decompress, invalid, message, Slicing::kOne, 0),
            RunCodec(&test_support::ReferenceDecompress, invalid, message,
                     Slicing::kOne, 0));
}

TEST_F(CoreCodecTest, FullOutputBufferLikeCore) {
  // Core counts what the output already holds: a long prefix turns a
  // compressible message into "not smaller".
  const std::string message = Words(2000, 5);
  for (size_t prefix : {size_t{0}, size_t{500}, size_t{1900}, size_t{3000}}) {
    for (test_support::MessageCodecFn fn :
         {&test_support::ReferenceCompress, &grpc_msg_compress}) {
      SliceBuffer in;
      in.Add(message);
      SliceBuffer out;
      out.Add(std::string(prefix, 'p'));
      const int result = fn(GRPC_COMPRESS_GZIP, in.get(), out.get());
      EXPECT_EQ(result, prefix < 1900 ? 1 : 0) << "prefix " << prefix;
      if (result == 0) {
        EXPECT_EQ(out.Flat().substr(prefix), message);
      }
    }
  }
}

TEST_F(CoreCodecTest, CapRefusesLargerMessagesOnly) {
  const std::string message = std::string(5000, 'z');
  const Outcome compressed =
      RunCodec(&test_support::ReferenceCompress, GRPC_COMPRESS_GZIP, message,
               Slicing::kOne, 0);
  ASSERT_EQ(compressed.result, 1);
  const std::string stream = compressed.output.substr(3);

  Options options = GetOptions();
  options.max_decompressed_bytes = 5000;
  ASSERT_TRUE(Configure(options).ok());
  EXPECT_EQ(RunCodec(&grpc_msg_decompress, GRPC_COMPRESS_GZIP, stream,
                     Slicing::kOne, 0),
            (Outcome{1, "PRE" + message}));
  options.max_decompressed_bytes = 4999;
  ASSERT_TRUE(Configure(options).ok());
  const uint64_t refusals = Refusals();
  EXPECT_EQ(RunCodec(&grpc_msg_decompress, GRPC_COMPRESS_GZIP, stream,
                     Slicing::kRandomCuts, 0),
            (Outcome{0, "PRE"}));
  EXPECT_EQ(Refusals(), refusals + 1);
  options.max_decompressed_bytes.reset();
  ASSERT_TRUE(Configure(options).ok());
}

// Every message below MinStreamBytes is declined, and counted as declined,
// as longer incompressible ones are: gzip's 19-byte minimum once skipped
// the counters. Declining is core's rule at work, not a failure.
TEST_F(CoreCodecTest, TooShortToShrinkIsCountedAsDeclinedNotFailed) {
  for (grpc_compression_algorithm algorithm :
       {GRPC_COMPRESS_GZIP, GRPC_COMPRESS_DEFLATE}) {
    const size_t min_stream = MinStreamBytes(*FormatOf(algorithm));
    for (size_t size : {size_t{1}, min_stream / 2, min_stream - 1}) {
      const test_support::DirectionTotals before = TotalsOf(true, algorithm);
      const std::string message(size, 'a');
      EXPECT_EQ(
          RunCodec(&grpc_msg_compress, algorithm, message, Slicing::kOne, 0),
          (Outcome{0, "PRE" + message}));
      const test_support::DirectionTotals after = TotalsOf(true, algorithm);
      EXPECT_EQ(after.declined, before.declined + 1)
          << "algorithm " << algorithm << ", " << size << " B";
      EXPECT_EQ(after.failed, before.failed)
          << "algorithm " << algorithm << ", " << size << " B";
    }
  }
}

// A message that does not inflate (corrupt, or cut short) is a failure, and
// neither declined nor refused.
TEST_F(CoreCodecTest, CorruptOrTruncatedMessagesAreCountedAsFailed) {
  for (grpc_compression_algorithm algorithm :
       {GRPC_COMPRESS_GZIP, GRPC_COMPRESS_DEFLATE}) {
    const Outcome compressed =
        RunCodec(&test_support::ReferenceCompress, algorithm, Words(2000, 7),
                 Slicing::kOne, 0);
    ASSERT_EQ(compressed.result, 1);
    const std::string stream = compressed.output.substr(3);  // less "PRE"
    std::string corrupt = stream;
    corrupt[corrupt.size() / 2] ^= 0x55;
    for (const std::string& bad :
         {corrupt, stream.substr(0, stream.size() / 2)}) {
      const test_support::DirectionTotals before = TotalsOf(false, algorithm);
      const uint64_t declined_before = TotalsOf(true, algorithm).declined;
      EXPECT_EQ(RunCodec(&grpc_msg_decompress, algorithm, bad, Slicing::kOne, 0)
                    .result,
                0);
      const test_support::DirectionTotals after = TotalsOf(false, algorithm);
      EXPECT_EQ(after.failed, before.failed + 1) << "algorithm " << algorithm;
      EXPECT_EQ(after.refused, before.refused) << "algorithm " << algorithm;
      EXPECT_EQ(after.declined, 0u) << "algorithm " << algorithm;
      EXPECT_EQ(TotalsOf(true, algorithm).declined, declined_before);
    }
  }
}

// libdeflate's allocator failing while it lives: short of exhausting the
// machine's memory, the way to meet a context that cannot be created.
class LibdeflateCannotAllocate {
 public:
  LibdeflateCannotAllocate() {
    libdeflate_set_memory_allocator(&Fail, std::free);
  }
  ~LibdeflateCannotAllocate() {
    libdeflate_set_memory_allocator(std::malloc, std::free);
  }
  LibdeflateCannotAllocate(const LibdeflateCannotAllocate&) = delete;
  LibdeflateCannotAllocate& operator=(const LibdeflateCannotAllocate&) = delete;

 private:
  static void* Fail(size_t) { return nullptr; }
};

size_t LinesContaining(const std::vector<test_support::LogLine>& lines,
                       absl::string_view text) {
  size_t count = 0;
  for (const test_support::LogLine& line : lines) {
    if (absl::StrContains(line.message, text)) ++count;
  }
  return count;
}

// A decoder that cannot be created is no message over the cap: it is
// counted as a failure and logged as what it is.
TEST_F(CoreCodecTest, ContextsThatCannotBeCreatedAreFailuresNotRefusals) {
  // gRPC 1.51 logs nothing before its verbosity is read, at grpc_init.
  grpc_init();
  const std::string message(5000, 'z');
  const Outcome compressed =
      RunCodec(&test_support::ReferenceCompress, GRPC_COMPRESS_GZIP, message,
               Slicing::kOne, 0);
  ASSERT_EQ(compressed.result, 1);
  const std::string stream = compressed.output.substr(3);
  const Options original = GetOptions();
  Options options = original;
  options.backend = Backend::kLibdeflate;
  options.level = kDefaultLevel;
  options.decoder = Backend::kLibdeflate;
  ASSERT_TRUE(Configure(options).ok());
  // No parked context to reuse: the reserve emptied, and a thread of its
  // own with none of its own.
  Readers().EvictReserveIf([](const auto&) { return true; });
  Writers().EvictReserveIf([](const auto&) { return true; });
  const test_support::DirectionTotals inflating_before =
      test_support::Totals(/*compressing=*/false, "gzip", "libdeflate");
  const test_support::DirectionTotals deflating_before =
      test_support::Totals(/*compressing=*/true, "gzip", "libdeflate");
  Outcome inflated;
  Outcome deflated;
  std::vector<test_support::LogLine> lines;
  {
    test_support::LogCapture capture;
    const LibdeflateCannotAllocate failing;
    std::thread([&] {
      inflated = RunCodec(&grpc_msg_decompress, GRPC_COMPRESS_GZIP, stream,
                          Slicing::kOne, 0);
      deflated = RunCodec(&grpc_msg_compress, GRPC_COMPRESS_GZIP, message,
                          Slicing::kOne, 0);
    }).join();
    lines = capture.Lines();
  }
  ASSERT_TRUE(Configure(original).ok());
  EXPECT_EQ(inflated, (Outcome{0, "PRE"}));
  EXPECT_EQ(deflated, (Outcome{0, "PRE" + message}));  // sent plain
  const test_support::DirectionTotals inflating =
      test_support::Totals(/*compressing=*/false, "gzip", "libdeflate");
  EXPECT_EQ(inflating.failed, inflating_before.failed + 1);
  EXPECT_EQ(inflating.refused, inflating_before.refused);
  const test_support::DirectionTotals deflating =
      test_support::Totals(/*compressing=*/true, "gzip", "libdeflate");
  EXPECT_EQ(deflating.failed, deflating_before.failed + 1);
  EXPECT_EQ(deflating.declined, deflating_before.declined);
  EXPECT_EQ(LinesContaining(lines, "max_decompressed_bytes"), 0u);
  EXPECT_EQ(LinesContaining(lines, "cannot create a libdeflate decompressor"),
            1u);
  EXPECT_EQ(LinesContaining(lines, "cannot create a libdeflate compressor"),
            1u);
  grpc_shutdown();
}

TEST(InstallTest, ActiveWhenLinkedThroughTheCMakeTarget) {
  EXPECT_TRUE(InstallCoreCodec()) << CoreCodecExplanation();
  EXPECT_TRUE(CoreCodecActive());
  EXPECT_TRUE(InstallCoreCodec());  // idempotent
}

}  // namespace
}  // namespace pooled_gzip::internal
