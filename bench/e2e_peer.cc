#include "e2e_peer.h"

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/channel_arguments.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "client_threads.h"
#include "e2e_runner.h"
#include "echo_service.h"
#include "payloads.h"
#include "pooled_gzip/pooled_gzip.h"

namespace pooled_gzip::bench {
namespace {

// The largest benchmark message is 1 MiB; both sides accept far more, so
// no size is anywhere near a limit in any setup.
constexpr int kMaxMessageBytes = 64 << 20;

void Answer(const std::string& line) {
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

std::shared_ptr<grpc::Channel> ChannelFor(const Setup& setup,
                                          const std::string& target) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(kMaxMessageBytes);
  args.SetMaxSendMessageSize(kMaxMessageBytes);
  if (setup.compression != Compression::kNone) {
    args.SetCompressionAlgorithm(GRPC_COMPRESS_GZIP);
  }
  auto credentials = grpc::InsecureChannelCredentials();
  return setup.compression == Compression::kPooled
             ? pooled_gzip::CreateChannel(target, credentials, args)
             : grpc::CreateCustomChannel(target, credentials, args);
}

// Parses "run <rpc> <threads> <kind> <size> <ms> <min_messages>".
bool ParseRun(const std::string& line, Cell* cell, Budget* budget) {
  std::istringstream in(line);
  std::string word, rpc, kind;
  long long ms = 0;
  if (!(in >> word >> rpc >> cell->threads >> kind >> cell->size >> ms >>
        budget->min_messages) ||
      word != "run" || !ParseMeasuredRpc(rpc, &cell->rpc) ||
      cell->threads < 1) {
    return false;
  }
  const std::optional<payloads::Kind> parsed = payloads::ParseKind(kind);
  if (!parsed) return false;
  cell->kind = *parsed;
  budget->duration = std::chrono::milliseconds(ms);
  return true;
}

}  // namespace

std::string RunCommand(const Cell& cell, int duration_ms, int min_messages) {
  return absl::StrCat("run ", RpcName(cell.rpc), " ", cell.threads, " ",
                      payloads::KindName(cell.kind), " ", cell.size, " ",
                      duration_ms, " ", min_messages);
}

int RunServerRole(const Setup& setup) {
  echo::ServerOptions options;
  options.pooled = setup.compression == Compression::kPooled;
  options.default_algorithm = setup.compression == Compression::kNone
                                  ? GRPC_COMPRESS_NONE
                                  : GRPC_COMPRESS_GZIP;
  options.max_receive_message_bytes = kMaxMessageBytes;
  echo::RunningServer running = echo::StartEchoServer(options);
  if (running.server == nullptr || running.port == 0) {
    Answer("error: the echo server did not start");
    return 1;
  }
  Answer("listening " + std::to_string(running.port) +
         " core_codec=" + (CoreCodecActive() ? "1" : "0"));
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line == "stats") {
      Answer("stats " + ToWords(ReadCounters()));
    } else {
      Answer("error: unknown command: " + line);
    }
  }
  running.server->Shutdown(std::chrono::system_clock::now() +
                           std::chrono::seconds(1));
  return 0;
}

int RunClientRole(const Setup& setup, const std::string& target,
                  int max_threads) {
  std::shared_ptr<grpc::Channel> channel = ChannelFor(setup, target);
  if (!channel->WaitForConnected(std::chrono::system_clock::now() +
                                 std::chrono::seconds(10))) {
    Answer("error: could not connect to " + target);
    return 1;
  }
  auto stub = echo::Echo::NewStub(channel);
  // Long-lived threads: the pool is per thread, as in an application.
  ClientThreads clients(max_threads);
  Answer(std::string("ready core_codec=") + (CoreCodecActive() ? "1" : "0"));
  std::string line;
  while (std::getline(std::cin, line)) {
    Cell cell;
    Budget budget;
    if (!ParseRun(line, &cell, &budget) || cell.threads > max_threads) {
      Answer("error: bad command: " + line);
      continue;
    }
    const std::string payload = payloads::Make(cell.kind, cell.size);
    const RunResult run = RunCell(clients, stub.get(), cell, payload, budget);
    const DirectString answer = ToLine(run);
    std::fwrite(answer.data(), 1, answer.size(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace pooled_gzip::bench
