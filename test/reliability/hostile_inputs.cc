#include "hostile_inputs.h"

#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "process_memory.h"
#include "raw_echo.h"
#include "seam/byte_buffer_access.h"

namespace pooled_gzip::reliability {
namespace {

using internal::Format;

int WindowBits(Format format) { return format == Format::kGzip ? 31 : 15; }

// A protobuf length-delimited field 1 header: tag, then varint length.
std::string PayloadFieldHeader(size_t length) {
  std::string header(1, '\x0a');
  do {
    char byte = static_cast<char>(length & 0x7f);
    length >>= 7;
    if (length != 0) byte = static_cast<char>(byte | 0x80);
    header.push_back(byte);
  } while (length != 0);
  return header;
}

// Streams input through deflate, appending to `out`.
void Deflate(z_stream* stream, absl::string_view input, int flush,
             std::string* out) {
  stream->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  stream->avail_in = static_cast<uInt>(input.size());
  char buffer[64 * 1024];
  do {
    stream->next_out = reinterpret_cast<Bytef*>(buffer);
    stream->avail_out = sizeof(buffer);
    const int result = deflate(stream, flush);
    if (result == Z_STREAM_ERROR) std::abort();
    out->append(buffer, sizeof(buffer) - stream->avail_out);
  } while (stream->avail_out == 0);
}

}  // namespace

std::string ZeroBomb(size_t zeros, Format format) {
  z_stream stream{};
  // Z_RLE finds the same 258-byte runs as the default strategy at half the
  // time; the result is the same size.
  if (deflateInit2(&stream, 9, Z_DEFLATED, WindowBits(format), 8, Z_RLE) !=
      Z_OK) {
    std::abort();
  }
  std::string out;
  Deflate(&stream, PayloadFieldHeader(zeros), Z_NO_FLUSH, &out);
  const std::vector<char> block(1 << 20, '\0');
  while (zeros > 0) {
    const size_t n = std::min(zeros, block.size());
    Deflate(&stream, absl::string_view(block.data(), n), Z_NO_FLUSH, &out);
    zeros -= n;
  }
  Deflate(&stream, "", Z_FINISH, &out);
  deflateEnd(&stream);
  return out;
}

std::string PlainCompress(absl::string_view data, Format format) {
  z_stream stream{};
  if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED,
                   WindowBits(format), 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    std::abort();
  }
  std::string out;
  Deflate(&stream, data, Z_FINISH, &out);
  deflateEnd(&stream);
  return out;
}

grpc::ByteBuffer FlaggedBuffer(absl::string_view bytes,
                               grpc_compression_algorithm algorithm,
                               size_t slice_bytes) {
  std::vector<grpc::Slice> slices;
  for (size_t offset = 0; offset < bytes.size(); offset += slice_bytes) {
    const absl::string_view piece = bytes.substr(offset, slice_bytes);
    slices.emplace_back(piece.data(), piece.size());
  }
  grpc::ByteBuffer buffer(slices.data(), slices.size());
  // What core does with per-message decompression off.
  internal::CByteBuffer(buffer)->data.raw.compression = algorithm;
  return buffer;
}

FlaggedCall SendFlaggedGzip(const std::shared_ptr<grpc::Channel>& channel,
                            absl::string_view gzip) {
  const grpc::ByteBuffer request =
      FlaggedBuffer(gzip, GRPC_COMPRESS_GZIP, 16 * 1024);
  grpc::ClientContext context;
  context.set_compression_algorithm(GRPC_COMPRESS_GZIP);
  grpc::ByteBuffer reply;
  FlaggedCall call;
  ResetPeakRss();
  call.rss_before = CurrentRssBytes();
  call.status = echo::RawUnary(channel, &context, request, &reply);
  call.peak_rss = PeakRssBytes();
  return call;
}

}  // namespace pooled_gzip::reliability
