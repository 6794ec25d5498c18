// Deterministic message payloads shaped like real traffic, shared by the
// tests and the benchmarks: the same bytes for the same
// (kind, size, seed) on every run, machine and standard library, so that
// compression ratios, and with them timings, compare between runs.
//
// Every kind is a stream cut to the size asked for: a payload is a prefix
// of any longer payload of the same kind and seed. Structured kinds are
// therefore usually cut mid-element; kRecords is a RecordBatch
// (proto/records.proto) that parses whenever the cut falls on a record
// boundary.

#ifndef POOLED_GZIP_TESTING_PAYLOADS_H_
#define POOLED_GZIP_TESTING_PAYLOADS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pooled_gzip::payloads {

enum class Kind {
  // "words": random words from a list of twenty and spaces, the echo
  // helpers' default payload (echo::MakePayload).
  kWords,
  // "text": English-like prose with log-style identifiers.
  kProse,
  // "proto": a serialized pooled_gzip.payloads.RecordBatch of user
  // records (ids, names, emails, timestamps, an enum, repeated and nested
  // fields), grown a record at a time to at least `size` bytes, then cut
  // at `size`.
  kRecords,
  // "json": the records of kRecords with the same seed, as an API would
  // send them: {"items":[{"id":...},{...},...
  kJson,
  // "source": C++-like source code, comments and indentation included.
  kSource,
  // "random": uniformly random bytes, incompressible.
  kRandom,
};

// The name reports and flags use: "words", "text", "proto", "json",
// "source" or "random".
const char* KindName(Kind kind);

// The kind named `name`: a KindName, or "prose" and "records", the enum's
// spellings of "text" and "proto".
std::optional<Kind> ParseKind(std::string_view name);

// All kinds, in enum order.
const std::vector<Kind>& AllKinds();

// `size` bytes of `kind`; `seed` picks one of many payloads of that kind.
std::string Make(Kind kind, size_t size, uint32_t seed = 0);

// The message sizes the benchmarks use: 1 B, 1 KiB, 8 KiB, 64 KiB, 1 MiB.
const std::vector<size_t>& AllSizes();

// "1 B", "1 KiB", "64 KiB", "1 MiB"; plain bytes unless a whole number of
// KiB or MiB.
std::string SizeLabel(size_t size);

}  // namespace pooled_gzip::payloads

#endif  // POOLED_GZIP_TESTING_PAYLOADS_H_
