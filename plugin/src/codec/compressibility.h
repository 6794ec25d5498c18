// A cheap guess, before any compression, that deflate would not make a
// message meaningfully smaller: for Options::skip_incompressible.

#ifndef POOLED_GZIP_SRC_CODEC_COMPRESSIBILITY_H_
#define POOLED_GZIP_SRC_CODEC_COMPRESSIBILITY_H_

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace pooled_gzip {
namespace internal {

// Whether the bytes of a sample spread over the concatenation of `pieces`
// are as evenly distributed as random bytes, within what a sample of that
// size varies by, give or take what a 1% saving from coding single bytes
// would need. Random, encrypted and already-compressed data pass; text,
// JSON, source, protobuf records and anything else with a skewed byte
// distribution do not. Only byte frequencies are sampled, not repeats: a
// message made of one random stretch repeated would be judged
// incompressible though deflate would find the repeats.
bool LooksIncompressible(absl::Span<const absl::string_view> pieces);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_COMPRESSIBILITY_H_
