// The check that received messages are inflated by Options::decoder, for
// the tests of each path that inflates them.

#ifndef POOLED_GZIP_TESTING_EACH_DECODER_H_
#define POOLED_GZIP_TESTING_EACH_DECODER_H_

#include <gtest/gtest.h>

#include <string>

#include "pooled_gzip/options.h"
#include "traffic_totals.h"

namespace pooled_gzip::test_support {

// With Options::decoder set to each backend in turn, `receive` must have
// that decoder inflate exactly one message of `algorithm` ("gzip" or
// "deflate"), and the codec see no other message. The options in force
// before are put back.
template <typename Receive>
void ExpectEachDecoderInflatesTheMessage(const std::string& algorithm,
                                         const Receive& receive) {
  const Options original = GetOptions();
  for (Backend decoder :
       {Backend::kZlib, Backend::kLibdeflate, Backend::kIsal}) {
    Options options = original;
    options.decoder = decoder;
    ASSERT_TRUE(Configure(options).ok());
    const std::string name(BackendName(decoder));
    const Inflated inflated = InflatedWhile(algorithm, name, receive);
    EXPECT_EQ(inflated.by_decoder, 1u) << algorithm << " by " << name;
    EXPECT_EQ(inflated.in_all, 1u) << algorithm << " by " << name;
  }
  ASSERT_TRUE(Configure(original).ok());
}

}  // namespace pooled_gzip::test_support

#endif  // POOLED_GZIP_TESTING_EACH_DECODER_H_
