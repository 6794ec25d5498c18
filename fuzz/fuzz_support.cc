#include "fuzz_support.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "codec/backend_table.h"
#include "glue/byte_buffer_access.h"

namespace pooled_gzip::fuzz {

using internal::Format;

void Fail(const std::string& what) {
  std::fprintf(stderr, "fuzz check failed: %s\n", what.c_str());
  std::abort();
}

Header::Header(const uint8_t* data, size_t size, size_t header_bytes) {
  if (size < header_bytes) return;
  ok_ = true;
  header_.assign(data, data + header_bytes);
  rest_ = absl::string_view(reinterpret_cast<const char*>(data) + header_bytes,
                            size - header_bytes);
}

Backend BackendOf(uint8_t bits) {
  return internal::kAllBackends[bits % internal::kBackendCount];
}

std::vector<absl::string_view> Pieces(absl::string_view data, uint8_t size) {
  if (size == 0) return {data};
  std::vector<absl::string_view> pieces;
  for (size_t i = 0; i < data.size(); i += size) {
    pieces.push_back(data.substr(i, size));
  }
  return pieces;
}

CappedSink::CappedSink(uint8_t cap_code)
    : cap_(cap_code == 0    ? ~size_t{0}
           : cap_code < 128 ? cap_code
                            : (size_t{cap_code} - 127) * 1024) {}

absl::Span<char> CappedSink::NextChunk(size_t size_hint) {
  if (open_) Fail("NextChunk before CommitChunk");
  if (size_hint == 0) Fail("NextChunk asked for 0 bytes");
  open_ = true;
  chunk_.assign(std::min(size_hint, cap_), '\0');
  given_ += chunk_.size();
  return absl::MakeSpan(chunk_);
}

void CappedSink::CommitChunk(size_t used) {
  if (!open_) Fail("CommitChunk without NextChunk");
  if (used > chunk_.size()) Fail("CommitChunk past the chunk");
  open_ = false;
  out_.append(chunk_.data(), used);
}

grpc::ByteBuffer FlaggedBuffer(absl::Span<const absl::string_view> pieces,
                               Format format) {
  std::vector<grpc::Slice> slices;
  for (absl::string_view piece : pieces) {
    slices.emplace_back(piece.data(), piece.size());
  }
  grpc::ByteBuffer buffer(slices.data(), slices.size());
  internal::CByteBuffer(buffer)->data.raw.compression =
      format == Format::kGzip ? GRPC_COMPRESS_GZIP : GRPC_COMPRESS_DEFLATE;
  return buffer;
}

void UseBackend(Backend backend) {
  Options options = GetOptions();
  options.backend = backend;
  options.level = kDefaultLevel;
  if (!Configure(options).ok()) Fail("Configure");
}

size_t PastLimit(size_t limit, size_t extra) {
  return limit > kNoLimit - extra ? kNoLimit : limit + extra;
}

void CheckAgainstReference(const Reference& ref, size_t limit,
                           const Result& got) {
  using Outcome = Reference::Outcome;
  const size_t produced = ref.output.size();
  const bool over = produced > limit;
  auto expect = [&](absl::StatusCode code) {
    if (got.code != code) {
      Fail(absl::StrCat("expected code ", static_cast<int>(code), ", got ",
                        static_cast<int>(got.code), "; reference outcome ",
                        static_cast<int>(ref.outcome), " after ", produced,
                        " bytes, limit ", limit));
    }
  };
  switch (ref.outcome) {
    case Outcome::kStream:
      if (over) return expect(absl::StatusCode::kResourceExhausted);
      expect(absl::StatusCode::kOk);
      if (got.output != ref.output) Fail("output differs from zlib's");
      return;
    case Outcome::kTrailingBytes:
      return expect(over ? absl::StatusCode::kResourceExhausted
                         : absl::StatusCode::kDataLoss);
    case Outcome::kOutputExceeded:
      return expect(absl::StatusCode::kResourceExhausted);
    case Outcome::kTruncated:
    case Outcome::kCorrupt:
      if (produced == PastLimit(limit, 1) &&
          got.code == absl::StatusCode::kResourceExhausted) {
        return;
      }
      return expect(produced > PastLimit(limit, 1)
                        ? absl::StatusCode::kResourceExhausted
                        : absl::StatusCode::kDataLoss);
  }
}

}  // namespace pooled_gzip::fuzz
