// libFuzzer target: compress, then decompress, any bytes with any backend at
// any of its levels in either format, through the codec (input in pieces,
// output in capped chunks) or through raw mode (EncodeBytes, then
// DecodeToString). Plain zlib must read back exactly the input; so must the
// codec, with the input's size as its limit and with none (SIZE_MAX), and
// one byte less must be refused; so must the other backends' decoders.
// Compressing twice, the second time on the pooled context of the first,
// must give the same bytes.
//
//   input = 3 header bytes + the payload
//   byte 0: bit 0 format (0 gzip, 1 zlib); bits 1-4 level (n % (max + 2)
//           - 1, max the backend's highest level); bit 5 path (0 codec,
//           1 raw mode); bits 6-7 mod 3 the backend (0 zlib, 1 libdeflate,
//           2 ISA-L)
//   byte 1: input piece size (0: one piece)
//   byte 2: output chunk cap (see CappedSink)

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "codec/backend.h"
#include "codec/codec.h"
#include "fuzz_support.h"
#include "pooled_gzip/raw_mode.h"

namespace pooled_gzip::fuzz {
namespace {

using internal::Compress;
using internal::CompressOptions;
using internal::Decompress;
using internal::Format;

std::string BufferBytes(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  if (!buffer.Dump(&slices).ok()) Fail("ByteBuffer::Dump");
  std::string bytes;
  for (const grpc::Slice& slice : slices) {
    bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  }
  return bytes;
}

// The compressed form, by the path the header picks.
std::string CompressOnce(const Header& header, const CompressOptions& options) {
  if ((header.byte(0) & 0x20) != 0) {
    const grpc_compression_algorithm algorithm = options.format == Format::kGzip
                                                     ? GRPC_COMPRESS_GZIP
                                                     : GRPC_COMPRESS_DEFLATE;
    grpc::ByteBuffer buffer;
    const grpc::Status status =
        EncodeBytes(header.rest(), algorithm, &buffer, options.level);
    if (!status.ok()) Fail("EncodeBytes: " + status.error_message());
    if (ReceivedCompression(buffer) != algorithm) {
      Fail("EncodeBytes did not mark the buffer as compressed");
    }
    // And raw mode reads it back, within exactly the payload's size and
    // without a limit.
    for (size_t limit : {header.rest().size(), kNoLimit}) {
      std::string out;
      const grpc::Status decoded = DecodeToString(buffer, &out, limit);
      if (!decoded.ok() || out != header.rest()) {
        Fail(absl::StrCat("DecodeToString(EncodeBytes(x)) != x under a limit ",
                          "of ", limit, ": ", decoded.error_message()));
      }
    }
    return BufferBytes(buffer);
  }
  CappedSink sink(header.byte(2));
  const absl::Status status =
      Compress(Pieces(header.rest(), header.byte(1)), options, &sink);
  if (!status.ok()) Fail("Compress: " + status.ToString());
  return sink.out();
}

}  // namespace
}  // namespace pooled_gzip::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pooled_gzip;
  using namespace pooled_gzip::fuzz;
  const Header header(data, size, 3);
  if (!header.ok()) return 0;
  CompressOptions options;
  options.format = (header.byte(0) & 1) != 0 ? Format::kDeflate : Format::kGzip;
  options.backend = BackendOf(header.byte(0) >> 6);
  // One of the backend's levels, or -1 for its default.
  const int choices = internal::LevelsOf(options.backend).max + 2;
  options.level = ((header.byte(0) >> 1) & 0xf) % choices - 1;
  // Raw mode compresses and decodes with the configured backend.
  UseBackend(options.backend);
  const absl::string_view payload = header.rest();

  const std::string compressed = CompressOnce(header, options);
  const Reference ref =
      plain_zlib::Inflate(compressed, options.format, payload.size() + 1);
  if (ref.outcome != Reference::Outcome::kStream || ref.output != payload) {
    Fail(absl::StrCat("plain zlib cannot read back the payload: outcome ",
                      static_cast<int>(ref.outcome)));
  }
  if (CompressOnce(header, options) != compressed) {
    Fail("compressing again on a pooled context gave different bytes");
  }

  const std::vector<absl::string_view> pieces =
      Pieces(compressed, header.byte(1));
  for (uint8_t reader = 0; reader < 3; ++reader) {
    const Backend backend = BackendOf(reader);
    CappedSink exact(header.byte(2));
    const absl::Status status =
        Decompress(pieces, options.format, payload.size(), &exact, backend);
    if (!status.ok() || exact.out() != payload) {
      Fail(absl::StrCat("Decompress(Compress(x)) != x reading with backend ",
                        reader, ": ", status.ToString()));
    }
    // No limit at all (SIZE_MAX) takes the budget's branch of its own.
    CappedSink unlimited(header.byte(2));
    const absl::Status unlimited_status =
        Decompress(pieces, options.format, kNoLimit, &unlimited, backend);
    if (!unlimited_status.ok() || unlimited.out() != payload) {
      Fail(absl::StrCat("Decompress(Compress(x)) != x without a limit, ",
                        "reading with backend ", reader, ": ",
                        unlimited_status.ToString()));
    }
    if (!payload.empty() && backend == options.backend) {
      CappedSink short_sink(header.byte(2));
      if (Decompress(pieces, options.format, payload.size() - 1, &short_sink,
                     backend)
              .code() != absl::StatusCode::kResourceExhausted) {
        Fail("a limit one byte short was not RESOURCE_EXHAUSTED");
      }
    }
  }
  return 0;
}
