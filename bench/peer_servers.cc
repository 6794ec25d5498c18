#include "peer_servers.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "peers.h"

namespace pooled_gzip::bench {
namespace {

constexpr absl::Duration kListenTimeout = absl::Seconds(30);

// What a server printed, for a failure message: its last lines.
std::string Tail(const std::string& output) {
  constexpr size_t kMax = 600;
  if (output.empty()) return "(it printed nothing)";
  return output.size() <= kMax ? output
                               : "..." + output.substr(output.size() - kMax);
}

Setup MustParse(const char* name) {
  Setup setup;
  ParseSetup(name, &setup).IgnoreError();  // names of this file, all valid
  return setup;
}

}  // namespace

const std::vector<std::string>& ServerSetupNames() {
  static const auto* names = new std::vector<std::string>{
      "cpp-none", "cpp-stock", "cpp-default", "cpp-isal1",
      "go-none",  "go-gzip",   "js-none",     "js-gzip"};
  return *names;
}

absl::StatusOr<ServerSetup> ParseServerSetup(const std::string& name) {
  ServerSetup setup;
  setup.name = name;
  if (name == "cpp-none") {
    setup.cpp = MustParse("none");
  } else if (name == "cpp-stock") {
    setup.cpp = MustParse("stock");
  } else if (name == "cpp-default") {
    setup.cpp = MustParse("default");
  } else if (name == "cpp-isal1") {
    setup.cpp = MustParse("isal-1");
  } else if (name == "go-none" || name == "go-gzip") {
    setup.stack = Stack::kGo;
  } else if (name == "js-none" || name == "js-gzip") {
    setup.stack = Stack::kNode;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown setup ", name,
                     "; known: ", absl::StrJoin(ServerSetupNames(), ", ")));
  }
  setup.gzip = setup.stack == Stack::kCpp
                   ? setup.cpp.compression != Compression::kNone
                   : name.substr(name.find('-') + 1) == "gzip";
  return setup;
}

Setup ClientSetupFor(const ServerSetup& server) {
  return MustParse(server.gzip ? "default" : "none");
}

ServerPrograms BuiltServerPrograms() {
  ServerPrograms programs;
  programs.e2e_bench = PEERS_BENCH_E2E_BENCH;  // set by CMakeLists.txt
  programs.go = interop::PeerEchoServer(interop::Peer::kGo);
  programs.node = interop::PeerEchoServer(interop::Peer::kNode);
  programs.env = interop::PeerEnvironment();
  return programs;
}

absl::StatusOr<std::unique_ptr<ServerProcess>> ServerProcess::Start(
    const ServerSetup& setup, const ServerPrograms& programs) {
  support::ChildProcess::Options options;
  options.env = programs.env;
  std::vector<std::string> argv;
  const bool cpp = setup.stack == Stack::kCpp;
  if (cpp) {
    argv = {programs.e2e_bench, "--role=server"};
    for (const std::string& flag : PeerFlags(setup.cpp)) argv.push_back(flag);
    options.pipe_stdin = true;
    options.capture_stderr = false;  // its stdout answers, a line each
  } else {
    argv = setup.stack == Stack::kGo ? programs.go : programs.node;
  }
  absl::StatusOr<std::unique_ptr<support::ChildProcess>> child =
      support::ChildProcess::Start(argv, options);
  if (!child.ok()) {
    return absl::UnavailableError(absl::StrCat(
        setup.name, " server did not start: ", child.status().message()));
  }
  std::unique_ptr<ServerProcess> server(
      new ServerProcess(setup.name, *std::move(child), cpp));
  support::ChildProcess& process = *server->child_;
  if (cpp) {
    // "listening <port> core_codec=<0|1>" (bench/e2e_peer.h).
    absl::StatusOr<std::string> line = process.ReadLine(kListenTimeout);
    const std::string expected = setup.cpp.compression == Compression::kPooled
                                     ? "core_codec=1"
                                     : "core_codec=0";
    if (line.ok() && line->rfind("listening ", 0) == 0 &&
        line->find(expected) != std::string::npos) {
      const std::string rest = line->substr(10);
      absl::SimpleAtoi(rest.substr(0, rest.find(' ')), &server->port_);
    }
    if (server->port_ <= 0) {
      return absl::UnavailableError(absl::StrCat(
          setup.name, " server did not listen with ", expected, ": ",
          line.ok() ? *line : std::string(line.status().message())));
    }
  } else {
    absl::StatusOr<int> port = process.WaitForListeningPort(kListenTimeout);
    if (!port.ok()) {
      return absl::UnavailableError(absl::StrCat(
          setup.name, " server (", process.command(), ") did not listen: ",
          port.status().message(), "; it printed: ", Tail(process.output())));
    }
    server->port_ = *port;
  }
  return server;
}

ServerProcess::~ServerProcess() { Stop(); }

absl::Status ServerProcess::Exited(const std::string& when) {
  return absl::UnavailableError(
      absl::StrCat(name_, " server exited ", when, " (exit code ",
                   child_->exit_code(), "): ", Tail(child_->output())));
}

absl::StatusOr<OtherProcessFigures> ServerProcess::Figures() {
  OtherProcessFigures figures;
  if (child_->HasExited() ||
      !ReadOtherProcessFigures(child_->pid(), &figures)) {
    child_->WaitForExit(absl::Seconds(5)).IgnoreError();
    return Exited("while in use");
  }
  return figures;
}

void ServerProcess::Stop() {
  if (child_ == nullptr) return;
  if (reads_stdin_) {
    child_->CloseStdin();
    if (!child_->WaitForExit(absl::Seconds(10)).ok()) child_->Terminate();
  } else {
    child_->Terminate();
  }
  child_.reset();
}

}  // namespace pooled_gzip::bench
