// What 1.1 deprecates still answers as in 1.0, for the programs that call
// it (CHANGELOG.md, "Deprecated"). Only this file calls deprecated names.

#include <gtest/gtest.h>

#include "pooled_gzip/options.h"
#include "pooled_gzip/pool_stats.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace pooled_gzip {
namespace {

TEST(DeprecatedApi, HitsAndMissesAreReusedAndCreated) {
  PoolCounters counters;
  counters.created = 3;
  counters.reused = 997;
  EXPECT_EQ(counters.hits(), 997u);
  EXPECT_EQ(counters.misses(), 3u);
}

// Any string but "gzip" is the deflate decoder, as in 1.0.
TEST(DeprecatedApi, DefaultDecoderByNameIsTheFormatsConstant) {
  EXPECT_EQ(DefaultDecoder("gzip"), kDefaultGzipDecoder);
  EXPECT_EQ(DefaultDecoder("deflate"), kDefaultDeflateDecoder);
  EXPECT_EQ(DefaultDecoder("GZIP"), kDefaultDeflateDecoder);
}

}  // namespace
}  // namespace pooled_gzip

#pragma GCC diagnostic pop
