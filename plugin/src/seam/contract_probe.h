// Admission by contract: before gRPC's calls are served, its own two codec
// functions and ours (seam/core_codec.h, kReferenceCodec) answer a fixed
// set of probes that pin core's contract, and gRPC is admitted exactly when
// every answer matches. That, not a version number, is what says a gRPC
// build calls its codec the way the core codec serves it:
// - compress: 1 only when the stream is shorter than the input, bytes
//   already in the output counted; the zlib stream byte for byte (zlib's
//   default level, gzip and deflate); 0 with refs to the input otherwise,
//   for NONE, an empty and a one-byte message, incompressible bytes;
// - decompress: both formats back to the message; NONE as refs; no slices
//   as one empty message.
// Each probe runs on gRPC's slices, as core hands them over; the probes
// take a few hundred microseconds, once per process. None fails: gRPC logs
// each failing stream ("zlib error (-3)"), and an operator would take the
// probe's for faults. What gRPC does with a failing stream is compared
// with the core codec by the tests instead, on every gRPC they run on
// (CoreCodecTest.SameResultsAndBytesAsLibgrpc).

#ifndef POOLED_GZIP_SRC_SEAM_CONTRACT_PROBE_H_
#define POOLED_GZIP_SRC_SEAM_CONTRACT_PROBE_H_

#include <optional>
#include <string>

#include "seam/core_codec.h"

namespace pooled_gzip {
namespace internal {

// nullopt if `stock` answers every probe as kReferenceCodec does; else the
// first difference, in words ("compress gzip, 4096 B of text in 3 slices:
// gRPC returned 0, pooled_gzip 1").
std::optional<std::string> FirstContractDifference(const MessageCodec& stock);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_SEAM_CONTRACT_PROBE_H_
