// The rules zlib enforces on a deflate body that the fast decoders do not:
// libdeflate 1.14 and ISA-L 2.30 decode, to output that passes the checksum,
// some bodies zlib 1.2.13 refuses.
//   - libdeflate decodes the reserved literal/length symbols 286 and 287 (as
//     length 258) and distance symbols 30 and 31 (as 24577 + 13 bits) in
//     fixed blocks; accepts dynamic headers declaring up to 288 and 32 such
//     symbols, whose codes may then use them; lets a code-length repeat run
//     past the declared symbols; and decodes the unused codeword of a
//     one-symbol code and any distance of an empty distance code (as
//     distance 1), where zlib finds an invalid code.
//   - ISA-L accepts incomplete Huffman codes (code lengths, literal/length
//     and distance): a body that never uses the missing codewords decodes.
// Both check the rest: distances, truncation, stored lengths, checksums.

#ifndef POOLED_GZIP_SRC_CODEC_ZLIB_RULES_H_
#define POOLED_GZIP_SRC_CODEC_ZLIB_RULES_H_

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace pooled_gzip {
namespace internal {

// Whether the deflate body that starts `skip` bytes into the concatenation
// of `pieces` keeps those rules up to the end of its final block. False
// also for anything this cannot follow (bad block type or stored lengths,
// input that ends first): the caller then lets zlib decide. A final block
// whose two codes are complete is not read: then no codeword breaks a rule.
bool MeetsZlibRules(absl::Span<const absl::string_view> pieces, size_t skip);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_ZLIB_RULES_H_
