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

  const auto* prefix_bytes = reinterpret_cast<const Bytef*>(prefix.data());
  const uint64_t total = prefix.size() + zeros;
  if (gzip) {
    uLong crc = crc32(0, prefix_bytes, static_cast<uInt>(prefix.size()));
    const uLong piece_crc = crc32(0, piece.data(), kPiece);
    for (uint64_t i = 0; i < copies; ++i) {
      crc = crc32_combine(crc, piece_crc, kPiece);
    }
    crc = crc32(crc, piece.data(), static_cast<uInt>(rest));
    for (const uint64_t value : {uint64_t{crc}, total}) {  // little-endian
      for (int shift = 0; shift < 32; shift += 8) {
        out.push_back(static_cast<char>((value >> shift) & 0xff));
      }
    }
  } else {
    uLong adler = adler32(1, prefix_bytes, static_cast<uInt>(prefix.size()));
    const uLong piece_adler = adler32(1, piece.data(), kPiece);
    for (uint64_t i = 0; i < copies; ++i) {
      adler = adler32_combine(adler, piece_adler, kPiece);
    }
    adler = adler32(adler, piece.data(), static_cast<uInt>(rest));
    for (int shift = 24; shift >= 0; shift -= 8) {  // big-endian
      out.push_back(static_cast<char>((adler >> shift) & 0xff));
    }
  }
  return out;
}

}  // namespace pooled_gzip::plain_zlib

#endif  // POOLED_GZIP_TESTING_ZEROS_DEFLATED_H_
