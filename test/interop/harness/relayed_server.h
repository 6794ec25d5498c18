// A server program under test with the wire relay in front of it: clients
// connect to target(), and every byte they exchange is decoded on the way.

#ifndef POOLED_GZIP_TEST_INTEROP_HARNESS_RELAYED_SERVER_H_
#define POOLED_GZIP_TEST_INTEROP_HARNESS_RELAYED_SERVER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "child_process.h"
#include "peers.h"
#include "wire_relay.h"

namespace pooled_gzip::interop {

// Bounds on every wait, generous for a loaded 2-core machine.
inline constexpr absl::Duration kStartTimeout = absl::Seconds(30);
inline constexpr absl::Duration kClientTimeout = absl::Seconds(120);

class RelayedServer {
 public:
  // Starts `server`, waits for its "listening on" line, and puts a relay in
  // front of it.
  static absl::StatusOr<std::unique_ptr<RelayedServer>> Start(
      const Command& server);

  std::string target() const;  // "127.0.0.1:PORT" of the relay
  int port() const { return relay_->port(); }

  // Runs `client` to completion. OK iff it exited with code 0; the error
  // carries its output. `output`, if given, receives the output either way.
  absl::Status RunClient(const Command& client, std::string* output = nullptr);

  // Waits until every relayed connection has closed, then returns all their
  // streams. Fails if a connection stays open or the decoder met anything
  // it could not follow.
  absl::StatusOr<std::vector<StreamRecord>> CollectStreams();

  const support::ChildProcess& server() const { return *server_; }

  // Stops the server and returns everything it printed, including what it
  // reports on the way out.
  const std::string& StopServer();

 private:
  RelayedServer(std::unique_ptr<support::ChildProcess> server,
                std::unique_ptr<WireRelay> relay)
      : server_(std::move(server)), relay_(std::move(relay)) {}

  std::unique_ptr<support::ChildProcess> server_;
  std::unique_ptr<WireRelay> relay_;
};

}  // namespace pooled_gzip::interop

#endif  // POOLED_GZIP_TEST_INTEROP_HARNESS_RELAYED_SERVER_H_
