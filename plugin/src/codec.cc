#include "pooled_gzip/codec.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "absl/strings/str_cat.h"
#include "zlib_context.h"

namespace pooled_gzip {
namespace {

using internal::GlobalZlibPool;
using internal::ZlibKey;
using internal::ZlibPool;

// Large enough that a 64 KiB message compresses into one chunk, and small
// enough that the chunk plus gRPC's slice header stays under glibc's default
// mmap threshold (128 KiB): an mmap per chunk would bring back page faults.
constexpr size_t kMaxChunkBytes = 128 * 1024 - 1024;

// zlib counts in uInt; larger pieces are fed in slices of this size.
constexpr size_t kMaxZlibFeed = std::numeric_limits<uInt>::max();

// Walks the input pieces, handing zlib at most kMaxZlibFeed bytes at a time.
class InputCursor {
 public:
  // A pooled stream still points at the input of its previous use.
  InputCursor(absl::Span<const absl::string_view> pieces, z_stream* stream)
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
  absl::Span<const absl::string_view> pieces_;
  z_stream* stream_;
  size_t index_ = 0;
  size_t offset_ = 0;
};

size_t TotalSize(absl::Span<const absl::string_view> pieces) {
  size_t total = 0;
  for (absl::string_view piece : pieces) total += piece.size();
  return total;
}

// Keeps the sink's current chunk and the stream's output window in step.
class OutputWindow {
 public:
  // A pooled stream still points at the buffers of its previous use.
  OutputWindow(z_stream* stream, ChunkSink* sink)
      : stream_(stream), sink_(sink) {
    stream_->next_out = Z_NULL;
    stream_->avail_out = 0;
  }

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

// A first output chunk that is usually right: a gzip stream ends with its
// uncompressed size (mod 2^32), and zlib's format says nothing, so a guess.
// Untrusted either way: the caller still caps the chunk at the budget.
size_t ExpectedOutputSize(absl::Span<const absl::string_view> input,
                          Format format) {
  const size_t compressed = TotalSize(input);
  if (format == Format::kGzip && compressed >= 18) {
    // The last four bytes may straddle pieces.
    uint32_t size = 0;
    size_t needed = 4;
    for (auto piece = input.rbegin(); piece != input.rend() && needed > 0;
         ++piece) {
      for (size_t i = piece->size(); i > 0 && needed > 0; --i, --needed) {
        size = (size << 8) | static_cast<unsigned char>((*piece)[i - 1]);
      }
    }
    // One spare byte, so that zlib reads the stream's end without asking
    // for another chunk.
    return size_t{size} + 1;
  }
  return std::max<size_t>(compressed * 4, 256);
}

absl::Status ZlibError(absl::string_view what, const z_stream& stream,
                       int code) {
  return absl::InternalError(absl::StrCat(
      what, " failed: ", stream.msg != nullptr ? stream.msg : zError(code)));
}

}  // namespace

absl::string_view FormatName(Format format) {
  return format == Format::kGzip ? "gzip" : "deflate";
}

absl::Span<char> StringSink::NextChunk(size_t size_hint) {
  chunk_start_ = out_->size();
  out_->resize(chunk_start_ + std::max<size_t>(size_hint, 1));
  return absl::MakeSpan(&(*out_)[chunk_start_], out_->size() - chunk_start_);
}

void StringSink::CommitChunk(size_t used) { out_->resize(chunk_start_ + used); }

absl::Status Compress(absl::Span<const absl::string_view> input,
                      const CompressOptions& options, ChunkSink* sink) {
  if (options.level < -1 || options.level > 9) {
    return absl::InvalidArgumentError(
        absl::StrCat("compression level must be -1..9, got ", options.level));
  }
  ZlibPool& pool = GlobalZlibPool();
  ZlibPool::Handle context =
      pool.Acquire(ZlibKey::Deflate(options.format, options.level));
  if (context == nullptr) {
    return absl::ResourceExhaustedError("deflateInit2 failed");
  }
  z_stream& stream = context->stream;
  const uLong bound = deflateBound(&stream, TotalSize(input));
  OutputWindow output(&stream, sink);
  InputCursor cursor(input, &stream);
  bool more_input = cursor.Feed();
  int result = Z_OK;
  while (result != Z_STREAM_END) {
    if (stream.avail_in == 0 && more_input) more_input = cursor.Feed();
    if (stream.avail_out == 0) {
      output.Close();
      // deflateBound is an upper bound, so this is normally the only chunk.
      const size_t left =
          bound > output.produced() ? bound - output.produced() : 0;
      output.Open(std::min(kMaxChunkBytes, std::max<size_t>(left, 64)));
    }
    result = deflate(&stream, more_input ? Z_NO_FLUSH : Z_FINISH);
    if (result != Z_OK && result != Z_STREAM_END && result != Z_BUF_ERROR) {
      const absl::Status status = ZlibError("deflate", stream, result);
      pool.Discard(std::move(context));
      return status;
    }
  }
  output.Close();
  return absl::OkStatus();
}

absl::Status Decompress(absl::Span<const absl::string_view> input,
                        Format format, size_t max_output_bytes,
                        ChunkSink* sink) {
  ZlibPool& pool = GlobalZlibPool();
  ZlibPool::Handle context = pool.Acquire(ZlibKey::Inflate(format));
  if (context == nullptr) {
    return absl::ResourceExhaustedError("inflateInit2 failed");
  }
  z_stream& stream = context->stream;
  // One byte past the limit is how an oversized message is recognised.
  const size_t output_budget =
      max_output_bytes == std::numeric_limits<size_t>::max()
          ? max_output_bytes
          : max_output_bytes + 1;
  const size_t first_guess = ExpectedOutputSize(input, format);
  OutputWindow output(&stream, sink);
  InputCursor cursor(input, &stream);
  bool more_input = cursor.Feed();
  auto fail = [&](absl::Status status) {
    pool.Discard(std::move(context));
    return status;
  };
  int result = Z_OK;
  while (result != Z_STREAM_END) {
    if (stream.avail_in == 0 && more_input) more_input = cursor.Feed();
    if (stream.avail_out == 0) {
      output.Close();
      const size_t left = output_budget - output.produced();
      if (left == 0) {
        return fail(absl::ResourceExhaustedError(
            absl::StrCat(FormatName(format), " message inflates to more than ",
                         max_output_bytes, " bytes")));
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
          return fail(absl::DataLossError(
              absl::StrCat(FormatName(format), " message is truncated")));
        }
        break;
      case Z_NEED_DICT:
      case Z_DATA_ERROR:
        return fail(absl::DataLossError(
            absl::StrCat(FormatName(format), " message is corrupt: ",
                         stream.msg != nullptr ? stream.msg : zError(result))));
      default:
        return fail(ZlibError("inflate", stream, result));
    }
    if (output.produced() > max_output_bytes) {
      return fail(absl::ResourceExhaustedError(
          absl::StrCat(FormatName(format), " message inflates to more than ",
                       max_output_bytes, " bytes")));
    }
  }
  output.Close();
  if (stream.avail_in != 0 || cursor.Feed()) {
    // The stream itself was fine, so the context can still be reused.
    return absl::DataLossError(absl::StrCat(
        FormatName(format), " message has bytes after the end of its stream"));
  }
  return absl::OkStatus();
}

absl::Status CompressToString(absl::string_view input,
                              const CompressOptions& options,
                              std::string* out) {
  out->clear();
  StringSink sink(out);
  return Compress(absl::MakeConstSpan(&input, 1), options, &sink);
}

absl::Status DecompressToString(absl::string_view input, Format format,
                                size_t max_output_bytes, std::string* out) {
  out->clear();
  StringSink sink(out);
  absl::Status status = Decompress(absl::MakeConstSpan(&input, 1), format,
                                   max_output_bytes, &sink);
  if (!status.ok()) out->clear();
  return status;
}

PoolStats GetPoolStats() { return GlobalZlibPool().Stats(); }

PoolLimits GetPoolLimits() { return GlobalZlibPool().limits(); }

void SetPoolLimits(const PoolLimits& limits) {
  GlobalZlibPool().SetLimits(limits);
}

}  // namespace pooled_gzip
