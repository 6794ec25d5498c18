// Link-time routing: how a statically linked gRPC's calls to its message
// codec reach pooled-gzip. In gRPC's archives (libgrpc.a, 1.51 through
// 1.83) message_compress.cc.o defines exactly grpc_msg_compress and
// grpc_msg_decompress, and the compression filters' objects call them as
// undefined symbols. Linked with --wrap for both (the static flavour's
// pooled_gzip::pooled_gzip adds the options), every such call
// lands in __wrap_<name>, defined here, whatever the link order, and
// __real_<name> is gRPC's own definition. Nothing is written at run time,
// so the dynamic loader plays no part.
//
// __real_<name> is a weak reference: null when the program was linked
// without the options, which is how the library tells at run time whether
// the routing is in force. Only the static flavour can be routed so: the
// shared library cannot be given --wrap (a separately linked __real_ would
// not resolve), so there __real_ stays null and a shared libgrpc is served
// by the slot rewrite instead.

#ifndef POOLED_GZIP_SRC_SEAM_LINK_TIME_ROUTING_H_
#define POOLED_GZIP_SRC_SEAM_LINK_TIME_ROUTING_H_

#include "seam/core_codec.h"

namespace pooled_gzip {
namespace internal {

// gRPC's definitions, as __real_ gives them: both null unless this program
// was linked with the options.
MessageCodec RealCodec();

// Whether gRPC's own calls reach __wrap_: the options were in force and
// gRPC is linked into the same object as this library (with a shared
// libgrpc, __real_ resolves to it, but its calls stay inside it).
bool LinkTimeRoutingInForce();

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_SEAM_LINK_TIME_ROUTING_H_
