// Activation: the one owner of whether gRPC's message codec is served by
// the pools, and its one entry point. Two routes bring gRPC's messages
// here, each in a file of its own:
// - for a shared libgrpc, the zlib seam (seam/zlib_seam.h): libgrpc's six
//   zlib imports are pointed at the pooled codec by the slot rewrite
//   (seam/slot_rewrite.h), and the core codec is active in a direction
//   only once a message through libgrpc's own exported codec function was
//   seen made by the pools in that direction. Where libgrpc also calls its
//   codec functions through slots and its codec keeps the contract
//   (seam/contract_probe.h), those are pointed at the core codec
//   (seam/core_codec.h) too, which writes gRPC's slices directly; the
//   shared flavour's exported definitions of the two functions
//   (seam/interposed_symbols.cc) serve where the lookup order already
//   leads here;
// - link-time routing (seam/link_time_routing.h), for a gRPC linked into
//   the program, from the static flavour of the library: gRPC's zlib calls
//   reach the zlib seam through --wrap, and are seen served the same way,
//   through gRPC's own codec functions (__real_); those functions reach
//   the core codec as well where the probe admits gRPC's codec.
// Until a direction is served, gRPC's calls go on to its own definitions.

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
// objects loaded since. Active: served both ways.
bool ActivateCoreCodec();
bool IsCoreCodecActive();

// Whether the pools were seen serving gRPC's own codec in one direction:
// what the fallback interceptor (compressing) and the routed calls follow.
bool CoreCodecServes(bool compressing);

// Why the core codec is or is not active, for logs and tests.
std::string CoreCodecExplanation();

// Points the slots of objects loaded since the last install or refresh; a
// no-op unless the codec serves a shared libgrpc and something was loaded.
// Channel and server set-up call it.
void RefreshCoreCodec();

// gRPC's own definitions, as the route in force finds them: __real_ for
// link-time routing, libgrpc's handle for a shared libgrpc. Incomplete if
// there are none to find.
const MessageCodec& Stock();

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_SEAM_ACTIVATION_H_
