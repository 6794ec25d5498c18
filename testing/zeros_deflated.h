// A decompression bomb at the cost of a MiB: `prefix` and then `zeros` zero
// bytes as one zlib or gzip stream. Header-only, on zlib alone, so that the
// package consumers (test/package/) can build it as the tests do.
//
// The deflate data of one MiB of zeros is made once and copied: after a
// full flush a block refers to nothing before it, so the same bytes are
// valid at every copy, and the trailer's checksum is combined, not summed
// over a GiB. Deflating a GiB of zeros took 36 s under qemu-user.

#ifndef POOLED_GZIP_TESTING_ZEROS_DEFLATED_H_
#define POOLED_GZIP_TESTING_ZEROS_DEFLATED_H_

#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace pooled_gzip::plain_zlib {

// window_bits as zlib's: 15 for the zlib format, 15 + 16 for gzip.
inline std::string DeflateWithZeros(std::string_view prefix, uint64_t zeros,
                                    int window_bits) {
  const bool gzip = window_bits > 15;
  z_stream stream{};
  // Raw deflate: the wrapper is written here, around copied blocks.
  if (deflateInit2(&stream, 9, Z_DEFLATED, -15, 9, Z_RLE) != Z_OK) abort();
  const auto deflate_piece = [&stream](const void* data, size_t size,
                                       int flush) {
    std::string out;
    stream.next_in = static_cast<Bytef*>(const_cast<void*>(data));
    stream.avail_in = static_cast<uInt>(size);
    char buffer[1 << 14];
    do {
      stream.next_out = reinterpret_cast<Bytef*>(buffer);
      stream.avail_out = sizeof(buffer);
      if (deflate(&stream, flush) == Z_STREAM_ERROR) abort();
      out.append(buffer, sizeof(buffer) - stream.avail_out);
    } while (stream.avail_out == 0);
    return out;
  };

  constexpr size_t kPiece = size_t{1} << 20;
  const std::vector<Bytef> piece(kPiece, 0);
  const uint64_t copies = zeros / kPiece;
  const size_t rest = static_cast<size_t>(zeros % kPiece);

  std::string out =
      gzip ? std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff", 10)
           : std::string("\x78\xda", 2);
  out += deflate_piece(prefix.data(), prefix.size(), Z_FULL_FLUSH);
  const std::string deflated_piece =
      copies > 0 ? deflate_piece(piece.data(), kPiece, Z_FULL_FLUSH) : "";
  out.reserve(out.size() + copies * deflated_piece.size() + 64);
  for (uint64_t i = 0; i < copies; ++i) out += deflated_piece;
  if (rest > 0) out += deflate_piece(piece.data(), rest, Z_FULL_FLUSH);
  out += deflate_piece(nullptr, 0, Z_FINISH);
  deflateEnd(&stream);

  // The trailer: gzip's CRC-32 and size, little-endian; zlib's Adler-32,
  // big-endian.
  const auto update = gzip ? crc32 : adler32;
  const auto combine = gzip ? crc32_combine : adler32_combine;
  const uLong empty = update(0, nullptr, 0);
  uLong check = update(empty, reinterpret_cast<const Bytef*>(prefix.data()),
                       static_cast<uInt>(prefix.size()));
  const uLong piece_check = update(empty, piece.data(), kPiece);
  for (uint64_t i = 0; i < copies; ++i) {
    check = combine(check, piece_check, kPiece);
  }
  check = update(check, piece.data(), static_cast<uInt>(rest));
  const auto put = [&out](uint64_t value, bool little_endian) {
    for (int i = 0; i < 4; ++i) {
      const int shift = little_endian ? 8 * i : 24 - 8 * i;
      out.push_back(static_cast<char>((value >> shift) & 0xff));
    }
  };
  put(check, gzip);
  if (gzip) put(prefix.size() + zeros, true);  // the size modulo 2^32
  return out;
}

}  // namespace pooled_gzip::plain_zlib

#endif  // POOLED_GZIP_TESTING_ZEROS_DEFLATED_H_
