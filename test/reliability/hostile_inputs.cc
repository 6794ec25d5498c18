#include "hostile_inputs.h"

#include <vector>

#include "glue/byte_buffer_access.h"
#include "plain_zlib.h"
#include "process_memory.h"
#include "raw_echo.h"
#include "zeros_deflated.h"

namespace pooled_gzip::reliability {
namespace {

using internal::Format;

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

}  // namespace

std::string ZeroBomb(size_t zeros, Format format) {
  return plain_zlib::DeflateWithZeros(PayloadFieldHeader(zeros), zeros,
                                      plain_zlib::WindowBits(format));
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
