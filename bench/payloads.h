// Deterministic message payloads for the benchmarks: the same bytes on
// every run and every machine, so that compression ratios (and so timings)
// are comparable between runs.

#ifndef POOLED_GZIP_BENCH_PAYLOADS_H_
#define POOLED_GZIP_BENCH_PAYLOADS_H_

#include <cstddef>
#include <string>
#include <vector>

namespace pooled_gzip::bench {

enum class PayloadKind {
  kText,    // English-like prose with log-style identifiers: ~3x with gzip
  kProto,   // protobuf wire format of typical records: ~2x with gzip
  kRandom,  // uniformly random bytes: incompressible
};

// "text", "proto" or "random".
const char* PayloadKindName(PayloadKind kind);

// All kinds, in report order.
const std::vector<PayloadKind>& AllPayloadKinds();

// The message sizes issue 4 asks for: 1 B, 1 KiB, 8 KiB, 64 KiB, 1 MiB.
const std::vector<size_t>& AllPayloadSizes();

// `size` bytes of `kind`. A smaller payload is a prefix of a larger one of
// the same kind.
std::string MakePayload(PayloadKind kind, size_t size);

// "1 B", "1 KiB", "64 KiB", "1 MiB".
std::string SizeLabel(size_t size);

}  // namespace pooled_gzip::bench

#endif  // POOLED_GZIP_BENCH_PAYLOADS_H_
