// Built by the README's CMake snippet "cmake".
// Harness of the README's snippet "per-call": the handler's ServerContext.
#include <grpcpp/grpcpp.h>

#include "per-call.includes.inc"

namespace readme_snippet_per_call {

void Snippet(grpc::ServerContext* server_context) {
#include "per-call.body.inc"
}

void Run() {
  grpc::ServerContext server_context;
  Snippet(&server_context);
}

}  // namespace readme_snippet_per_call
