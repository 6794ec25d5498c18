// A host that does not link pooled_gzip loads a plugin that does, sets it
// up as told, unloads it, and then builds and serves a gzip server of its
// own. Every registration the library made with gRPC outlives the plugin:
// building a server must not call into unmapped memory, and the server
// must echo.
//
//   unloaded_plugin_host PLUGIN never|served|opted_out
//                              exits 0 when every check passes.

#include <dlfcn.h>

#include <iostream>
#include <string>

#include "../package/consumer/generic_echo.h"

namespace {

bool Check(bool ok, const std::string& what) {
  if (!ok) std::cerr << "unloaded_plugin_host: " << what << "\n";
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const std::string how = argv[2];
  const int set_up = how == "never"       ? 0
                     : how == "served"    ? 1
                     : how == "opted_out" ? 2
                                          : -1;
  if (set_up < 0) return 2;

  void* plugin = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (plugin == nullptr) {
    std::cerr << dlerror() << "\n";
    return 1;
  }
  auto plugin_set_up =
      reinterpret_cast<int (*)(int)>(dlsym(plugin, "UnloadedPluginSetUp"));
  if (plugin_set_up == nullptr) return 1;
  const int active = plugin_set_up(set_up);
  bool ok = Check(active == (set_up == 1 ? 1 : 0),
                  "the plugin's core codec is " +
                      std::string(active == 1 ? "" : "not ") + "active");
  ok &= Check(dlclose(plugin) == 0, "dlclose failed");

  // gRPC builds every server with a plugin of each factory registered.
  consumer::EchoService service;
  int port = 0;
  std::unique_ptr<grpc::Server> server =
      consumer::StartGzipServer(&service, &port, [](grpc::ServerBuilder&) {});
  if (!Check(server != nullptr, "the host's server did not start")) return 1;
  grpc::GenericStub stub(consumer::GzipChannelTo(port));
  const std::string payload = consumer::CompressiblePayload();
  grpc::ByteBuffer response;
  const grpc::Status status = consumer::CallEcho(&stub, payload, &response);
  ok &= Check(status.ok() && consumer::Bytes(response) == payload,
              "the echo failed: " + status.error_message());
  server->Shutdown();
  std::cout << how << ": " << (ok ? "PASSED" : "FAILED") << std::endl;
  return ok ? 0 : 1;
}
