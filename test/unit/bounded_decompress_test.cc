// A gRPC's own bounded decompress entry point is found among its exports,
// and none is found in the loaded libgrpc, whose filter calls
// grpc_msg_decompress.

#include "seam/bounded_decompress.h"

#include <grpc/grpc.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace grpc_core {
int MessageDecompress(int limit);
}  // namespace grpc_core

namespace pooled_gzip::internal {
namespace {

TEST(BoundedDecompress, NoneInTheLoadedLibgrpc) {
  const std::optional<std::string> found =
      BoundedDecompressExport(reinterpret_cast<const void*>(&grpc_init));
  EXPECT_EQ(found, std::nullopt) << *found;
}

TEST(BoundedDecompress, FoundInALibraryThatExportsOne) {
  EXPECT_EQ(BoundedDecompressExport(
                reinterpret_cast<const void*>(&grpc_core::MessageDecompress)),
            "_ZN9grpc_core17MessageDecompressEi");
}

}  // namespace
}  // namespace pooled_gzip::internal
