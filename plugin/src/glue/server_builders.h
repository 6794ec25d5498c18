// What the library learns from every grpc::ServerBuilder, through one
// plugin that every builder holds:
// - whether the builder has built its server, so that a set-up call that
//   comes after BuildAndStart says so instead of doing nothing;
// - the server's receive limit, for the derived cap (codec/settings.h): the
//   core codec inflates for every server of the process, set up through
//   pooled-gzip or not, so a message a server's limit allows must not be
//   refused by a cap derived from other servers' limits. Noting a limit
//   before anything is served is harmless, so a server is noted however
//   and whenever its builder was made.
//
// ServerBuilder exposes neither (1.51, 1.83), but every builder constructed
// after ServerBuilder::InternalAddPluginFactory holds a plugin of the
// registered factory, and BuildAndStart calls its UpdateServerBuilder right
// after the ServerBuilderOptions have run (from then on no option added to
// the builder is read), then its UpdateChannelArguments with the server's
// final arguments. A builder constructed before the library was loaded
// holds none.
//
// gRPC keeps the factory's address for the life of the process and does
// not guard its list of factories. So the factory is registered once, as
// the library's object is loaded (before the program can construct the
// builders it will set up, on the thread that loads it, as gRPC's own
// plugins are), and only once that object can no longer be unloaded.

#ifndef POOLED_GZIP_SRC_GLUE_SERVER_BUILDERS_H_
#define POOLED_GZIP_SRC_GLUE_SERVER_BUILDERS_H_

#include <grpcpp/server_builder.h>

namespace pooled_gzip {
namespace internal {

// Registers the plugin factory with gRPC. Call once, at load, and only
// from an object that is never unloaded.
void WatchServerBuilders();

// True once `builder` has started BuildAndStart; false before, or where it
// cannot be known.
bool HasBuiltItsServer(const grpc::ServerBuilder& builder);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_GLUE_SERVER_BUILDERS_H_
