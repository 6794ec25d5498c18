// libFuzzer target: every backend's decoder against the zlib backend's, and
// that against plain zlib, on the same stream, gzip and zlib, under a
// generous and a small output limit. Built twice, once per strictness
// (Options::exact_zlib_refusals):
//   - decode_diff_fuzzer, the default: a fast decoder never refuses what
//     zlib accepts, gives the same bytes whenever both accept, and refuses
//     with zlib's status code and message; it may accept what zlib refuses,
//     within the limit and with a matching checksum.
//   - decode_diff_exact_fuzzer (DECODE_DIFF_EXACT): any difference fails,
//     accept or refuse, status code and message, output bytes.
//
// A fuzzer rarely makes a stream whose checksum is right, and a lenient
// decoder's extra acceptance only shows on one. So the input is mostly a
// deflate body that this target wraps itself, with the CRC-32 and size (or
// Adler-32) of what one decoder makes of it, cut where that decoder's stream
// ends: wrapped for libdeflate or ISA-L, a body only they take passes their
// checks, and zlib must still refuse it everywhere.
//
//   input = 4 header bytes + data
//   byte 0: bits 0-1 what data is: 0 a whole stream, read as gzip and as
//           zlib; 1, 2, 3 a deflate body, wrapped in both formats for what
//           zlib (1), libdeflate (2) or ISA-L (3) makes of it (for zlib's
//           if that library refuses it)
//   byte 1: the small output limit, in units of 8 bytes (the other is
//           128 KiB); ff is no limit (SIZE_MAX, as max_decompressed_bytes =
//           SIZE_MAX and raw mode's re-encoding give the codec)
//   byte 2: input piece size (0: one piece)
//   byte 3: output chunk cap (see CappedSink)

#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "codec/codec.h"
#include "fuzz_support.h"

namespace pooled_gzip::fuzz {
namespace {

using internal::Decompress;
using internal::Format;
using internal::FormatName;
using internal::Strictness;

#ifdef DECODE_DIFF_EXACT
constexpr Strictness kStrictness = Strictness::kExactZlibRefusals;
#else
constexpr Strictness kStrictness = Strictness::kDecoder;
#endif

constexpr size_t kBigLimit = 128 * 1024;
// The most output a wrapping decoder makes; a body that yields more is
// wrapped for zlib's first kBigLimit + 2 bytes, which then fails its
// checks everywhere.
constexpr size_t kMaxWrapped = kBigLimit;

struct Body {
  std::string output;  // what the decoder made of it
  size_t length;       // where its stream ended
};

std::string GzipWrap(absl::string_view body, absl::string_view output) {
  std::string stream("\x1f\x8b\x08\0\0\0\0\0\0\x03", 10);
  stream.append(body.data(), body.size());
  const uint32_t crc = static_cast<uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(output.data()),
            static_cast<uInt>(output.size())));
  const uint32_t size = static_cast<uint32_t>(output.size());
  for (int i = 0; i < 4; ++i) stream += static_cast<char>(crc >> (8 * i));
  for (int i = 0; i < 4; ++i) stream += static_cast<char>(size >> (8 * i));
  return stream;
}

std::string ZlibWrap(absl::string_view body, absl::string_view output) {
  std::string stream("\x78\x9c", 2);
  stream.append(body.data(), body.size());
  const uint32_t adler = static_cast<uint32_t>(
      adler32(1, reinterpret_cast<const Bytef*>(output.data()),
              static_cast<uInt>(output.size())));
  for (int i = 3; i >= 0; --i) stream += static_cast<char>(adler >> (8 * i));
  return stream;
}

// Plain zlib's reading of the body, through the reference decoder: wrapped
// with a zero trailer, zlib reads the body and then the 4-byte CRC it finds
// wrong, so the body ended 14 bytes before where it stopped.
Body ByZlib(absl::string_view data) {
  const Reference ref =
      plain_zlib::Inflate(GzipWrap(data, ""), Format::kGzip, kMaxWrapped + 2);
  size_t length = data.size();
  if ((ref.outcome == Reference::Outcome::kTruncated ||
       ref.outcome == Reference::Outcome::kCorrupt) &&
      ref.consumed >= 14) {
    length = std::min(data.size(), ref.consumed - 14);
  }
  return {ref.output, length};
}

Body ByLibdeflate(absl::string_view data) {
  static libdeflate_decompressor* const decompressor =
      libdeflate_alloc_decompressor();
  std::string out(kMaxWrapped, '\0');
  size_t consumed = 0;
  size_t produced = 0;
  if (libdeflate_deflate_decompress_ex(decompressor, data.data(), data.size(),
                                       out.data(), out.size(), &consumed,
                                       &produced) != LIBDEFLATE_SUCCESS) {
    return ByZlib(data);
  }
  out.resize(produced);
  return {out, consumed};
}

