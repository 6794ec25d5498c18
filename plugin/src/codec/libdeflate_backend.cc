#include "codec/libdeflate_backend.h"

#include <libdeflate.h>

#include <optional>

#include "absl/strings/str_cat.h"
#include "codec/contiguous_input.h"
#include "codec/stream_errors.h"
#include "codec/stream_io.h"
#include "codec/zlib_backend.h"
#include "codec/zlib_fallback.h"
#include "codec/zlib_rules.h"

namespace pooled_gzip {
namespace internal {
namespace {

// Deflate's largest ratio: 258 bytes from 2 bits; a trailer claiming more lies.
constexpr size_t kMaxDeflateRatio = 258 * 8 / 2;

// Bigger messages (by the trailer) stream through zlib, not one allocation.
constexpr size_t kMaxOneShotBytes = size_t{64} << 20;

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

  // libdeflate keeps no state between messages; the small writer does.
  bool Reset() override {
    if (small_used_) {
      small_used_ = false;
      if (!small_->Reset()) small_.reset();
    }
    return true;
  }

  size_t HeapBytes() const override {
    return sizeof(*this) + LibdeflateCompressorBytes(level_) +
           input_.capacity() + output_.capacity() +
           (small_ != nullptr ? small_->HeapBytes() : 0);
  }

  bool FreeBuffers() override {
    const bool small_freed = small_ != nullptr;
    small_.reset();
    small_used_ = false;
    const bool input_freed = input_.Free();
    return output_.Free() || input_freed || small_freed;
  }

  absl::Status Deflate(Pieces input, size_t max_output_bytes,
                       ChunkSink* sink) override {
    const size_t size = TotalSize(input);
    if (WritesWithZlib(level_, size)) {
      return DeflateSmall(input, max_output_bytes, sink);
    }
    libdeflate_compressor* c = compressor_.get();
    const bool gzip = format_ == Format::kGzip;
    const char* data = Contiguous(input, size, &input_);
    // libdeflate may need room beyond what it produces, so it writes into
    // a buffer of its full bound, and the sink gets a copy.
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

 private:
  // Into the sink's chunks with zlib at the same level, made on first use.
  absl::Status DeflateSmall(Pieces input, size_t max_output_bytes,
                            ChunkSink* sink) {
    if (small_ == nullptr) {
      small_ = NewSizedZlibDeflater(format_, level_, kZlibWrittenMessageBytes);
      if (small_ == nullptr) {
        return absl::InternalError(
            "zlib: no memory for a small-message writer");
      }
    }
    small_used_ = true;
    return small_->Deflate(input, max_output_bytes, sink);
  }

  Format format_;
  int level_;
  std::unique_ptr<libdeflate_compressor, CompressorDeleter> compressor_;
  ReusableBuffer input_;   // a message of several pieces, made contiguous
  ReusableBuffer output_;  // the compressed message, before the sink's copy
  std::unique_ptr<Deflater> small_;  // messages of kZlibWrittenMessageBytes
  bool small_used_ = false;          // small_ needs a Reset before the next
};

class LibdeflateInflater final : public Inflater {
 public:
  LibdeflateInflater(Format format, Strictness strictness)
      : format_(format), strictness_(strictness), fallback_(format) {}

  bool Init() {
    // The zlib format carries no size to allocate by: zlib takes it all.
    if (format_ != Format::kGzip) return true;
    decompressor_.reset(libdeflate_alloc_decompressor());
    return decompressor_ != nullptr;
  }

  absl::Status Inflate(Pieces input, size_t max_output_bytes,
                       ChunkSink* sink) override {
    absl::Span<char> chunk;
    if (std::optional<size_t> size = OneShotSize(input, max_output_bytes)) {
      // Sized as the zlib backend's first chunk, as zlib is lent it if
      // libdeflate cannot finish (codec/zlib_fallback.h, rule 3).
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
  // The size by the gzip trailer, or nullopt for zlib to decide: any but a
  // plain header (libdeflate skips the header CRC), and sizes past the
  // limit (a corrupt message is DATA_LOSS, not RESOURCE_EXHAUSTED),
  // unreachable from this input, huge, or 0 (no chunk is empty).
  std::optional<size_t> OneShotSize(Pieces input,
                                    size_t max_output_bytes) const {
    if (decompressor_ == nullptr) return std::nullopt;
    if (PlainHeaderBytes(Format::kGzip, input) == 0) return std::nullopt;
    const size_t total = TotalSize(input);
    const size_t size = *GzipTrailerSize(input);
    if (size == 0 || size > max_output_bytes || size > kMaxOneShotBytes ||
        size / kMaxDeflateRatio > total) {
      return std::nullopt;
    }
    return size;
  }

  // Whether libdeflate inflated the whole input to exactly `out.size()` bytes.
  bool OneShot(Pieces input, absl::Span<char> out) {
    const size_t total = TotalSize(input);
    const char* data = Contiguous(input, total, &input_);
    if (data == nullptr) return false;
    // libdeflate takes bodies zlib refuses (codec/zlib_rules.h).
    const absl::string_view whole(data, total);
    if (strictness_ == Strictness::kExactZlibRefusals &&
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

// Measured on x86-64 through libdeflate_set_memory_allocator (which a
// library must not touch at run time); 1.14 and 1.25 differ.
// HeapBytesTest.LibdeflateSizesMatchTheLibrary fails on any other change.
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

// Level 1's matchfinder is a third of the others' and its fixed cost a
// match for zlib's; 10 to 12 have no zlib counterpart.
bool WritesSmallMessagesWithZlib(int level) { return level >= 2 && level <= 9; }

size_t LibdeflateStoredBytes(int level) {
  return level >= 1 && level <= 12 ? 55 - 4 * level : 0;
}

bool WritesWithZlib(int level, size_t size) {
  return WritesSmallMessagesWithZlib(level) &&
         size > LibdeflateStoredBytes(level) &&
         size <= kZlibWrittenMessageBytes;
}

constexpr BackendMaker kLibdeflateMaker =
    MakerFor<LibdeflateDeflater, LibdeflateInflater>();

}  // namespace internal
}  // namespace pooled_gzip
