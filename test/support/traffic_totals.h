// Sums over pooled_gzip::GetTrafficStats() rows, for tests that check what
// happened to their messages.

#ifndef POOLED_GZIP_TEST_SUPPORT_TRAFFIC_TOTALS_H_
#define POOLED_GZIP_TEST_SUPPORT_TRAFFIC_TOTALS_H_

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

// Messages of `algorithm` ("gzip" or "deflate") the codec declined to
// compress (they would not have shrunk) or failed to decompress.
inline uint64_t DeclinedOrFailed(bool compressing,
                                 const std::string& algorithm) {
  uint64_t count = 0;
  for (const TrafficStats& row : GetTrafficStats()) {
    if (row.compressing == compressing && row.algorithm == algorithm) {
      count += row.declined_or_failed;
    }
  }
  return count;
}

}  // namespace pooled_gzip::test_support

#endif  // POOLED_GZIP_TEST_SUPPORT_TRAFFIC_TOTALS_H_
