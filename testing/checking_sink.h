// A ChunkSink for the tests of the codec and its backends, which checks
// how the codec uses it.

#ifndef POOLED_GZIP_TESTING_CHECKING_SINK_H_
#define POOLED_GZIP_TESTING_CHECKING_SINK_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <string>

#include "absl/types/span.h"
#include "codec/chunk_sink.h"

namespace pooled_gzip::test_support {

// Hands out chunks of at most `max_chunk` bytes (whatever the hint), filled
// with a byte the codec must write over, keeps what is committed, counts
// every byte and chunk it handed out, and checks the chunk protocol: a hint
// of at least one byte, one commit per chunk, never more than the chunk.
class CheckingSink final : public internal::ChunkSink {
 public:
  explicit CheckingSink(size_t max_chunk = std::numeric_limits<size_t>::max())
      : max_chunk_(max_chunk) {}

  absl::Span<char> NextChunk(size_t size_hint) override {
    EXPECT_FALSE(open_) << "NextChunk before CommitChunk";
    EXPECT_GT(size_hint, 0u);
    open_ = true;
    chunk_.assign(std::min(std::max<size_t>(size_hint, 1), max_chunk_), '\x5a');
    given_ += chunk_.size();
    ++chunks_;
    return absl::MakeSpan(chunk_);
  }

  void CommitChunk(size_t used) override {
    EXPECT_TRUE(open_) << "CommitChunk without NextChunk";
    EXPECT_LE(used, chunk_.size());
    open_ = false;
    out_.append(chunk_.data(), std::min(used, chunk_.size()));
  }

  const std::string& out() const { return out_; }
  size_t given() const { return given_; }
  int chunks() const { return chunks_; }
  // A chunk was handed out and never committed: a gRPC slice sink leaks it.
  bool open() const { return open_; }

 private:
  size_t max_chunk_;
  std::string chunk_;
  std::string out_;
  size_t given_ = 0;
  int chunks_ = 0;
  bool open_ = false;
};

}  // namespace pooled_gzip::test_support

#endif  // POOLED_GZIP_TESTING_CHECKING_SINK_H_
