// Shared by the fuzz targets: how they read their input, how they cut it into
// pieces and chunks, and how they judge the codec by plain zlib's answer.

#ifndef POOLED_GZIP_FUZZ_FUZZ_SUPPORT_H_
#define POOLED_GZIP_FUZZ_FUZZ_SUPPORT_H_

#include <grpcpp/support/byte_buffer.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "codec/codec.h"
#include "plain_zlib.h"
#include "pooled_gzip/options.h"

namespace pooled_gzip::fuzz {

// Ends the process with a message; libFuzzer saves the input as a crash.
[[noreturn]] void Fail(const std::string& what);

// Fixed-size header fields at the front of the input, so that seeds are
// "header + stream" and mutations of the stream leave the header alone.
class Header {
 public:
  Header(const uint8_t* data, size_t size, size_t header_bytes);
  bool ok() const { return ok_; }
  uint8_t byte(size_t i) const { return header_[i]; }
  absl::string_view rest() const { return rest_; }

 private:
  bool ok_ = false;
  std::vector<uint8_t> header_;
  absl::string_view rest_;
};

// A header byte (or some of its bits) as a backend, mod 3: 0 zlib,
// 1 libdeflate, 2 ISA-L.
Backend BackendOf(uint8_t bits);

// Makes `backend`, at its default level, the process-wide one (raw mode and
// the core codec use it); aborts if Configure refuses.
void UseBackend(Backend backend);

// A header byte as a piece size: 0 keeps the input whole.
std::vector<absl::string_view> Pieces(absl::string_view data, uint8_t size);

// A header byte as a cap on output chunks: 0 gives the codec exactly what it
// asks for; 1..127 that many bytes at most (exercising every boundary);
// 128..255 up to 128 KiB in steps of 1 KiB.
class CappedSink final : public internal::ChunkSink {
 public:
  explicit CappedSink(uint8_t cap_code);
  absl::Span<char> NextChunk(size_t size_hint) override;
  void CommitChunk(size_t used) override;
  const std::string& out() const { return out_; }
  // Bytes of all chunks handed out, used or not.
  size_t given() const { return given_; }

 private:
  size_t cap_;
  std::string chunk_;
  std::string out_;
  bool open_ = false;
  size_t given_ = 0;
};

// A buffer as gRPC hands it over in raw mode, one slice per piece, marked
// as still compressed in `format`.
grpc::ByteBuffer FlaggedBuffer(absl::Span<const absl::string_view> pieces,
                               internal::Format format);

// What plain zlib makes of an input (testing/plain_zlib.h).
using Reference = plain_zlib::Inflated;

// What a decode through the codec answered.
struct Result {
  absl::StatusCode code;
  std::string output;
};

// No limit: what raw mode's re-encoding and max_decompressed_bytes =
// SIZE_MAX give the codec, with a branch of its own in the output budget.
inline constexpr size_t kNoLimit = ~size_t{0};

// `limit` + `extra`, saturating: under kNoLimit nothing lies past the
// limit, and a plain sum would wrap to a tiny limit that every output
// passes.
size_t PastLimit(size_t limit, size_t extra);

// Fails unless `got`, decoded under `limit`, is what the codec must answer
// given what plain zlib made of the same bytes with room for limit + 2
// bytes of output (PastLimit(limit, 2)). Where the limit and an error coincide
// (exactly limit + 1 bytes before the error), either is right.
void CheckAgainstReference(const Reference& ref, size_t limit,
                           const Result& got);

}  // namespace pooled_gzip::fuzz

#endif  // POOLED_GZIP_FUZZ_FUZZ_SUPPORT_H_
