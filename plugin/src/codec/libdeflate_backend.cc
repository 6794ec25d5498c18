#include "codec/libdeflate_backend.h"

#include <libdeflate.h>

#include <optional>

#include "absl/strings/str_cat.h"
#include "codec/backend_maker.h"
#include "codec/contiguous_input.h"
#include "codec/stream_errors.h"
#include "codec/stream_io.h"
#include "codec/zlib_fallback.h"
#include "codec/zlib_rules.h"

namespace pooled_gzip {
namespace internal {
namespace {

// The largest ratio deflate can reach: 258 bytes from two bits (a 1-bit
// length code and a 1-bit distance code), 258 * 8 / 2 per byte. A gzip
// trailer that claims more output than this per input byte is lying.
constexpr size_t kMaxDeflateRatio = 1032;

struct CompressorDeleter {
  void operator()(libdeflate_compressor* c) const {
    libdeflate_free_compressor(c);
  }
};
struct DecompressorDeleter {
  void operator()(libdeflate_decompressor* d) const {
    libdeflate_free_decompressor(d);
  }
};

class LibdeflateDeflater final : public Deflater {
 public:
  LibdeflateDeflater(Format format, int level)
      : format_(format), level_(level) {}

  bool Init() {
    compressor_.reset(libdeflate_alloc_compressor(level_));
    return compressor_ != nullptr;
  }

  // libdeflate keeps no state between messages.
  bool Reset() override { return true; }

  size_t HeapBytes() const override {
    return sizeof(*this) + LibdeflateCompressorBytes(level_) +
           input_.capacity() + output_.capacity();
  }

  bool FreeBuffers() override {
    const bool input_freed = input_.Free();
    return output_.Free() || input_freed;
  }

  absl::Status Deflate(Pieces input, size_t max_output_bytes,
                       ChunkSink* sink) override {
    libdeflate_compressor* c = compressor_.get();
    const bool gzip = format_ == Format::kGzip;
    const size_t size = TotalSize(input);
    const char* data = Contiguous(input, size, &input_);
    // libdeflate may need a few bytes of room beyond what it produces, so
    // it writes into a buffer of its full bound and the sink gets an exact
    // copy: with that room it cannot run out, and a message that ends up
    // too large is found by comparing sizes.
    const size_t bound = gzip ? libdeflate_gzip_compress_bound(c, size)
                              : libdeflate_zlib_compress_bound(c, size);
    char* out = output_.Get(bound);
    if (data == nullptr || out == nullptr) {
      return absl::InternalError(
          absl::StrCat("libdeflate: no memory for a ", size, "-byte message"));
    }
    const size_t produced =
        gzip ? libdeflate_gzip_compress(c, data, size, out, bound)
             : libdeflate_zlib_compress(c, data, size, out, bound);
    if (produced == 0) {
      return absl::InternalError("libdeflate ran out of room within its bound");
    }
    if (produced > max_output_bytes) {
      return StreamTooLarge(format_, max_output_bytes);
    }
    WriteAll(absl::string_view(out, produced), sink);
    return absl::OkStatus();
  }

  Format format_;
  int level_;
  std::unique_ptr<libdeflate_compressor, CompressorDeleter> compressor_;
  ReusableBuffer input_;   // a message of several pieces, made contiguous
  ReusableBuffer output_;  // the compressed message, before the sink's copy
};

class LibdeflateInflater final : public Inflater {
 public:
  LibdeflateInflater(Format format, Strictness strictness)
      : format_(format), strictness_(strictness), fallback_(format) {}

  bool Init() {
    // The zlib format always goes to zlib: it carries no size to allocate
    // the output by.
    if (format_ != Format::kGzip) return true;
    decompressor_.reset(libdeflate_alloc_decompressor());
    return decompressor_ != nullptr;
  }

  absl::Status Inflate(Pieces input, size_t max_output_bytes,
                       ChunkSink* sink) override {
    absl::Span<char> chunk;
    if (std::optional<size_t> size = OneShotSize(input, max_output_bytes)) {
      // The chunk is asked for once its size is known to be within the
      // limit; if libdeflate cannot finish, zlib writes into the same chunk,
      // so the sink is never asked for more than limit + 1 bytes in all.
      // One byte more than the trailer says, as the zlib backend's first
      // chunk (up to its chunk cap): lent a chunk of other bounds, zlib
      // would meet a corrupt stream's error at another point of its output
      // and could answer DATA_LOSS where the zlib backend answers
      // RESOURCE_EXHAUSTED.
      chunk = sink->NextChunk(std::min(*size + 1, BudgetFor(max_output_bytes)));
      if (chunk.size() >= *size && OneShot(input, chunk.first(*size))) {
        sink->CommitChunk(*size);
        return absl::OkStatus();
      }
    }
    return fallback_.Inflate(input, max_output_bytes, sink, 0, chunk);
  }

