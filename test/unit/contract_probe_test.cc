// Admission by contract: libgrpc's own codec is admitted, quietly, and a
// codec that breaks any part of core's contract is refused with that part
// named.

#include "seam/contract_probe.h"

#include <grpc/slice.h>
#include <grpc/slice_buffer.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "log_capture.h"
#include "seam/activation.h"
#include "seam/core_codec.h"

namespace pooled_gzip::internal {
namespace {

TEST(ContractProbe, AdmitsTheReferenceItself) {
  EXPECT_EQ(FirstContractDifference(kReferenceCodec), std::nullopt);
}

TEST(ContractProbe, AdmitsTheLoadedLibgrpc) {
  ASSERT_TRUE(Stock().complete()) << "libgrpc's definitions not found";
  const std::optional<std::string> difference =
      FirstContractDifference(Stock());
  EXPECT_EQ(difference, std::nullopt) << *difference;
}

// Weighs the stream against the input alone, not counting what the
// output already holds, as core's compress does.
int CompressIgnoringTheOutput(grpc_compression_algorithm algorithm,
                              grpc_slice_buffer* input,
                              grpc_slice_buffer* output) {
  grpc_slice_buffer fresh;
  grpc_slice_buffer_init(&fresh);
  const int result = ReferenceCompress(algorithm, input, &fresh);
  grpc_slice_buffer_move_into(&fresh, output);
  grpc_slice_buffer_destroy(&fresh);
  return result;
}

TEST(ContractProbe, RefusesACompressThatDoesNotCountTheOutput) {
  const std::optional<std::string> difference = FirstContractDifference(
      {&CompressIgnoringTheOutput, &ReferenceDecompress});
  ASSERT_NE(difference, std::nullopt);
  EXPECT_NE(difference->find("compress gzip, output already holding"),
            std::string::npos)
      << *difference;
  EXPECT_NE(difference->find("gRPC returned 1"), std::string::npos)
      << *difference;
}

// gRPC logs every stream its codec fails; the probe must leave nothing in
// an operator's log, at any verbosity.
TEST(ContractProbe, LeavesNothingInGrpcsLog) {
  ASSERT_TRUE(Stock().complete()) << "libgrpc's definitions not found";
  test_support::LogCapture::IncludeInformation();
  const test_support::LogCapture capture;
  EXPECT_EQ(FirstContractDifference(Stock()), std::nullopt);
  for (const test_support::LogLine& line : capture.Lines()) {
    ADD_FAILURE() << "logged: " << line.message;
  }
}

TEST(ContractProbe, RefusesAnotherLevelsBytes) {
  // The pooled codec at the default backend (not zlib-6) keeps the
  // contract but not zlib's bytes: the probes see the difference.
  const std::optional<std::string> difference =
      FirstContractDifference({&PooledCompress, &ReferenceDecompress});
  ASSERT_NE(difference, std::nullopt);
  EXPECT_NE(difference->find("compress gzip, 4096 B of text in 3 slices"),
            std::string::npos)
      << *difference;
}

}  // namespace
}  // namespace pooled_gzip::internal
