// Whether a second gRPC core is loaded beside the one linked into a
// program: a static gRPC plus a shared libgrpc that some other library (a
// gRPC add-on linked against the shared gRPC, say) brought in. Two cores in
// one process have two sets of globals; gRPC itself may hang, and the
// library cannot say which core's codec a message goes through.

#ifndef POOLED_GZIP_SRC_SEAM_OTHER_GRPC_H_
#define POOLED_GZIP_SRC_SEAM_OTHER_GRPC_H_

#include <optional>
#include <string>

namespace pooled_gzip {
namespace internal {

// The file of a loaded object, other than the one holding `linked_in`, that
// defines gRPC core's grpc_init; nullopt if there is none. Calls dlopen and
// dlsym: never inside a dl_iterate_phdr callback.
std::optional<std::string> OtherGrpcBeside(const void* linked_in);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_SEAM_OTHER_GRPC_H_
