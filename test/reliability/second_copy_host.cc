// A process on the shared library with its own cap, into which a plugin
// with a second copy of pooled_gzip is loaded and installs that copy's
// core codec with a smaller cap. The first copy must keep serving gRPC:
// its 20 MiB echo still passes under its 64 MiB cap, its counters move
// (and count nothing of the plugin's), and the plugin's copy does not
// report active. Then the plugin is unloaded, and a server built after it
// still echoes: what the refused copy registered with gRPC outlives it.
//
//   second_copy_host PLUGIN   exits 0 when every check passes.

#include <dlfcn.h>
#include <pooled_gzip/pooled_gzip.h>

#include <cstdint>
#include <iostream>
#include <string>

#include "../package/consumer/generic_echo.h"

namespace {

constexpr size_t kHostCap = 64 << 20;
constexpr size_t kPluginCap = 8 << 20;
constexpr size_t kMessageBytes = 20 << 20;

// The host's counters: messages its pools compressed or inflated.
uint64_t Messages(bool compressing) {
  uint64_t messages = 0;
  for (const pooled_gzip::TrafficStats& row : pooled_gzip::GetTrafficStats()) {
    if (row.compressing == compressing) messages += row.messages;
  }
  return messages;
}

uint64_t AllMessages() { return Messages(true) + Messages(false); }

bool Check(bool ok, const char* what) {
  if (!ok) std::cerr << "second_copy_host: " << what << "\n";
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  pooled_gzip::Options options;
  options.max_decompressed_bytes = kHostCap;
  if (!pooled_gzip::Configure(options).ok()) return 1;

  consumer::EchoService service;
  int port = 0;
  std::unique_ptr<grpc::Server> server = consumer::StartGzipServer(
      &service, &port, [](grpc::ServerBuilder& builder) {
        builder.SetMaxReceiveMessageSize(-1);
        builder.SetMaxSendMessageSize(-1);
        pooled_gzip::EnableOnServer(builder);
      });
  if (server == nullptr) return 1;
  grpc::ChannelArguments args;
  args.SetCompressionAlgorithm(GRPC_COMPRESS_GZIP);
  args.SetMaxReceiveMessageSize(-1);
  auto channel =
      pooled_gzip::CreateChannel("127.0.0.1:" + std::to_string(port),
                                 grpc::InsecureChannelCredentials(), args);
  grpc::GenericStub stub(channel);
  bool ok = Check(pooled_gzip::CoreCodecActive(),
                  "the host's core codec is not active");

  const uint64_t messages_before_plugin = AllMessages();
  void* plugin = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (plugin == nullptr) {
    std::cerr << dlerror() << "\n";
    return 1;
  }
  auto install =
      reinterpret_cast<int (*)(size_t)>(dlsym(plugin, "SecondCopyInstall"));
  if (install == nullptr) return 1;
  const int plugin_active = install(kPluginCap);
  std::cout << "the plugin's copy: core codec "
            << (plugin_active == 1 ? "active" : "NOT active") << "\n";
  ok &= Check(plugin_active == 0, "the plugin's copy reports active");
  ok &= Check(pooled_gzip::CoreCodecActive(),
              "the host's core codec is no longer active");
  ok &= Check(AllMessages() == messages_before_plugin,
              "the plugin's copy sent messages through the host's counters");

  std::string message;
  while (message.size() < kMessageBytes) {
    message += "a 20 MiB message, within the host's cap of 64 MiB; ";
  }
  const uint64_t compressed_before = Messages(true);
  const uint64_t inflated_before = Messages(false);
  grpc::ByteBuffer response;
  const grpc::Status status = consumer::CallEcho(&stub, message, &response);
  const uint64_t compressed = Messages(true) - compressed_before;
  const uint64_t inflated = Messages(false) - inflated_before;
  std::cout << "20 MiB echo: status " << status.error_code() << " "
            << status.error_message() << "; the host compressed " << compressed
            << " and inflated " << inflated << " messages\n";
  ok &= Check(status.ok() && consumer::Bytes(response) == message,
              "the 20 MiB echo failed");
  ok &= Check(compressed == 2 && inflated == 2,
              "the host's counters did not move");
  server->Shutdown();

  ok &= Check(dlclose(plugin) == 0, "dlclose failed");
  consumer::EchoService after_service;
  int after_port = 0;
  std::unique_ptr<grpc::Server> after = consumer::StartGzipServer(
      &after_service, &after_port, [](grpc::ServerBuilder&) {});
  if (!Check(after != nullptr, "no server starts after the unload")) return 1;
  grpc::GenericStub after_stub(
      pooled_gzip::CreateChannel("127.0.0.1:" + std::to_string(after_port),
                                 grpc::InsecureChannelCredentials(), args));
  const std::string small = consumer::CompressiblePayload();
  const grpc::Status after_status =
      consumer::CallEcho(&after_stub, small, &response);
  ok &= Check(after_status.ok() && consumer::Bytes(response) == small,
              "the echo after the plugin's unload failed");
  after->Shutdown();
  std::cout << (ok ? "PASSED" : "FAILED") << std::endl;
  return ok ? 0 : 1;
}
