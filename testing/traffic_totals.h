// Sums over pooled_gzip::GetTrafficStats() rows, for tests that check what
// happened to their messages.

#ifndef POOLED_GZIP_TESTING_TRAFFIC_TOTALS_H_
#define POOLED_GZIP_TESTING_TRAFFIC_TOTALS_H_

#include <cstdint>
#include <string>

#include "pooled_gzip/pool_stats.h"

namespace pooled_gzip::test_support {

// Received messages refused for inflating past a size limit.
inline uint64_t RefusedMessages() {
  uint64_t refused = 0;
  for (const TrafficStats& row : GetTrafficStats()) refused += row.refused;
  return refused;
}

// The rows of one direction summed, over one algorithm ("gzip" or
// "deflate") and one backend ("zlib", "libdeflate", "isal"), each "" for
// all of them.
struct DirectionTotals {
  uint64_t messages = 0;
  uint64_t declined = 0;
  uint64_t failed = 0;
  uint64_t refused = 0;
  uint64_t bytes_in = 0;   // of `messages`
  uint64_t bytes_out = 0;  // of `messages`
  uint64_t bytes_saved = 0;
  uint64_t skipped = 0;
  uint64_t skipped_bytes = 0;
  uint64_t codec_nanoseconds = 0;
  // Every message the codec was given, whatever became of it.
  uint64_t given() const {
    return messages + declined + failed + refused + skipped;
  }
};

inline DirectionTotals Totals(bool compressing,
                              const std::string& algorithm = "",
                              const std::string& backend = "") {
  DirectionTotals totals;
  for (const TrafficStats& row : GetTrafficStats()) {
    if (row.compressing != compressing) continue;
    if (!algorithm.empty() && row.algorithm != algorithm) continue;
    if (!backend.empty() && row.backend != backend) continue;
    totals.messages += row.messages;
    totals.declined += row.declined;
    totals.failed += row.failed;
    totals.refused += row.refused;
    totals.bytes_in += row.bytes_in;
    totals.bytes_out += row.bytes_out;
    totals.bytes_saved += row.bytes_saved;
    totals.skipped += row.skipped;
    totals.skipped_bytes += row.skipped_bytes;
    totals.codec_nanoseconds += row.codec_nanoseconds;
  }
  return totals;
}

// What `receive` did to the decompressing rows: the messages of `algorithm`
// ("gzip" or "deflate") that `decoder` ("zlib", "libdeflate", "isal")
// inflated, and every message the codec was given, for tests that check
// which decoder read what they received.
struct Inflated {
  uint64_t by_decoder = 0;
  uint64_t in_all = 0;
};
template <typename Receive>
Inflated InflatedWhile(const std::string& algorithm, const std::string& decoder,
                       const Receive& receive) {
  const DirectionTotals before = Totals(false, algorithm, decoder);
  const DirectionTotals all_before = Totals(false);
  receive();
  return {Totals(false, algorithm, decoder).messages - before.messages,
          Totals(false).given() - all_before.given()};
}

// Every message the codec was given in one direction, on any path.
inline uint64_t CodecMessages(bool compressing) {
  return Totals(compressing).given();
}

}  // namespace pooled_gzip::test_support

#endif  // POOLED_GZIP_TESTING_TRAFFIC_TOTALS_H_
