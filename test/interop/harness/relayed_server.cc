#include "relayed_server.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace pooled_gzip::interop {

absl::StatusOr<std::unique_ptr<RelayedServer>> RelayedServer::Start(
    const Command& server) {
  absl::StatusOr<std::unique_ptr<support::ChildProcess>> process =
      support::ChildProcess::Start(server, PeerEnvironment());
  if (!process.ok()) return process.status();
  absl::StatusOr<int> port = (*process)->WaitForListeningPort(kStartTimeout);
  if (!port.ok()) return port.status();
  absl::StatusOr<std::unique_ptr<WireRelay>> relay = WireRelay::Start(*port);
  if (!relay.ok()) return relay.status();
  return std::unique_ptr<RelayedServer>(
      new RelayedServer(*std::move(process), *std::move(relay)));
}

std::string RelayedServer::target() const {
  return absl::StrCat("127.0.0.1:", relay_->port());
}

absl::Status RelayedServer::RunClient(const Command& client,
                                      std::string* output) {
  absl::StatusOr<std::unique_ptr<support::ChildProcess>> process =
      support::ChildProcess::Start(client, PeerEnvironment());
  if (!process.ok()) return process.status();
  absl::StatusOr<int> code = (*process)->WaitForExit(kClientTimeout);
  if (output != nullptr) *output = (*process)->output();
  if (!code.ok()) return code.status();
  if (*code != 0) {
    return absl::InternalError(
        absl::StrCat("'", (*process)->command(), "' exited with code ", *code,
                     "; output:\n", (*process)->output()));
  }
  return absl::OkStatus();
}

const std::string& RelayedServer::StopServer() {
  server_->Terminate();
  return server_->output();
}

absl::StatusOr<std::vector<StreamRecord>> RelayedServer::CollectStreams() {
  if (!relay_->WaitUntilIdle(kStartTimeout)) {
    return absl::DeadlineExceededError(
        "relayed connections still open after the clients exited");
  }
  std::vector<std::string> errors;
  for (const ConnectionRecord& connection : relay_->Connections()) {
    for (const std::string& error : connection.errors) {
      errors.push_back(
          absl::StrCat("connection ", connection.index, ": ", error));
    }
  }
  if (!errors.empty()) {
    return absl::DataLossError(
        absl::StrCat("the wire decoder could not follow the traffic:\n",
                     absl::StrJoin(errors, "\n")));
  }
  return relay_->Streams();
}

}  // namespace pooled_gzip::interop
