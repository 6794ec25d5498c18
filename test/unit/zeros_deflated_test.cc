// The bomb maker the reliability and package tests share: its copied
// blocks and combined checksums must make one valid stream that plain zlib
// inflates to exactly the prefix and the zeros, in both formats, on and
// off a MiB boundary.

#include "zeros_deflated.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "plain_zlib.h"

namespace pooled_gzip::plain_zlib {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;

struct Case {
  Format format;
  uint64_t zeros;
};

class DeflateWithZerosTest : public ::testing::TestWithParam<Case> {};

TEST_P(DeflateWithZerosTest, InflatesToThePrefixAndTheZeros) {
  const Case& c = GetParam();
  const std::string prefix = "\x0a\x85\x80\x40 and more";
  const std::string stream =
      DeflateWithZeros(prefix, c.zeros, WindowBits(c.format));

  std::string inflated;
  ASSERT_TRUE(InflateOne(stream, c.format, &inflated));
  EXPECT_EQ(inflated, prefix + std::string(c.zeros, '\0'));
  // Some thousand times smaller: what makes it a bomb.
  EXPECT_LT(stream.size(), 64 + c.zeros / 500);
}

INSTANTIATE_TEST_SUITE_P(
    FormatsAndSizes, DeflateWithZerosTest,
    ::testing::Values(Case{Format::kGzip, 0}, Case{Format::kGzip, 5},
                      Case{Format::kGzip, kMiB},
                      Case{Format::kGzip, 3 * kMiB + 17},
                      Case{Format::kDeflate, 0},
                      Case{Format::kDeflate, kMiB - 1},
                      Case{Format::kDeflate, 3 * kMiB + 17}));

}  // namespace
}  // namespace pooled_gzip::plain_zlib
