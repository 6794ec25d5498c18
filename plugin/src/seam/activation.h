// Activation: the one owner of whether gRPC's message codec is served by
// the pools, and its one entry point. gRPC's messages reach the pools by
// one route, gRPC's own calls to zlib (seam/zlib_seam.h): through the six
// relocation slots of a shared libgrpc (seam/slot_rewrite.h), or through
// the static flavour's --wrap of the same names (seam/link_time_routing.h).
// A direction is served only once seen: activation calls gRPC's own
// grpc_msg_compress and grpc_msg_decompress on gzip and deflate messages,
// and the emulation must have made each of those streams on the calling
// thread. Until a direction's state says served, the emulation hands its
// streams to real zlib, so what activation reports is what runs.

#ifndef POOLED_GZIP_SRC_SEAM_ACTIVATION_H_
#define POOLED_GZIP_SRC_SEAM_ACTIVATION_H_

#include <string>

#include "absl/status/status.h"
#include "pooled_gzip/pooled_gzip.h"

namespace pooled_gzip {
namespace internal {

// One direction's ServingState (pooled_gzip.h); one atomic read, set once
// per process.
ServingState StateOf(bool compressing);

// InstallCoreCodec() of pooled_gzip.h: the first call decides and logs
// once; every later call points the slots of objects loaded since.
// Returns whether both directions are served.
bool InstallCoreCodec();

// CoreCodecActive(): both directions served.
bool CoreCodecActive();

// What was concluded, in the log line's words; "not installed" before the
// first install. Installs nothing.
std::string CoreCodecExplanation();

// GetCoreCodecState() and CoreCodecStatus() of pooled_gzip.h: the state the
// log line and the emulation read. Install nothing.
CoreCodecState CurrentState();
absl::Status ActivationStatus();

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_SEAM_ACTIVATION_H_
