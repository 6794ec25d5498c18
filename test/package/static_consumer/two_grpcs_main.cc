// A program that links the static flavour and gRPC's archives, and, through
// a forgotten target, the shared gRPC reflection add-on, which loads the
// shared libgrpc beside the static one: two gRPC cores. The library must say
// so, naming both, and not report the core codec active.
//
//   static_two_grpcs   exits 0 when the core codec is refused.

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <pooled_gzip/pooled_gzip.h>

#include <iostream>

int main() {
  // What a service does with the add-on; it also keeps the shared library
  // in the program's NEEDED whatever the linker's --as-needed.
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  const bool active = pooled_gzip::InstallCoreCodec();
  std::cout << "core codec " << (active ? "active" : "NOT active") << std::endl;
  return active ? 1 : 0;
}
