#include "peers.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace pooled_gzip::interop {
namespace {

// Set by CMakeLists.txt.
constexpr char kEchoServer[] = POOLED_GZIP_ECHO_SERVER;
constexpr char kEchoClient[] = POOLED_GZIP_ECHO_CLIENT;
constexpr char kTestServer[] = INTEROP_TEST_SERVER;
constexpr char kCppInteropClient[] = INTEROP_CPP_CLIENT;
constexpr char kGoBinDir[] = INTEROP_GO_BIN_DIR;
constexpr char kNode[] = INTEROP_NODE;
constexpr char kNodeDir[] = INTEROP_NODE_DIR;
constexpr char kPython[] = INTEROP_PYTHON;
constexpr char kPythonDir[] = INTEROP_PYTHON_DIR;
constexpr char kPythonGenDir[] = INTEROP_PYTHON_GEN_DIR;

std::string SizesFlag() {
  std::string sizes;
  for (size_t size : EchoSizes()) {
    absl::StrAppend(&sizes, sizes.empty() ? "" : ",", size);
  }
  return sizes;
}

}  // namespace

const char* PeerName(Peer peer) {
  switch (peer) {
    case Peer::kGo:
      return "go";
    case Peer::kNode:
      return "node";
    case Peer::kPython:
      return "python";
    case Peer::kStockCpp:
      return "stock_cpp";
  }
  return "?";
}

const std::vector<size_t>& EchoSizes() {
  static const auto* sizes = new std::vector<size_t>{1, 1024, 1024 * 1024};
  return *sizes;
}

const std::vector<std::string>& EchoRpcs() {
  static const auto* rpcs = new std::vector<std::string>{
      "unary", "server_stream", "client_stream", "bidi"};
  return *rpcs;
}

// The backend the pooled programs compress with: the library's default, or
// POOLED_GZIP_INTEROP_BACKEND, so that CTest runs the suite once per backend.
Command WithBackend(Command command) {
  const char* backend = std::getenv("POOLED_GZIP_INTEROP_BACKEND");
  if (backend != nullptr && *backend != '\0') {
    command.push_back(absl::StrCat("--backend=", backend));
  }
  return command;
}

Command PooledEchoServer(const std::string& default_compression) {
  return WithBackend({kEchoServer, "--port=0", "--mode=pooled",
                      "--compression=" + default_compression});
}

Command PeerEchoServer(Peer peer) {
  switch (peer) {
    case Peer::kGo:
      return {absl::StrCat(kGoBinDir, "/echo_server"), "--port=0"};
    case Peer::kNode:
      return {kNode, absl::StrCat(kNodeDir, "/echo_server.js"), "--port=0"};
    case Peer::kPython:
      return {kPython, absl::StrCat(kPythonDir, "/echo_server.py"),
              absl::StrCat("--gen_dir=", kPythonGenDir), "--port=0"};
    case Peer::kStockCpp:
      return {kEchoServer, "--port=0", "--mode=stock", "--compression=none"};
  }
  return {};
}

namespace {

std::vector<Command> ExampleClientRuns(const std::string& mode,
                                       const std::string& target,
                                       const std::string& algorithm) {
  std::vector<Command> runs;
  for (const std::string& rpc : EchoRpcs()) {
    for (size_t size : EchoSizes()) {
      Command run = {kEchoClient,
                     "--target=" + target,
                     "--mode=" + mode,
                     "--compression=" + algorithm,
                     "--rpc=" + rpc,
                     absl::StrCat("--size=", size),
                     absl::StrCat("--count=", kEchoCount)};
      runs.push_back(mode == "pooled" ? WithBackend(std::move(run)) : run);
    }
  }
  return runs;
}

}  // namespace

std::vector<Command> PeerEchoClient(Peer peer, const std::string& target,
                                    const std::string& algorithm) {
  const std::vector<std::string> flags = {
      "--target=" + target, "--compression=" + algorithm,
      "--sizes=" + SizesFlag(), absl::StrCat("--count=", kEchoCount)};
  Command command;
  switch (peer) {
    case Peer::kGo:
      command = {absl::StrCat(kGoBinDir, "/echo_client")};
      break;
    case Peer::kNode:
      command = {kNode, absl::StrCat(kNodeDir, "/echo_client.js")};
      break;
    case Peer::kPython:
      command = {kPython, absl::StrCat(kPythonDir, "/echo_client.py"),
                 absl::StrCat("--gen_dir=", kPythonGenDir)};
      break;
    case Peer::kStockCpp:
      return ExampleClientRuns("stock", target, algorithm);
  }
  command.insert(command.end(), flags.begin(), flags.end());
  return {command};
}

std::vector<Command> PooledEchoClient(const std::string& target,
                                      const std::string& algorithm) {
  return ExampleClientRuns("pooled", target, algorithm);
}

Command PooledEchoLoad(const std::string& target, const std::string& algorithm,
                       const std::string& rpc, size_t size, int count) {
  return {kEchoClient,
          "--target=" + target,
          "--mode=pooled",
          "--compression=" + algorithm,
          "--rpc=" + rpc,
          absl::StrCat("--size=", size),
          absl::StrCat("--count=", count)};
}

Command InteropTestServer() { return {kTestServer, "--port=0"}; }

const char* InteropClientName(InteropClient client) {
  switch (client) {
    case InteropClient::kCpp:
      return "cpp";
    case InteropClient::kNode:
      return "node";
    case InteropClient::kGo:
      return "go";
  }
  return "?";
}

Command InteropClientCommand(InteropClient client, int port,
                             const std::string& test_case) {
  const std::vector<std::string> flags = {"--server_host=127.0.0.1",
                                          absl::StrCat("--server_port=", port),
                                          "--test_case=" + test_case};
  Command command;
  switch (client) {
    case InteropClient::kCpp:
      command = {kCppInteropClient};
      break;
    case InteropClient::kNode:
      command = {kNode, absl::StrCat(kNodeDir, "/interop_client.js")};
      break;
    case InteropClient::kGo:
      command = {absl::StrCat(kGoBinDir, "/interop_client")};
      break;
  }
  command.insert(command.end(), flags.begin(), flags.end());
  return command;
}

std::vector<std::string> PeerEnvironment() {
  // Python's own bytecode cache would otherwise land in the source tree.
  return {"PYTHONDONTWRITEBYTECODE=1"};
}

}  // namespace pooled_gzip::interop
