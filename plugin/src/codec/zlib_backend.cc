#include "codec/zlib_backend.h"

#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#include "absl/strings/str_cat.h"

namespace pooled_gzip {
namespace internal {
namespace {

// Large enough that a 64 KiB message compresses into one chunk, and small
// enough that the chunk plus gRPC's slice header stays under glibc's default
// mmap threshold (128 KiB): an mmap per chunk would bring back page faults.
constexpr size_t kMaxChunkBytes = 128 * 1024 - 1024;

// zlib counts in uInt; larger pieces are fed in slices of this size.
constexpr size_t kMaxZlibFeed = std::numeric_limits<uInt>::max();

// zfree is not told the size, so each block carries it in a header that
// keeps the payload maximally aligned. The count makes the pool's byte cap
// exact (an inflate window appears only on first use).
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

// Walks the input pieces, handing zlib at most kMaxZlibFeed bytes at a time.
class InputCursor {
 public:
  // A pooled stream still points at the input of its previous use.
  InputCursor(Pieces pieces, z_stream* stream)
      : pieces_(pieces), stream_(stream) {
    stream_->next_in = Z_NULL;
    stream_->avail_in = 0;
  }

  // Points the stream at the next non-empty stretch of input; false when the
  // input is exhausted.
  bool Feed() {
    while (index_ < pieces_.size() && offset_ == pieces_[index_].size()) {
      ++index_;
      offset_ = 0;
    }
    if (index_ == pieces_.size()) return false;
    const absl::string_view piece = pieces_[index_];
    const size_t n = std::min(piece.size() - offset_, kMaxZlibFeed);
    stream_->next_in =
        reinterpret_cast<Bytef*>(const_cast<char*>(piece.data() + offset_));
    stream_->avail_in = static_cast<uInt>(n);
    offset_ += n;
    return true;
  }

 private:
  Pieces pieces_;
  z_stream* stream_;
  size_t index_ = 0;
  size_t offset_ = 0;
};

// Keeps the sink's current chunk and the stream's output window in step.
class OutputWindow {
 public:
  // A pooled stream still points at the buffers of its previous use.
  OutputWindow(z_stream* stream, ChunkSink* sink)
      : stream_(stream), sink_(sink) {
    stream_->next_out = Z_NULL;
    stream_->avail_out = 0;
  }
  // Errors return with a chunk open; a sink that allocates per chunk (a
  // gRPC slice) frees or keeps it only on commit.
  ~OutputWindow() { Close(); }

  void Open(size_t size_hint) {
    absl::Span<char> chunk = sink_->NextChunk(size_hint);
    const size_t size = std::min(chunk.size(), kMaxZlibFeed);
    stream_->next_out = reinterpret_cast<Bytef*>(chunk.data());
    stream_->avail_out = static_cast<uInt>(size);
    chunk_size_ = size;
    open_ = true;
  }

  // Bytes written so far, committed or not.
  size_t produced() const {
    return committed_ + (open_ ? chunk_size_ - stream_->avail_out : 0);
  }

  void Close() {
    if (!open_) return;
    const size_t used = chunk_size_ - stream_->avail_out;
    sink_->CommitChunk(used);
    committed_ += used;
    open_ = false;
  }

 private:
  z_stream* stream_;
  ChunkSink* sink_;
  size_t chunk_size_ = 0;
  size_t committed_ = 0;
  bool open_ = false;
};

// One byte past the limit is how an oversized stream is recognised.
size_t BudgetFor(size_t max_output_bytes) {
  return max_output_bytes == std::numeric_limits<size_t>::max()
             ? max_output_bytes
             : max_output_bytes + 1;
}

absl::Status ZlibError(absl::string_view what, const z_stream& stream,
                       int code) {
  return absl::InternalError(absl::StrCat(
      what, " failed: ", stream.msg != nullptr ? stream.msg : zError(code)));
}

absl::Status TooLarge(absl::string_view what, Format format, size_t max) {
  return absl::ResourceExhaustedError(absl::StrCat(
      FormatName(format), " ", what, " more than ", max, " bytes"));
}

// A z_stream whose heap is counted. Heap-allocated by its owner, because
// zlib keeps a pointer back to the stream.
struct CountedStream {
  CountedStream() {
    stream.zalloc = CountingAlloc;
    stream.zfree = CountingFree;
    stream.opaque = &heap_bytes;
  }
  z_stream stream{};
  size_t heap_bytes = 0;
};

class ZlibDeflater final : public Deflater {
 public:
  explicit ZlibDeflater(Format format) : format_(format) {}
  ~ZlibDeflater() override { deflateEnd(&state_.stream); }

