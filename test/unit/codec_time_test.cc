// TrafficStats::codec_nanoseconds bounded on both sides for one call: at
// least the time a sink is known to have spent inside it (the clock starts
// before the work and stops after it, in nanoseconds), at most the wall time
// measured around the call (the clock runs inside the call only, in no
// larger unit). The sink's time is a busy wait on the monotonic clock, the
// clock CodecTimer reads, so both bounds hold on any machine however loaded.

#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "codec/chunk_sink.h"
#include "codec/codec.h"
#include "payloads.h"
#include "pooled_gzip/options.h"
#include "traffic_totals.h"

namespace pooled_gzip::internal {
namespace {

using std::chrono::steady_clock;
using test_support::Totals;

// Long enough that a timer off by its whole start or in microseconds falls
// far below it, short enough for a few hundred chunks in a second.
constexpr std::chrono::nanoseconds kSpinPerChunk = std::chrono::milliseconds(1);

// Appends to a string, spending at least kSpinPerChunk in every NextChunk.
class SlowSink final : public ChunkSink {
 public:
  explicit SlowSink(std::string* out) : sink_(out) {}
  absl::Span<char> NextChunk(size_t size_hint) override {
    ++chunks_;
    const steady_clock::time_point until = steady_clock::now() + kSpinPerChunk;
    while (steady_clock::now() < until) {
    }
    return sink_.NextChunk(size_hint);
  }
  void CommitChunk(size_t used) override { sink_.CommitChunk(used); }
  // The time this sink is known to have spent, in nanoseconds.
  uint64_t SpentNanoseconds() const {
    return chunks_ * static_cast<uint64_t>(kSpinPerChunk.count());
  }
  uint64_t chunks() const { return chunks_; }

 private:
  StringSink sink_;
  uint64_t chunks_ = 0;
};

uint64_t Nanoseconds(steady_clock::duration duration) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(duration).count());
}

const Backend kBackends[] = {Backend::kZlib, Backend::kLibdeflate,
                             Backend::kIsal};

const std::string& Text() {
  static const auto* text =
      new std::string(payloads::Make(payloads::Kind::kProse, 256 << 10));
  return *text;
}

TEST(CodecTime, CompressCountsTheSinksTimeAndNoMoreThanTheCall) {
  for (Format format : {Format::kGzip, Format::kZlib}) {
    for (Backend backend : kBackends) {
      const std::string algorithm(FormatName(format));
      const std::string name(BackendName(backend));
      CompressOptions options;
      options.format = format;
      options.backend = backend;
      std::string out;
      SlowSink sink(&out);
      const absl::string_view input = Text();
      const auto before = Totals(/*compressing=*/true, algorithm, name);
      const steady_clock::time_point start = steady_clock::now();
      ASSERT_TRUE(Compress({&input, 1}, options, &sink).ok());
      const uint64_t wall = Nanoseconds(steady_clock::now() - start);
      const auto after = Totals(/*compressing=*/true, algorithm, name);
      ASSERT_EQ(after.messages - before.messages, 1u) << algorithm << name;
      ASSERT_GE(sink.chunks(), 1u);
      const uint64_t counted =
          after.codec_nanoseconds - before.codec_nanoseconds;
      EXPECT_GE(counted, sink.SpentNanoseconds())
          << algorithm << " " << name << ": " << sink.chunks() << " chunks";
      EXPECT_LE(counted, wall) << algorithm << " " << name;
    }
  }
}

TEST(CodecTime, DecompressCountsTheSinksTimeAndNoMoreThanTheCall) {
  for (Format format : {Format::kGzip, Format::kZlib}) {
    std::string compressed;
    CompressOptions options;
    options.format = format;
    ASSERT_TRUE(CompressToString(Text(), options, &compressed).ok());
    for (Backend backend : kBackends) {
      const std::string algorithm(FormatName(format));
      const std::string name(BackendName(backend));
      std::string out;
      SlowSink sink(&out);
      const absl::string_view input = compressed;
      const auto before = Totals(/*compressing=*/false, algorithm, name);
      const steady_clock::time_point start = steady_clock::now();
      ASSERT_TRUE(
          Decompress({&input, 1}, format, Text().size(), &sink, backend).ok())
          << algorithm << " " << name;
      const uint64_t wall = Nanoseconds(steady_clock::now() - start);
      const auto after = Totals(/*compressing=*/false, algorithm, name);
      ASSERT_EQ(out, Text());
      ASSERT_EQ(after.messages - before.messages, 1u) << algorithm << name;
      ASSERT_GE(sink.chunks(), 1u);
      const uint64_t counted =
          after.codec_nanoseconds - before.codec_nanoseconds;
      EXPECT_GE(counted, sink.SpentNanoseconds())
          << algorithm << " " << name << ": " << sink.chunks() << " chunks";
      EXPECT_LE(counted, wall) << algorithm << " " << name;
    }
  }
}

// A skipped message never reaches the sink, so only the upper bound holds
// its time: taken inside the call, in nanoseconds.
TEST(CodecTime, SkippedMessageTimeIsWithinTheCall) {
  const std::string random = payloads::Make(payloads::Kind::kRandom, 1 << 20);
  CompressOptions options;
  options.backend = Backend::kLibdeflate;
  options.skip_incompressible = true;
  std::string out;
  SlowSink sink(&out);
  const absl::string_view input = random;
  const auto before = Totals(/*compressing=*/true, "gzip", "libdeflate");
  const steady_clock::time_point start = steady_clock::now();
  ASSERT_EQ(Compress({&input, 1}, options, &sink).code(),
            absl::StatusCode::kFailedPrecondition);
  const uint64_t wall = Nanoseconds(steady_clock::now() - start);
  const auto after = Totals(/*compressing=*/true, "gzip", "libdeflate");
  ASSERT_EQ(after.skipped - before.skipped, 1u);
  EXPECT_EQ(sink.chunks(), 0u);
  const uint64_t counted = after.codec_nanoseconds - before.codec_nanoseconds;
  EXPECT_GT(counted, 0u);
  EXPECT_LE(counted, wall);
}

}  // namespace
}  // namespace pooled_gzip::internal
