// A writer keeps the buffers of a large message while max_pooled_bytes can
// hold them, so the next message of that size allocates nothing; when the
// cap cannot, the buffers go and the writer itself is still pooled.

#include <gtest/gtest.h>

#include <cstddef>
#include <string>

#include "codec/codec.h"
#include "codec/settings.h"
#include "pooled_gzip/options.h"
#include "pooled_gzip/pool_stats.h"

namespace pooled_gzip::internal {
namespace {

constexpr size_t kMessageBytes = size_t{4} << 20;

std::string LargeMessage() {
  std::string message;
  for (int i = 0; message.size() < kMessageBytes; ++i) {
    message += "record " + std::to_string(i) + " of a large message; ";
  }
  return message;
}

void CompressOnce(const std::string& message) {
  std::string out;
  ASSERT_TRUE(
      CompressToString(message, ConfiguredOptions(Format::kGzip), &out).ok());
}

TEST(KeptBuffers, KeptWithinTheCapAndFreedBeyondIt) {
  const Options saved = GetOptions();
  Options options = saved;
  options.backend = Backend::kLibdeflate;
  options.level = 6;
  options.max_pooled_bytes = size_t{32} << 20;
  ASSERT_TRUE(Configure(options).ok());
  const std::string message = LargeMessage();

  CompressOnce(message);
  const PoolStats kept = GetPoolStats();
  // The writer, with an output buffer of libdeflate's bound for 4 MiB.
  EXPECT_GE(kept.pooled_bytes, kMessageBytes);
  CompressOnce(message);
  const PoolStats again = GetPoolStats();
  EXPECT_EQ(again.writers.reused, kept.writers.reused + 1);
  EXPECT_EQ(again.pooled_bytes, kept.pooled_bytes) << "the buffer grew again";

  options.max_pooled_bytes = size_t{2} << 20;
  ASSERT_TRUE(Configure(options).ok());
  CompressOnce(message);
  const PoolStats freed = GetPoolStats();
  EXPECT_EQ(freed.writers.rejected_by_caps, again.writers.rejected_by_caps);
  EXPECT_EQ(freed.writers.pooled, again.writers.pooled);
  EXPECT_LT(freed.pooled_bytes, size_t{1} << 20) << "the buffers were kept";

  ASSERT_TRUE(Configure(saved).ok());
}

}  // namespace
}  // namespace pooled_gzip::internal
