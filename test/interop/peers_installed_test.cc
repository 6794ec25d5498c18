// Every peer is installed and runs: a missing peer is a failure of the
// interop suite, never a skip. Each peer's echo server must start and print
// its "listening on" line.

#include <gtest/gtest.h>

#include "child_process.h"
#include "peers.h"
#include "relayed_server.h"

namespace pooled_gzip::interop {
namespace {

class PeerInstalledTest : public testing::TestWithParam<Peer> {};

TEST_P(PeerInstalledTest, EchoServerStarts) {
  absl::StatusOr<std::unique_ptr<support::ChildProcess>> server =
      support::ChildProcess::Start(PeerEchoServer(GetParam()),
                                   PeerEnvironment());
  ASSERT_TRUE(server.ok()) << server.status();
  absl::StatusOr<int> port = (*server)->WaitForListeningPort(kStartTimeout);
  EXPECT_TRUE(port.ok()) << port.status()
                         << "\nInstall the peers with "
                            "scripts/install_interop_peers.sh, then rebuild.";
}

INSTANTIATE_TEST_SUITE_P(Peers, PeerInstalledTest,
                         testing::Values(Peer::kGo, Peer::kNode, Peer::kPython,
                                         Peer::kStockCpp),
                         [](const testing::TestParamInfo<Peer>& info) {
                           return PeerName(info.param);
                         });

}  // namespace
}  // namespace pooled_gzip::interop