  bool Reset() override {
    fallback_.Reset();
    return true;
  }

  bool FreeBuffers() override { return input_.Free(); }

  size_t HeapBytes() const override {
    return sizeof(*this) +
           (decompressor_ != nullptr ? LibdeflateDecompressorBytes() : 0) +
           input_.capacity() + fallback_.HeapBytes();
  }

 private:
  // The output size for the one-shot path, from the gzip trailer, or
  // nullopt if the message must go to zlib: only a plain gzip header goes
  // through libdeflate, which skips the header CRC (FHCRC) that zlib
  // checks. The trailer comes from the peer: a size beyond the limit is not
  // refused here (a corrupt message must be DATA_LOSS as zlib finds it, not
  // RESOURCE_EXHAUSTED), it goes to zlib, which streams and stops at the
  // limit; so do sizes deflate cannot reach from this input, huge ones, and
  // 0 (no chunk is empty).
  std::optional<size_t> OneShotSize(Pieces input,
                                    size_t max_output_bytes) const {
    if (decompressor_ == nullptr) return std::nullopt;
    if (PlainHeaderBytes(Format::kGzip, input) == 0) return std::nullopt;
    const size_t total = TotalSize(input);
    const size_t size = *GzipTrailerSize(input);
    if (size == 0 || size > max_output_bytes ||
        size > kLibdeflateMaxOneShotBytes || size / kMaxDeflateRatio > total) {
      return std::nullopt;
    }
    return size;
  }

  // Whether libdeflate inflated the whole input, one gzip member and
  // nothing after it, to exactly `out.size()` bytes (from a body that keeps
  // zlib's rules, if the strictness asks for them).
  bool OneShot(Pieces input, absl::Span<char> out) {
    const size_t total = TotalSize(input);
    const char* data = Contiguous(input, total, &input_);
    if (data == nullptr) return false;
    // libdeflate takes bodies zlib refuses (codec/zlib_rules.h), and it has
    // no switch for zlib's rules nor a way to stop between blocks, so only
    // a pass of ours over the body can check them first.
    const absl::string_view whole(data, total);
    if (strictness_ == Strictness::kZlib &&
        !MeetsZlibRules({&whole, 1}, kPlainGzipHeaderBytes)) {
      return false;
    }
    size_t consumed = 0;
    size_t produced = 0;
    const libdeflate_result result = libdeflate_gzip_decompress_ex(
        decompressor_.get(), data, total, out.data(), out.size(), &consumed,
        &produced);
    return result == LIBDEFLATE_SUCCESS && consumed == total &&
           produced == out.size();
  }

  Format format_;
  Strictness strictness_;
  std::unique_ptr<libdeflate_decompressor, DecompressorDeleter> decompressor_;
  ReusableBuffer input_;  // a message of several pieces, made contiguous
  ZlibFallback fallback_;
};

}  // namespace

// Heap sizes measured on x86-64 through libdeflate_set_memory_allocator
// (which a library must not touch at run time). Libdeflate 1.14 (Debian 12)
// and 1.25 (Debian sid) differ in the near-optimal parser of levels 10..12
// and in the decompressor; HeapBytesTest.LibdeflateSizesMatchTheLibrary
// fails on a version that differs again.
constexpr bool kLibdeflateBefore125 =
    LIBDEFLATE_VERSION_MAJOR == 1 && LIBDEFLATE_VERSION_MINOR < 25;

size_t LibdeflateCompressorBytes(int level) {
  // The compressor's matchfinder is chosen by level.
  if (level <= 0) return 6119;
  if (level == 1) return 202759;
  if (level <= 9) return 668295;
  return kLibdeflateBefore125 ? 9009543 : 9011751;
}

size_t LibdeflateDecompressorBytes() {
  return kLibdeflateBefore125 ? 11560 : 11568;
}

constexpr BackendMaker kLibdeflateMaker =
    MakerFor<LibdeflateDeflater, LibdeflateInflater>();

}  // namespace internal
}  // namespace pooled_gzip
