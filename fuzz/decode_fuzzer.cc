// libFuzzer target: the decoder, gzip and zlib, with an output limit, fed
// through the codec (input in pieces, output in capped chunks) or through
// raw mode (a multi-slice grpc::ByteBuffer). Every result is checked against
// plain zlib (but a raw-mode buffer of no slices against gRPC's own decoder:
// the empty message), so the fuzzer finds wrong answers as well as memory
// errors:
//
//   input = 6 header bytes + the compressed message
//   byte 0: bit 0 format (0 gzip, 1 zlib); bit 1 path (0 codec, 1 raw mode);
//           bits 2-7 mod 3 the backend that decodes (0 zlib, 1 libdeflate,
//           2 ISA-L), so each backend's decoder is held to zlib's answers,
//           except that a fast one may take a stream zlib finds corrupt
//           (Options::exact_zlib_refusals off; decode_diff_fuzzer checks
//           what it may make of one)
//   bytes 1-3: output limit, big-endian, modulo 1 MiB + 1; ff ff ff is no
//              limit (SIZE_MAX, as max_decompressed_bytes = SIZE_MAX and
//              raw mode's re-encoding give the codec)
//   byte 4: input piece size (0: one piece)
//   byte 5: output chunk cap (see CappedSink)
//
// Each message is decoded twice, the second time on the context the first
// returned to the pool, and must give the same answer; then a known-good
// message must still decode on this thread.

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "codec/codec.h"
#include "fuzz_support.h"
#include "pooled_gzip/raw_mode.h"

namespace pooled_gzip::fuzz {
namespace {

using internal::CompressToString;
using internal::Decompress;
using internal::DecompressToString;
using internal::Format;

constexpr size_t kMaxLimit = size_t{1} << 20;
constexpr size_t kNoLimitCode = 0xffffff;

// Raw mode decodes with the configured backend; so does the codec here.
Result DecodeOnce(const Header& header, Format format, Backend backend,
                  size_t limit) {
  const std::vector<absl::string_view> pieces =
      Pieces(header.rest(), header.byte(4));
  if ((header.byte(0) & 2) != 0) {
    std::string out;
    const grpc::Status status =
        DecodeToString(FlaggedBuffer(pieces, format), &out, limit);
    return {static_cast<absl::StatusCode>(status.error_code()), out};
  }
  CappedSink sink(header.byte(5));
  const absl::Status status = Decompress(pieces, format, limit, &sink, backend);
  if (sink.given() > PastLimit(limit, 1)) {
    Fail(absl::StrCat("sink was asked for ", sink.given(),
                      " bytes under a limit of ", limit));
  }
  return {status.code(), sink.out()};
}

void CheckErrorOutputIsEmpty(const Header& header, const Result& got) {
  // Raw mode promises an empty string on error; the codec leaves partial
  // output in the sink, for the caller to drop.
  if ((header.byte(0) & 2) != 0 && got.code != absl::StatusCode::kOk &&
      !got.output.empty()) {
    Fail("raw mode returned output with an error");
  }
}

constexpr absl::string_view kKnownGood = "known good message";

std::string KnownGoodCompressed(Format format) {
  std::string out;
  const absl::Status status = CompressToString(kKnownGood, {format, 6}, &out);
  if (!status.ok()) Fail("Compress: " + status.ToString());
  return out;
}

void ExpectKnownGoodStillDecodes(Format format, Backend backend) {
  static const std::string* const kGzip =
      new std::string(KnownGoodCompressed(Format::kGzip));
  static const std::string* const kZlib =
      new std::string(KnownGoodCompressed(Format::kDeflate));
  std::string out;
  const absl::Status status = DecompressToString(
      format == Format::kGzip ? *kGzip : *kZlib, format, 1024, &out, backend);
  if (!status.ok() || out != kKnownGood) {
    Fail("a pooled context was left unusable: " + status.ToString());
  }
}

}  // namespace
}  // namespace pooled_gzip::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pooled_gzip;
  using namespace pooled_gzip::fuzz;
  const Header header(data, size, 6);
  if (!header.ok()) return 0;
  const Format format =
      (header.byte(0) & 1) != 0 ? Format::kDeflate : Format::kGzip;
  const Backend backend = BackendOf(header.byte(0) >> 2);
  UseBackend(backend);
  const size_t limit_code = (size_t{header.byte(1)} << 16) |
                            (size_t{header.byte(2)} << 8) | header.byte(3);
  const size_t limit =
      limit_code == kNoLimitCode ? kNoLimit : limit_code % (kMaxLimit + 1);
  Reference ref =
      plain_zlib::Inflate(header.rest(), format, PastLimit(limit, 2));
  // Raw mode reads a buffer of no slices as the empty message, as gRPC's
  // own decoder does; plain zlib finds no stream in no bytes.
  if ((header.byte(0) & 2) != 0 &&
      Pieces(header.rest(), header.byte(4)).empty()) {
    ref = Reference{Reference::Outcome::kStream, ""};
  }
  const Result first = DecodeOnce(header, format, backend, limit);
  const bool taken_leniently = backend != Backend::kZlib &&
                               ref.outcome == Reference::Outcome::kCorrupt &&
                               first.code == absl::StatusCode::kOk &&
                               first.output.size() <= limit;
  if (!taken_leniently) CheckAgainstReference(ref, limit, first);
  CheckErrorOutputIsEmpty(header, first);
  const Result second = DecodeOnce(header, format, backend, limit);
  if (second.code != first.code || second.output != first.output) {
    Fail("a second decode, on a pooled context, answered differently");
  }
  ExpectKnownGoodStillDecodes(format, backend);
  return 0;
}
