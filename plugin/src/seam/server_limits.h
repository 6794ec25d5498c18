// Every grpc::ServerBuilder server built from now on, set up through
// pooled-gzip or not, notes its receive limit for the derived
// decompression cap (codec/settings.h): the core codec serves all of them,
// so a message their limit allows must not be refused by a cap derived
// from ours alone. InstallCoreCodec() calls it once, when the core codec
// becomes active, through ServerBuilder::InternalAddPluginFactory (as gRPC's
// reflection plugin registers itself); gRPC does not guard that list, so a
// ServerBuilder constructed on another thread at that very moment races with
// it.

#ifndef POOLED_GZIP_SRC_SEAM_SERVER_LIMITS_H_
#define POOLED_GZIP_SRC_SEAM_SERVER_LIMITS_H_

namespace pooled_gzip {
namespace internal {

void NoteLimitsOfEveryServer();

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_SEAM_SERVER_LIMITS_H_
