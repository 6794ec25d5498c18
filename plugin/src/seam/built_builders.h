// Whether a grpc::ServerBuilder has built its server, so that a set-up call
// that comes after BuildAndStart says so instead of doing nothing.
//
// ServerBuilder exposes no such state, in 1.51 or 1.83. It does make every
// builder constructed after ServerBuilder::InternalAddPluginFactory hold a
// plugin of the registered factory (as gRPC's reflection plugin registers
// itself, and seam/server_limits.h), and BuildAndStart calls each plugin's
// UpdateServerBuilder with the builder right after the ServerBuilderOptions
// have run: from then on no option added to that builder is read. This file
// registers such a plugin when the library is loaded; it dies with its
// builder, which is then forgotten. A builder constructed before the
// library was loaded holds none, and is never reported as built. gRPC does
// not guard its list of factories, so a library dlopen()ed while another
// thread constructs a ServerBuilder races with it, as gRPC's own plugins
// do.

#ifndef POOLED_GZIP_SRC_SEAM_BUILT_BUILDERS_H_
#define POOLED_GZIP_SRC_SEAM_BUILT_BUILDERS_H_

#include <grpcpp/server_builder.h>

namespace pooled_gzip {
namespace internal {

// True once `builder` has started BuildAndStart; false before, or where it
// cannot be known.
bool HasBuiltItsServer(const grpc::ServerBuilder& builder);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_SEAM_BUILT_BUILDERS_H_
