// Link-time routing: how a statically linked gRPC's messages reach
// pooled-gzip. Linked with the static flavour's pooled_gzip::pooled_gzip
// (or its pooled_gzip.pc), the program's link editor applies --wrap to the
// zlib entry points that gRPC's codec calls (seam/zlib_entries.def),
// whatever the link order, and nothing is written at run time: every call
// of the program to them lands in __wrap_<name>, defined here, and
// __real_<name> is zlib's
// (seam/real_zlib.h). gRPC's message codec is the only caller in gRPC's
// archives, and it reaches zlib's archive or libz.so, which are not LTO
// objects, so --wrap applies even to a gRPC built with -flto. Activation
// calls gRPC's own codec and sees the emulation serve it
// (seam/activation.h); nothing is taken on trust from what the link
// resolved.
//
// The wrappers are visible, so that a program that also loads a shared
// libgrpc (two gRPC cores, which activation refuses and names) still
// links: GNU ld wraps that library's references too, and a hidden
// definition may not serve them. The shared flavour's version script
// keeps them local there, and cannot be given --wrap (a separately linked
// __real_ would not resolve): a shared libgrpc is served by the slot
// rewrite instead.

#ifndef POOLED_GZIP_SRC_SEAM_LINK_TIME_ROUTING_H_
#define POOLED_GZIP_SRC_SEAM_LINK_TIME_ROUTING_H_

#include <zlib.h>

// __wrap_<name> for every entry point of seam/zlib_entries.def, of zlib's
// type, calling the seam's function.
#define POOLED_GZIP_ZLIB_ENTRY(name, role, field, served_by, params, args) \
  extern "C"                                                               \
      __attribute__((visibility("default"))) decltype(::name) __wrap_##name;
#include "seam/zlib_entries.def"
#undef POOLED_GZIP_ZLIB_ENTRY

#endif  // POOLED_GZIP_SRC_SEAM_LINK_TIME_ROUTING_H_
