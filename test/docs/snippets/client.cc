// Built by the README's CMake snippet "cmake".
// Harness of the README's snippet "client". Run: creating a channel does
// not connect.
#include <grpcpp/grpcpp.h>
#include <pooled_gzip/pooled_gzip.h>

#include <memory>

#include "client.includes.inc"

namespace readme_snippet_client {

void Run() {
#include "client.body.inc"
}

}  // namespace readme_snippet_client
