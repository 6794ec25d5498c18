#include "codec/zlib_backend.h"

#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "codec/core_zlib_parameters.h"
#include "codec/stream_errors.h"
#include "codec/stream_io.h"

namespace pooled_gzip {
namespace internal {
namespace {

// Counted, so that the pool's byte cap is exact (an inflate window appears
// only on first use). zfree is not told the size: each block carries it.
constexpr size_t kHeaderBytes = alignof(std::max_align_t);

voidpf CountingAlloc(voidpf opaque, uInt items, uInt size) {
  const size_t bytes = static_cast<size_t>(items) * size;
  auto* block = static_cast<char*>(std::malloc(kHeaderBytes + bytes));
  if (block == nullptr) return Z_NULL;
  std::memcpy(block, &bytes, sizeof(bytes));
  *static_cast<size_t*>(opaque) += bytes;
  return block + kHeaderBytes;
}

void CountingFree(voidpf opaque, voidpf address) {
  char* block = static_cast<char*>(address) - kHeaderBytes;
  size_t bytes;
  std::memcpy(&bytes, block, sizeof(bytes));
  *static_cast<size_t*>(opaque) -= bytes;
  std::free(block);
}

absl::Status ZlibError(absl::string_view what, const z_stream& stream,
                       int code) {
  return absl::InternalError(absl::StrCat(
      what, " failed: ", stream.msg != nullptr ? stream.msg : zError(code)));
}

absl::Status MessageTooLarge(Format format, size_t max) {
  return absl::ResourceExhaustedError(absl::StrCat(
      FormatName(format), " message inflates to more than ", max, " bytes"));
}

// A z_stream whose heap is counted. Never moved: zlib points back at it.
struct CountedStream {
  CountedStream() {
    stream.zalloc = CountingAlloc;
    stream.zfree = CountingFree;
    stream.opaque = &heap_bytes;
  }
  z_stream stream{};
  size_t heap_bytes = 0;
};

// The smallest windowBits whose window reaches back over a whole message
// of `bytes`: zlib's farthest match is 2^windowBits - 262 (MIN_LOOKAHEAD)
// back.
constexpr int WindowBitsFor(size_t bytes) {
  int bits = 9;  // zlib's least for every format
  while (bits < MAX_WBITS && (size_t{1} << bits) - 262 < bytes) ++bits;
  return bits;
}

// The smallest memLevel whose symbol buffer (2^(memLevel + 6), less one,
// ends a block) holds a message of `bytes`, so that it is one block as at
// core's memLevel; its hash has 2^(memLevel + 7) heads.
constexpr int MemLevelFor(size_t bytes) {
  int level = 1;
  while (level < MAX_MEM_LEVEL && (size_t{1} << (level + 6)) - 1 < bytes) {
    ++level;
  }
  return level;
}

class ZlibDeflater final : public Deflater {
 public:
  // Core's parameters but the level: at level 6 the bytes are core's.
  ZlibDeflater(Format format, int level)
      : ZlibDeflater(format, level, MAX_WBITS, kCoreMemLevel) {}
  ZlibDeflater(Format format, int level, int window_bits, int mem_level)
      : format_(format),
        level_(level),
        window_bits_(window_bits),
        mem_level_(mem_level) {}
  ~ZlibDeflater() override { deflateEnd(&state_.stream); }

  bool Init() {
    const int wrapper = WindowBitsOf(format_) - MAX_WBITS;
    return deflateInit2(&state_.stream, level_, kCoreMethod,
                        wrapper + window_bits_, mem_level_,
                        kCoreStrategy) == Z_OK;
  }

