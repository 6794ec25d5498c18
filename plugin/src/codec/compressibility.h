#ifndef POOLED_GZIP_SRC_CODEC_COMPRESSIBILITY_H_
#define POOLED_GZIP_SRC_CODEC_COMPRESSIBILITY_H_

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace pooled_gzip {
namespace internal {

// For Options::skip_incompressible, a cheap guess before compressing:
// whether a sample spread over the concatenation of `pieces` has bytes as
// evenly distributed as random ones, within chance, or so close that coding
// single bytes would save about 1%: random, encrypted or compressed data,
// not text, JSON or protobuf. Repeats are not sampled: one random stretch
// repeated passes, though deflate would find the repeats.
bool LooksIncompressible(absl::Span<const absl::string_view> pieces);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_COMPRESSIBILITY_H_
