// Built by the README's CMake snippet "cmake".
// Harness of the README's snippet "limits": the server's builder. Run: the
// cap it sets must be in force.
#include <grpcpp/grpcpp.h>
#include <pooled_gzip/pooled_gzip.h>

#include <cstddef>
#include <cstdlib>
#include <iostream>

#include "limits.includes.inc"

namespace readme_snippet_limits {

void Snippet(grpc::ServerBuilder& builder) {
#include "limits.body.inc"
}

void Run() {
  grpc::ServerBuilder builder;
  Snippet(builder);
  if (pooled_gzip::GetOptions().max_decompressed_bytes != size_t{256} << 20) {
    std::cerr << "snippet limits: the cap is not in force\n";
    std::exit(1);
  }
}

}  // namespace readme_snippet_limits
