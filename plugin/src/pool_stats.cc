#include "pooled_gzip/pool_stats.h"

#include "absl/strings/str_cat.h"

namespace pooled_gzip {

std::string ToString(const PoolStats& stats) {
  return absl::StrCat(
      "created=", stats.created, " reused=", stats.reused,
      " destroyed=", stats.destroyed, " discarded=", stats.discarded,
      " rejected_by_caps=", stats.rejected_by_caps, " live=", stats.live,
      " pooled=", stats.pooled, " in_reserve=", stats.in_reserve,
      " pooled_bytes=", stats.pooled_bytes);
}

}  // namespace pooled_gzip