Body ByIsal(absl::string_view data) {
  static inflate_state* const state = new inflate_state;
  std::string out(kMaxWrapped, '\0');
  isal_inflate_init(state);
  state->next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(data.data()));
  state->avail_in = static_cast<uint32_t>(data.size());
  state->next_out = reinterpret_cast<uint8_t*>(out.data());
  state->avail_out = static_cast<uint32_t>(out.size());
  state->crc_flag = ISAL_DEFLATE;
  if (isal_inflate_stateless(state) != ISAL_DECOMP_OK) return ByZlib(data);
  out.resize(out.size() - state->avail_out);
  // Whole bytes ISA-L read ahead are not part of its stream.
  const size_t unread = state->avail_in + state->read_in_length / 8;
  return {out, data.size() - std::min(data.size(), unread)};
}

struct Answer {
  absl::StatusCode code;
  std::string message;
  std::string output;  // only when OK
};

Answer Decode(const std::vector<absl::string_view>& pieces, Format format,
              size_t limit, Backend backend, uint8_t chunk_cap) {
  CappedSink sink(chunk_cap);
  const absl::Status status =
      Decompress(pieces, format, limit, &sink, backend, kStrictness);
  if (sink.given() > PastLimit(limit, 1)) {
    Fail(absl::StrCat(BackendName(backend), " asked the sink for ",
                      sink.given(), " bytes under a limit of ", limit));
  }
  return {status.code(), std::string(status.message()),
          status.ok() ? sink.out() : ""};
}

void CheckStream(const std::string& stream, Format format, size_t limit,
                 uint8_t piece_size, uint8_t chunk_cap) {
  const std::vector<absl::string_view> pieces = Pieces(stream, piece_size);
  const Answer zlib = Decode(pieces, format, limit, Backend::kZlib, chunk_cap);
  CheckAgainstReference(
      plain_zlib::Inflate(stream, format, PastLimit(limit, 2)), limit,
      {zlib.code, zlib.output});
  for (Backend backend : {Backend::kLibdeflate, Backend::kIsal}) {
    const Answer got = Decode(pieces, format, limit, backend, chunk_cap);
    // What the default strictness allows beyond zlib: taking a stream zlib
    // refuses, within the limit (the checksum matched, or it would not be
    // taken).
    if (kStrictness == Strictness::kDecoder &&
        zlib.code != absl::StatusCode::kOk &&
        got.code == absl::StatusCode::kOk) {
      if (got.output.size() > limit) {
        Fail(absl::StrCat(BackendName(backend), " ", FormatName(format),
                          " took a stream zlib refuses, to ", got.output.size(),
                          " bytes under a limit of ", limit));
      }
      continue;
    }
    if (got.code != zlib.code || got.message != zlib.message) {
      Fail(absl::StrCat(BackendName(backend), " ", FormatName(format),
                        " under a limit of ", limit, " said \"",
                        absl::StatusCodeToString(got.code), ": ", got.message,
                        "\", zlib \"", absl::StatusCodeToString(zlib.code),
                        ": ", zlib.message, "\""));
    }
    if (got.output != zlib.output) {
      Fail(absl::StrCat(BackendName(backend), " ", FormatName(format),
                        " output differs from zlib's"));
    }
  }
}

}  // namespace
}  // namespace pooled_gzip::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pooled_gzip;
  using namespace pooled_gzip::fuzz;
  const Header header(data, size, 4);
  if (!header.ok()) return 0;
  const absl::string_view rest = header.rest();
  std::string gzip;
  std::string zlib;
  const int kind = header.byte(0) & 3;
  if (kind == 0) {
    gzip = zlib = std::string(rest);
  } else {
    const Body body = kind == 1   ? ByZlib(rest)
                      : kind == 2 ? ByLibdeflate(rest)
                                  : ByIsal(rest);
    const absl::string_view deflate = rest.substr(0, body.length);
    gzip = GzipWrap(deflate, body.output);
    zlib = ZlibWrap(deflate, body.output);
  }
  const size_t small_limit =
      header.byte(1) == 0xff ? kNoLimit : size_t{header.byte(1)} * 8;
  for (size_t limit : {kBigLimit, small_limit}) {
    CheckStream(gzip, Format::kGzip, limit, header.byte(2), header.byte(3));
    CheckStream(zlib, Format::kDeflate, limit, header.byte(2), header.byte(3));
  }
  return 0;
}
