#include "codec/stored_stream.h"

#include <libdeflate.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace pooled_gzip {
namespace internal {
namespace {

constexpr size_t kMaxBlockBytes = 65535;  // LEN is 16 bits
constexpr size_t kBlockHeaderBytes = 5;   // BFINAL and BTYPE, LEN, NLEN

// ID1 ID2 CM FLG, no MTIME, XFL "fastest", OS "unknown"; libdeflate's.
constexpr unsigned char kGzipHeader[] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 0xff};
// A 32 KiB window, FLEVEL "fastest", FCHECK making it a multiple of 31.
constexpr unsigned char kZlibHeader[] = {0x78, 0x01};
constexpr size_t kGzipTrailerBytes = 8;  // CRC-32, ISIZE
constexpr size_t kZlibTrailerBytes = 4;  // Adler-32

size_t Blocks(size_t size) {
  return std::max<size_t>(1, (size + kMaxBlockBytes - 1) / kMaxBlockBytes);
}

// Copies into the sink's chunks, each asked for as large as what is left,
// so a sink that can give it all takes the stream in one chunk.
class ChunkWriter {
 public:
  ChunkWriter(ChunkSink* sink, size_t total) : sink_(sink), left_(total) {}
  ~ChunkWriter() {
    if (!chunk_.empty()) sink_->CommitChunk(used_);
  }

  void Put(const void* data, size_t size) {
    const auto* bytes = static_cast<const char*>(data);
    while (size > 0) {
      if (used_ == chunk_.size()) {
        if (!chunk_.empty()) sink_->CommitChunk(used_);
        chunk_ = sink_->NextChunk(left_);
        used_ = 0;
      }
      const size_t n = std::min(size, chunk_.size() - used_);
      std::memcpy(chunk_.data() + used_, bytes, n);
      used_ += n;
      left_ -= n;
      bytes += n;
      size -= n;
    }
  }

 private:
  ChunkSink* sink_;
  size_t left_;
  absl::Span<char> chunk_;
  size_t used_ = 0;
};

void PutBlockHeader(ChunkWriter* out, size_t length, bool final) {
  const unsigned char header[kBlockHeaderBytes] = {
      static_cast<unsigned char>(final ? 1 : 0),  // BTYPE 00: stored
      static_cast<unsigned char>(length),
      static_cast<unsigned char>(length >> 8),
      static_cast<unsigned char>(~length),
      static_cast<unsigned char>(~length >> 8)};
  out->Put(header, sizeof(header));
}

}  // namespace

size_t StoredStreamBytes(Format format, size_t size) {
  const size_t wrapper = format == Format::kGzip
                             ? sizeof(kGzipHeader) + kGzipTrailerBytes
                             : sizeof(kZlibHeader) + kZlibTrailerBytes;
  return wrapper + Blocks(size) * kBlockHeaderBytes + size;
}

void Store(Pieces input, Format format, ChunkSink* sink) {
  const bool gzip = format == Format::kGzip;
  const size_t size = TotalSize(input);
  ChunkWriter out(sink, StoredStreamBytes(format, size));
  if (gzip) {
    out.Put(kGzipHeader, sizeof(kGzipHeader));
  } else {
    out.Put(kZlibHeader, sizeof(kZlibHeader));
  }
  uint32_t check = gzip ? 0 : 1;  // CRC-32's and Adler-32's starting values
  size_t left = size;
  size_t block_left = 0;
  if (size == 0) PutBlockHeader(&out, 0, /*final=*/true);
  for (absl::string_view piece : input) {
    check = gzip ? libdeflate_crc32(check, piece.data(), piece.size())
                 : libdeflate_adler32(check, piece.data(), piece.size());
    while (!piece.empty()) {
      if (block_left == 0) {
        block_left = std::min(left, kMaxBlockBytes);
        PutBlockHeader(&out, block_left, /*final=*/left == block_left);
      }
      const size_t n = std::min(piece.size(), block_left);
      out.Put(piece.data(), n);
      piece.remove_prefix(n);
      block_left -= n;
      left -= n;
    }
  }
  unsigned char trailer[kGzipTrailerBytes];
  if (gzip) {
    const uint32_t isize = static_cast<uint32_t>(size);
    for (int i = 0; i < 4; ++i) {
      trailer[i] = static_cast<unsigned char>(check >> (8 * i));
      trailer[4 + i] = static_cast<unsigned char>(isize >> (8 * i));
    }
    out.Put(trailer, kGzipTrailerBytes);
  } else {
    for (int i = 0; i < 4; ++i) {
      trailer[i] = static_cast<unsigned char>(check >> (24 - 8 * i));
    }
    out.Put(trailer, kZlibTrailerBytes);
  }
}

}  // namespace internal
}  // namespace pooled_gzip