  absl::Status Deflate(Pieces input, size_t max_output_bytes,
                       ChunkSink* sink) override {
    z_stream& stream = state_.stream;
    const size_t budget = BudgetFor(max_output_bytes);
    // deflateBound is an upper bound, so this is normally the only chunk.
    const size_t expected =
        std::min<size_t>(deflateBound(&stream, TotalSize(input)), budget);
    OutputWindow output(&stream.next_out, &stream.avail_out, sink, budget);
    InputCursor cursor(input, 0, &stream.next_in, &stream.avail_in);
    bool more_input = cursor.Feed();
    int result = Z_OK;
    while (result != Z_STREAM_END) {
      if (stream.avail_in == 0 && more_input) more_input = cursor.Feed();
      if (stream.avail_out == 0) {
        const size_t produced = output.produced();
        if (!output.Next(expected > produced ? expected - produced : 64)) {
          return StreamTooLarge(format_, max_output_bytes);
        }
      }
      result = deflate(&stream, more_input ? Z_NO_FLUSH : Z_FINISH);
      if (result != Z_OK && result != Z_STREAM_END && result != Z_BUF_ERROR) {
        return ZlibError("deflate", stream, result);
      }
      if (output.produced() > max_output_bytes) {
        return StreamTooLarge(format_, max_output_bytes);
      }
    }
    output.Close();
    return absl::OkStatus();
  }

  bool Reset() override { return deflateReset(&state_.stream) == Z_OK; }
  size_t HeapBytes() const override {
    return state_.heap_bytes + sizeof(*this);
  }

 private:
  Format format_;
  int level_;
  int window_bits_;
  int mem_level_;
  CountedStream state_;
};

class ZlibInflater final : public Inflater {
 public:
  ZlibInflater(Format format, Strictness /*strictness*/) : format_(format) {}
  ~ZlibInflater() override { inflateEnd(&state_.stream); }

  bool Init() {
    return inflateInit2(&state_.stream, WindowBitsOf(format_)) == Z_OK;
  }

  absl::Status Inflate(Pieces input, size_t max_output_bytes,
                       ChunkSink* sink) override {
    z_stream& stream = state_.stream;
    const size_t first_guess = FirstChunkGuess(format_, input);
    OutputWindow output(&stream.next_out, &stream.avail_out, sink,
                        BudgetFor(max_output_bytes));
    InputCursor cursor(input, 0, &stream.next_in, &stream.avail_in);
    bool more_input = cursor.Feed();
    int result = Z_OK;
    while (result != Z_STREAM_END) {
      if (stream.avail_in == 0 && more_input) more_input = cursor.Feed();
      if (stream.avail_out == 0 &&
          !output.Next(output.produced() == 0 ? first_guess : kMaxChunkBytes)) {
        return MessageTooLarge(format_, max_output_bytes);
      }
      result = inflate(&stream, Z_NO_FLUSH);
      switch (result) {
        case Z_OK:
        case Z_STREAM_END:
          break;
        case Z_BUF_ERROR:
          // No progress: either the output window is full (handled above on
          // the next turn) or the input ended before the stream did.
          if (stream.avail_out != 0 && stream.avail_in == 0 && !more_input) {
            return absl::DataLossError(
                absl::StrCat(FormatName(format_), " message is truncated"));
          }
          break;
        case Z_NEED_DICT:
        case Z_DATA_ERROR:
          return absl::DataLossError(absl::StrCat(
              FormatName(format_), " message is corrupt: ",
              stream.msg != nullptr ? stream.msg : zError(result)));
        default:
          return ZlibError("inflate", stream, result);
      }
      if (output.produced() > max_output_bytes) {
        return MessageTooLarge(format_, max_output_bytes);
      }
    }
    output.Close();
    if (stream.avail_in != 0 || cursor.HasMore()) {
      return absl::DataLossError(
          absl::StrCat(FormatName(format_),
                       " message has bytes after the end of its stream"));
    }
    return absl::OkStatus();
  }

  bool Reset() override { return inflateReset(&state_.stream) == Z_OK; }
  size_t HeapBytes() const override {
    return state_.heap_bytes + sizeof(*this);
  }

 private:
  Format format_;
  CountedStream state_;
};

}  // namespace

constexpr BackendMaker kZlibMaker = MakerFor<ZlibDeflater, ZlibInflater>();

std::unique_ptr<Deflater> NewSizedZlibDeflater(Format format, int level,
                                               size_t max_message_bytes) {
  return NewReady<Deflater, ZlibDeflater>(format, level,
                                          WindowBitsFor(max_message_bytes),
                                          MemLevelFor(max_message_bytes));
}

}  // namespace internal
}  // namespace pooled_gzip
