// Installing the core codec while an object that imports gRPC's codec is
// being loaded must not crash or hang the process, and must leave that
// object served by the pooled codec (through libgrpc's zlib calls).
// loading_importer_child races the two and then calls the importer; a crash
// shows as an exit on a signal, a hang as no line of output for kPerStep. The
// child prints a line every few dozen loads: under TSan on a busy machine its
// whole run takes minutes, but no step anywhere near kPerStep.

#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "child_process.h"

namespace pooled_gzip::reliability {
namespace {

using support::ChildProcess;

constexpr absl::Duration kPerStep = absl::Seconds(60);

void RunChild(const char* path) {
  absl::StatusOr<std::unique_ptr<ChildProcess>> child =
      ChildProcess::Start({path});
  ASSERT_TRUE(child.ok()) << child.status();
  const absl::StatusOr<int> code =
      (*child)->WaitForExitWhileProgressing(kPerStep);
  ASSERT_TRUE(code.ok()) << "hung: " << code.status();
  ASSERT_LE(*code, 128) << "killed by signal " << *code - 128 << " ("
                        << strsignal(*code - 128) << "); output:\n"
                        << (*child)->output();
  EXPECT_EQ(*code, 0) << (*child)->output();
}

// libpooled_gzip ahead of libgrpc in the lookup order.
TEST(LoadingImporterTest, PooledGzipFirstInNeeded) {
  RunChild(POOLED_GZIP_CHILD_POOLED_GZIP_FIRST);
}

// libgrpc ahead: the importer's calls bind to gRPC's own codec functions
// either way, and are served the same.
TEST(LoadingImporterTest, GrpcFirstInNeeded) {
  RunChild(POOLED_GZIP_CHILD_GRPC_FIRST);
}

}  // namespace
}  // namespace pooled_gzip::reliability
