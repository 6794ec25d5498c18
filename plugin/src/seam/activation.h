// Activation: the one owner of whether gRPC's calls to its message codec
// are served by the pools (seam/core_codec.h), and its one entry point.
// Two routes bring gRPC's calls here, each in a file of its own:
// - link-time routing (seam/link_time_routing.h), for a gRPC linked into
//   the program, from the static flavour of the library;
// - the slot rewrite (seam/slot_rewrite.h), for a shared libgrpc, with the
//   shared flavour's exported definitions of the two functions
//   (seam/interposed_symbols.cc) for where the lookup order already leads
//   here.
// Either way gRPC is admitted by what its codec does (seam/contract_probe.h),
// and until it is, every call goes on to gRPC's own definitions.

#ifndef POOLED_GZIP_SRC_SEAM_ACTIVATION_H_
#define POOLED_GZIP_SRC_SEAM_ACTIVATION_H_

#include <string>

#include "seam/core_codec.h"

namespace pooled_gzip {
namespace internal {

// Where gRPC's calls land by any route: the pooled codec while active,
// else gRPC's own definitions (the pooled codec if none can be found).
int RoutedCompress(grpc_compression_algorithm algorithm,
                   grpc_slice_buffer* input, grpc_slice_buffer* output);
int RoutedDecompress(grpc_compression_algorithm algorithm,
                     grpc_slice_buffer* input, grpc_slice_buffer* output);

// InstallCoreCodec() and CoreCodecActive() of pooled_gzip.h: the first
// call installs (once per process) and every later call points the slots of
// objects loaded since.
bool ActivateCoreCodec();
bool IsCoreCodecActive();

// Why the core codec is or is not active, for logs and tests.
std::string CoreCodecExplanation();

// Whether ActivateCoreCodec() would make the core codec active, without
// installing it: for set-up code that must decide on the fallback before
// it knows whether its channel or server installs the codec.
bool CoreCodecInstallable();

// Points the slots of objects loaded since the last install or refresh; a
// no-op unless the codec is active through the slot rewrite and something
// was loaded. Channel and server set-up call it.
void RefreshCoreCodec();

// gRPC's own definitions, as the route in force finds them: __real_ for
// link-time routing, libgrpc's handle for a shared libgrpc. Incomplete if
// there are none to find.
const MessageCodec& Stock();

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_SEAM_ACTIVATION_H_
