// Built by the README's CMake snippet "cmake".
// Harness of the README's snippet "server": the service it registers. Not
// run: it would listen on a fixed port. Nothing of gRPC's included here:
// the snippet's own include must bring what it uses.
#include <memory>

#include "server.includes.inc"

namespace readme_snippet_server {

void Snippet(grpc::Service& service) {
#include "server.body.inc"
  server->Shutdown();
}

void Run() {}

}  // namespace readme_snippet_server
