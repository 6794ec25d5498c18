// Link-time routing: how a statically linked gRPC's messages reach
// pooled-gzip. Linked with the static flavour's pooled_gzip::pooled_gzip
// (or its pooled_gzip.pc), the program's link editor applies --wrap to
// two sets of names, whatever the link order, and nothing is written at
// run time:
// - zlib's six entry points (seam/zlib_seam.h): every call of the program
//   to them lands in __wrap_<name>, defined here, and __real_<name> is
//   zlib's (seam/real_zlib.h). gRPC's message codec is the only caller in
//   gRPC's archives, and it reaches zlib's archive or libz.so, which are
//   not LTO objects, so --wrap applies even to a gRPC built with -flto.
// - gRPC's grpc_msg_compress and grpc_msg_decompress (message_compress.cc.o
//   defines exactly these): the compression filters' calls land in the core
//   codec, which writes gRPC's slices directly, where the probe admits
//   gRPC's codec (seam/contract_probe.h); __real_<name> is gRPC's own.
//   GNU ld applies no --wrap to a call between two LTO objects, so a gRPC
//   archive built with -flto keeps calling its own, which the first set
//   then serves.
// Activation calls gRPC's own codec through __real_ and sees the pools
// serve it (seam/activation.h); nothing is taken on trust from what the
// link resolved.
//
// The __real_ names are weak references: null when the program was linked
// without the options. The shared library cannot be given --wrap (a
// separately linked __real_ would not resolve), so there they stay null
// and a shared libgrpc is served by the slot rewrite instead.

#ifndef POOLED_GZIP_SRC_SEAM_LINK_TIME_ROUTING_H_
#define POOLED_GZIP_SRC_SEAM_LINK_TIME_ROUTING_H_

#include "seam/core_codec.h"

namespace pooled_gzip {
namespace internal {

// gRPC's definitions, as __real_ gives them: both null unless this program
// was linked with the options.
MessageCodec RealCodec();

// Whether the options for gRPC's two functions were in force and gRPC is
// linked into the same object as this library (with a shared libgrpc,
// __real_ resolves to it, but its calls stay inside it).
bool LinkTimeRoutingInForce();

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_SEAM_LINK_TIME_ROUTING_H_
