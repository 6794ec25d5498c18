// The command lines of every program the interop tests run: pooled-gzip's
// example server and client, the suite's TestService server and interop
// clients, and the peers' echo servers and clients. Paths come from the
// build (see CMakeLists.txt); a program that is missing makes its test fail
// with a hint to run scripts/install_interop_peers.sh.

#ifndef POOLED_GZIP_TEST_INTEROP_HARNESS_PEERS_H_
#define POOLED_GZIP_TEST_INTEROP_HARNESS_PEERS_H_

#include <ostream>
#include <string>
#include <vector>

namespace pooled_gzip::interop {

enum class Peer { kGo, kNode, kPython, kStockCpp };

const char* PeerName(Peer peer);  // "go", "node", "python", "stock_cpp"
// For test names and messages.
inline void PrintTo(Peer peer, std::ostream* out) { *out << PeerName(peer); }

using Command = std::vector<std::string>;

// pooled-gzip's example echo server. Responses are compressed as each
// request's response_encoding asks, else with `default_compression`.
Command PooledEchoServer(const std::string& default_compression = "none");

// A peer's echo server on an ephemeral port.
Command PeerEchoServer(Peer peer);

// The runs that make up one echo client pass against `target`: every RPC
// kind and the sizes 1 B, 1 KiB, 1 MiB, `kEchoCount` messages each.
// `algorithm` is "gzip", "deflate" or "none". Peers run it all in one
// process; the example client takes one RPC kind and size per run.
std::vector<Command> PeerEchoClient(Peer peer, const std::string& target,
                                    const std::string& algorithm);
std::vector<Command> PooledEchoClient(const std::string& target,
                                      const std::string& algorithm);

inline constexpr int kEchoCount = 3;
const std::vector<size_t>& EchoSizes();
const std::vector<std::string>& EchoRpcs();  // as echo_client's --rpc

// The suite's TestService server (raw mode) and the interop clients.
// One example-client run in pooled mode: `count` messages of `size` bytes.
Command PooledEchoLoad(const std::string& target, const std::string& algorithm,
                       const std::string& rpc, size_t size, int count);

Command InteropTestServer();
enum class InteropClient { kCpp, kNode, kGo };
const char* InteropClientName(InteropClient client);
inline void PrintTo(InteropClient client, std::ostream* out) {
  *out << InteropClientName(client);
}
Command InteropClientCommand(InteropClient client, int port,
                             const std::string& test_case);

// Extra environment for running peers.
std::vector<std::string> PeerEnvironment();

}  // namespace pooled_gzip::interop

#endif  // POOLED_GZIP_TEST_INTEROP_HARNESS_PEERS_H_
