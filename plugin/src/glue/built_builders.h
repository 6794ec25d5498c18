// Whether a grpc::ServerBuilder has built its server, so that a set-up call
// that comes after BuildAndStart says so instead of doing nothing.
//
// ServerBuilder exposes no such state (1.51, 1.83), but every builder
// constructed after ServerBuilder::InternalAddPluginFactory holds a plugin
// of the registered factory, and BuildAndStart calls each plugin's
// UpdateServerBuilder right after the ServerBuilderOptions have run: from
// then on no option added to the builder is read. Such a plugin, registered
// at load, dies with its builder. A builder constructed before the library
// was loaded holds none, and is never reported as built. gRPC does not
// guard its list of factories, so a library dlopen()ed while another thread
// constructs a ServerBuilder races with it, as gRPC's own plugins do.

#ifndef POOLED_GZIP_SRC_GLUE_BUILT_BUILDERS_H_
#define POOLED_GZIP_SRC_GLUE_BUILT_BUILDERS_H_

#include <grpcpp/server_builder.h>

namespace pooled_gzip {
namespace internal {

// True once `builder` has started BuildAndStart; false before, or where it
// cannot be known.
bool HasBuiltItsServer(const grpc::ServerBuilder& builder);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_GLUE_BUILT_BUILDERS_H_
