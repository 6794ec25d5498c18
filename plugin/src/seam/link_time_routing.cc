#include "seam/link_time_routing.h"

#include "seam/zlib_seam.h"

#define POOLED_GZIP_ZLIB_ENTRY(name, role, field, served_by, params, args) \
  int __wrap_##name params { return pooled_gzip::internal::served_by args; }
#include "seam/zlib_entries.def"
#undef POOLED_GZIP_ZLIB_ENTRY