  bool Init(int level) {
    // memLevel 8 and the default strategy match gRPC core's own deflate.
    return deflateInit2(&state_.stream, level, Z_DEFLATED,
                        ZlibWindowBits(format_), 8, Z_DEFAULT_STRATEGY) == Z_OK;
  }

  absl::Status Deflate(Pieces input, size_t max_output_bytes,
                       ChunkSink* sink) override {
    z_stream& stream = state_.stream;
    const size_t budget = BudgetFor(max_output_bytes);
    // deflateBound is an upper bound, so this is normally the only chunk.
    const size_t expected =
        std::min<size_t>(deflateBound(&stream, TotalSize(input)), budget);
    OutputWindow output(&stream, sink);
    InputCursor cursor(input, &stream);
    bool more_input = cursor.Feed();
    int result = Z_OK;
    while (result != Z_STREAM_END) {
      if (stream.avail_in == 0 && more_input) more_input = cursor.Feed();
      if (stream.avail_out == 0) {
        output.Close();
        const size_t left = budget - output.produced();
        if (left == 0)
          return TooLarge("stream would be", format_, max_output_bytes);
        const size_t wanted = expected > output.produced()
                                  ? expected - output.produced()
                                  : size_t{64};
        output.Open(std::min({kMaxChunkBytes, left, wanted}));
      }
      result = deflate(&stream, more_input ? Z_NO_FLUSH : Z_FINISH);
      if (result != Z_OK && result != Z_STREAM_END && result != Z_BUF_ERROR) {
        return ZlibError("deflate", stream, result);
      }
      if (output.produced() > max_output_bytes) {
        return TooLarge("stream would be", format_, max_output_bytes);
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
  CountedStream state_;
};

class ZlibInflater final : public Inflater {
 public:
  explicit ZlibInflater(Format format) : format_(format) {}
  ~ZlibInflater() override { inflateEnd(&state_.stream); }

  bool Init() {
    return inflateInit2(&state_.stream, ZlibWindowBits(format_)) == Z_OK;
  }

  absl::Status Inflate(Pieces input, size_t max_output_bytes,
                       ChunkSink* sink) override {
    z_stream& stream = state_.stream;
    const size_t budget = BudgetFor(max_output_bytes);
    const size_t first_guess = FirstChunkGuess(input);
    OutputWindow output(&stream, sink);
    InputCursor cursor(input, &stream);
    bool more_input = cursor.Feed();
    int result = Z_OK;
    while (result != Z_STREAM_END) {
      if (stream.avail_in == 0 && more_input) more_input = cursor.Feed();
      if (stream.avail_out == 0) {
        output.Close();
        const size_t left = budget - output.produced();
        if (left == 0) {
          return TooLarge("message inflates to", format_, max_output_bytes);
        }
        output.Open(
            std::min({left, kMaxChunkBytes,
                      output.produced() == 0 ? first_guess : kMaxChunkBytes}));
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
        return TooLarge("message inflates to", format_, max_output_bytes);
      }
    }
    output.Close();
    if (stream.avail_in != 0 || cursor.Feed()) {
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
  // A first output chunk that is usually right: a gzip stream ends with its
  // size; the zlib format says nothing, so a guess. Untrusted either way:
  // the caller still caps the chunk at the budget.
  size_t FirstChunkGuess(Pieces input) const {
    if (format_ == Format::kGzip) {
      if (std::optional<uint32_t> size = GzipTrailerSize(input)) {
        // One spare byte, so that zlib reads the stream's end without
        // asking for another chunk.
        return size_t{*size} + 1;
      }
    }
    return std::max<size_t>(TotalSize(input) * 4, 256);
  }

  Format format_;
  CountedStream state_;
};

}  // namespace

int ZlibWindowBits(Format format) {
  return format == Format::kGzip ? 15 + 16 : 15;
}

std::unique_ptr<Deflater> NewZlibDeflater(Format format, int level) {
  auto deflater =
      std::unique_ptr<ZlibDeflater>(new (std::nothrow) ZlibDeflater(format));
  if (deflater == nullptr || !deflater->Init(level)) return nullptr;
  return deflater;
}

std::unique_ptr<Inflater> NewZlibInflater(Format format) {
  auto inflater =
      std::unique_ptr<ZlibInflater>(new (std::nothrow) ZlibInflater(format));
  if (inflater == nullptr || !inflater->Init()) return nullptr;
  return inflater;
}

}  // namespace internal
}  // namespace pooled_gzip
