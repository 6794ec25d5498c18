// Which path CTest registered a test for, and the check that the process is
// on it. pooled_gzip_test's BOTH_PATHS (test/CMakeLists.txt) registers each
// case on the core codec, with POOLED_GZIP_TEST_PATH=core_codec, and again
// prefixed "fallback." with POOLED_GZIP_CORE_CODEC=0. A test takes its
// expectations from the registration, never from the path it observes: if
// the core codec stopped installing, a test that asked which path is active
// would quietly repeat the fallback checks on the core codec registration.
//
// Suites named "...OnCoreCodec" are registered on the core codec only, and
// "...OnFallback" on the fallback path only: for cases that mean nothing on
// the other path. Run by hand, filter as CTest does:
//   ./core_rules_test --gtest_filter=-*OnFallback.*
//   POOLED_GZIP_CORE_CODEC=0 ./core_rules_test --gtest_filter=-*OnCoreCodec.*

#ifndef POOLED_GZIP_TESTING_REGISTERED_PATH_H_
#define POOLED_GZIP_TESTING_REGISTERED_PATH_H_

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "pooled_gzip/pooled_gzip.h"

namespace pooled_gzip::test_support {

// The core codec registration names its path, so that the codec turned off
// there, by the variable or by a broken install, fails the check below
// instead of turning the run into a fallback one. Otherwise (the fallback
// registration, or a binary run by hand): the core codec unless
// POOLED_GZIP_CORE_CODEC=0.
inline bool RegisteredForCoreCodec() {
  const char* path = std::getenv("POOLED_GZIP_TEST_PATH");
  if (path != nullptr && std::string(path) == "core_codec") return true;
  const char* codec = std::getenv("POOLED_GZIP_CORE_CODEC");
  return codec == nullptr || std::string(codec) != "0";
}

// Fails each test, as it starts, unless the core codec's state (installed
// on first use) is the one the registration expects. Per test, not in a
// global environment: gtest skips every test after a failed environment
// set-up, and CTest reports skipped tests as not run rather than failed.
class RegisteredPathListener : public testing::EmptyTestEventListener {
 public:
  void OnTestStart(const testing::TestInfo&) override {
    EXPECT_EQ(InstallCoreCodec(), RegisteredForCoreCodec())
        << "registered for the "
        << (RegisteredForCoreCodec() ? "core codec" : "fallback path")
        << ", but the core codec is " << (CoreCodecActive() ? "active" : "off");
  }
};

// Adds the listener; call once per binary, before the tests run:
//   [[maybe_unused]] const bool kPathChecked = CheckRegisteredPath();
inline bool CheckRegisteredPath() {
  testing::UnitTest::GetInstance()->listeners().Append(
      new RegisteredPathListener);
  return true;
}

}  // namespace pooled_gzip::test_support

#endif  // POOLED_GZIP_TESTING_REGISTERED_PATH_H_
