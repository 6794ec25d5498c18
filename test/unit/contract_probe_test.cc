// Admission by contract: libgrpc's own codec is admitted, and a codec that
// breaks any part of core's contract is refused with that part named.

#include "seam/contract_probe.h"

#include <grpc/slice.h>
#include <grpc/slice_buffer.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>

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

// Leaves what it inflated so far in the output when a stream fails.
int DecompressLeavingPartialOutput(grpc_compression_algorithm algorithm,
                                   grpc_slice_buffer* input,
                                   grpc_slice_buffer* output) {
  const int result = ReferenceDecompress(algorithm, input, output);
  if (result == 0) {
    grpc_slice_buffer_add(output, grpc_slice_from_static_string("partial"));
  }
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

TEST(ContractProbe, RefusesADecompressThatTouchesTheOutputOnFailure) {
  const std::optional<std::string> difference = FirstContractDifference(
      {&ReferenceCompress, &DecompressLeavingPartialOutput});
  ASSERT_NE(difference, std::nullopt);
  EXPECT_NE(difference->find("decompress gzip, a corrupt stream"),
            std::string::npos)
      << *difference;
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
