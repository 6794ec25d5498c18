// Every grpc::ServerBuilder server built from now on, set up through
// pooled-gzip or not, notes its receive limit for the derived cap
// (codec/settings.h): the core codec inflates for all of them, so a message
// their limit allows must not be refused by a cap derived from ours alone.
// InstallCoreCodec() calls it once, when received messages are served; it
// registers a plugin factory, racing as glue/built_builders.h tells.

#ifndef POOLED_GZIP_SRC_GLUE_SERVER_LIMITS_H_
#define POOLED_GZIP_SRC_GLUE_SERVER_LIMITS_H_

namespace pooled_gzip {
namespace internal {

void NoteLimitsOfEveryServer();

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_GLUE_SERVER_LIMITS_H_
