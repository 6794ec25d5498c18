// End-to-end tests expect the process on the core codec: gRPC's message
// codec served by the pools both ways. A test must not read which path is
// active and adjust to it, or a broken install would pass as stock gRPC;
// so each test fails, as it starts, unless the core codec installs active.
// Per test, not in a global environment: gtest skips every test after a
// failed environment set-up, and CTest reports skipped tests as not run
// rather than failed.

#ifndef POOLED_GZIP_TESTING_CORE_CODEC_REQUIRED_H_
#define POOLED_GZIP_TESTING_CORE_CODEC_REQUIRED_H_

#include <gtest/gtest.h>

#include "pooled_gzip/pooled_gzip.h"

namespace pooled_gzip::test_support {

class CoreCodecRequired : public testing::EmptyTestEventListener {
 public:
  void OnTestStart(const testing::TestInfo&) override {
    EXPECT_TRUE(InstallCoreCodec()) << "the core codec is not active";
  }
};

// Adds the listener; call once per binary, before the tests run:
//   [[maybe_unused]] const bool kCoreCodecRequired = RequireCoreCodec();
inline bool RequireCoreCodec() {
  testing::UnitTest::GetInstance()->listeners().Append(new CoreCodecRequired);
  return true;
}

}  // namespace pooled_gzip::test_support

#endif  // POOLED_GZIP_TESTING_CORE_CODEC_REQUIRED_H_
