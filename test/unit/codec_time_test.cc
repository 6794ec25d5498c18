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

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "codec/backend_table.h"
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

const std::string& Text() {
  static const auto* text =
      new std::string(payloads::Make(payloads::Kind::kProse, 256 << 10));
  return *text;
}

// One call of the codec onto a SlowSink, `call(&sink)`, and what it added to
// the rows of its direction, format and backend.
struct TimedCall {
  absl::Status status;
  std::string out;
  uint64_t chunks = 0;
  uint64_t sink_nanoseconds = 0;  // what the sink is known to have spent
  uint64_t wall = 0;              // measured around the call
  uint64_t messages = 0;
  uint64_t skipped = 0;
  uint64_t counted = 0;  // codec_nanoseconds
};

template <typename Call>
TimedCall Timed(bool compressing, Format format, Backend backend,
                const Call& call) {
  const std::string algorithm(FormatName(format));
  const std::string name(BackendName(backend));
  TimedCall timed;
  SlowSink sink(&timed.out);
  const auto before = Totals(compressing, algorithm, name);
  const steady_clock::time_point start = steady_clock::now();
  timed.status = call(&sink);
  timed.wall = Nanoseconds(steady_clock::now() - start);
  const auto after = Totals(compressing, algorithm, name);
  timed.chunks = sink.chunks();
  timed.sink_nanoseconds = sink.SpentNanoseconds();
  timed.messages = after.messages - before.messages;
  timed.skipped = after.skipped - before.skipped;
  timed.counted = after.codec_nanoseconds - before.codec_nanoseconds;
  return timed;
}

// One message, counted with at least the sink's time and at most the
// call's.
void ExpectSinksTimeAndNoMoreThanTheCall(const TimedCall& timed,
                                         const std::string& what) {
  ASSERT_EQ(timed.messages, 1u) << what;
  ASSERT_GE(timed.chunks, 1u);
  EXPECT_GE(timed.counted, timed.sink_nanoseconds)
      << what << ": " << timed.chunks << " chunks";
  EXPECT_LE(timed.counted, timed.wall) << what;
}

TEST(CodecTime, CompressCountsTheSinksTimeAndNoMoreThanTheCall) {
  for (Format format : {Format::kGzip, Format::kDeflate}) {
    for (Backend backend : kAllBackends) {
      const std::string what =
          absl::StrCat(FormatName(format), " ", BackendName(backend));
      CompressOptions options;
      options.format = format;
      options.backend = backend;
      const absl::string_view input = Text();
      const TimedCall timed =
          Timed(/*compressing=*/true, format, backend, [&](ChunkSink* sink) {
            return Compress({&input, 1}, options, sink);
          });
      ASSERT_TRUE(timed.status.ok()) << what;
      ExpectSinksTimeAndNoMoreThanTheCall(timed, what);
    }
  }
}

TEST(CodecTime, DecompressCountsTheSinksTimeAndNoMoreThanTheCall) {
  for (Format format : {Format::kGzip, Format::kDeflate}) {
    std::string compressed;
    CompressOptions options;
    options.format = format;
    ASSERT_TRUE(CompressToString(Text(), options, &compressed).ok());
    for (Backend backend : kAllBackends) {
      const std::string what =
          absl::StrCat(FormatName(format), " ", BackendName(backend));
      const absl::string_view input = compressed;
      const TimedCall timed =
          Timed(/*compressing=*/false, format, backend, [&](ChunkSink* sink) {
            return Decompress({&input, 1}, format, Text().size(), sink,
                              backend);
          });
      ASSERT_TRUE(timed.status.ok()) << what;
      ASSERT_EQ(timed.out, Text());
      ExpectSinksTimeAndNoMoreThanTheCall(timed, what);
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
  const absl::string_view input = random;
  const TimedCall timed = Timed(/*compressing=*/true, Format::kGzip,
                                Backend::kLibdeflate, [&](ChunkSink* sink) {
                                  return Compress({&input, 1}, options, sink);
                                });
  ASSERT_EQ(timed.status.code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_EQ(timed.skipped, 1u);
  EXPECT_EQ(timed.chunks, 0u);
  EXPECT_GT(timed.counted, 0u);
  EXPECT_LE(timed.counted, timed.wall);
}

}  // namespace
}  // namespace pooled_gzip::internal
