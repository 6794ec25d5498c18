// The echo servers that bench/peers_bench compares, each in a process of its
// own: gRPC C++ (this project's e2e_bench in its server role) with no
// compression, stock gzip, pooled-gzip's default and ISA-L-1, and the
// interop suite's grpc-go and grpc-js echo servers with and without gzip.
// One client drives them all, so that only the server differs.
//
// How each answers a gzip request is its implementation's own: gRPC C++
// compresses the reply with the channel's default algorithm, grpc-go 1.33
// with the compressor the request came in (its servers cannot choose per
// call), and grpc-js never compresses a reply (its server has no response
// compression).

#ifndef POOLED_GZIP_BENCH_PEER_SERVERS_H_
#define POOLED_GZIP_BENCH_PEER_SERVERS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "child_process.h"
#include "e2e_setups.h"
#include "process_stats.h"

namespace pooled_gzip::bench {

enum class Stack { kCpp, kGo, kNode };

struct ServerSetup {
  std::string name;  // "cpp-none", "cpp-stock", ..., "go-gzip", "js-none"
  Stack stack = Stack::kCpp;
  bool gzip = false;  // the client sends gzip
  Setup cpp;          // Stack::kCpp: the e2e_bench server role's setup
};

// "cpp-none", "cpp-stock", "cpp-default", "cpp-isal1", "go-none",
// "go-gzip", "js-none", "js-gzip".
const std::vector<std::string>& ServerSetupNames();
absl::StatusOr<ServerSetup> ParseServerSetup(const std::string& name);

// The one client of every setup: pooled-gzip's default sending gzip, or no
// compression.
Setup ClientSetupFor(const ServerSetup& server);

// Where the programs are.
struct ServerPrograms {
  std::string e2e_bench;          // its --role=server
  std::vector<std::string> go;    // prints "listening on 127.0.0.1:PORT"
  std::vector<std::string> node;  // the same
  std::vector<std::string> env;   // for the peers
};
// The build's: e2e_bench beside this binary, the interop suite's peers.
ServerPrograms BuiltServerPrograms();

// One running server.
class ServerProcess {
 public:
  // Starts it and waits until it listens; fails, saying which server and
  // what it printed, if it exits or does not listen within 30 s. A C++
  // server must have pooled-gzip's core codec exactly when pooled.
  static absl::StatusOr<std::unique_ptr<ServerProcess>> Start(
      const ServerSetup& setup, const ServerPrograms& programs);
  ~ServerProcess();

  int port() const { return port_; }
  // Its CPU time and peak resident set so far; fails if it has exited.
  absl::StatusOr<OtherProcessFigures> Figures();
  // Stops it; it must exit within a bound (else it is killed).
  void Stop();

 private:
  ServerProcess(std::string name, std::unique_ptr<support::ChildProcess> child,
                bool reads_stdin)
      : name_(std::move(name)),
        child_(std::move(child)),
        reads_stdin_(reads_stdin) {}
  absl::Status Exited(const std::string& when);

  std::string name_;
  std::unique_ptr<support::ChildProcess> child_;
  bool reads_stdin_;  // e2e_bench's role: exits at the end of its input
  int port_ = 0;
};

}  // namespace pooled_gzip::bench

#endif  // POOLED_GZIP_BENCH_PEER_SERVERS_H_
