#include "codec/isal_backend.h"

#include <isa-l/igzip_lib.h>

#include <algorithm>
#include <cstdint>
#include <new>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "codec/contiguous_input.h"
#include "codec/stream_errors.h"
#include "codec/stream_io.h"
#include "codec/zlib_fallback.h"
#include "codec/zlib_rules.h"

namespace pooled_gzip {
namespace internal {
namespace {

// ISA-L's suggested level buffer (_DEFAULT) per level; level 0 needs none.
constexpr uint32_t kLevelBufferBytes[] = {
    ISAL_DEF_LVL0_DEFAULT, ISAL_DEF_LVL1_DEFAULT, ISAL_DEF_LVL2_DEFAULT,
    ISAL_DEF_LVL3_DEFAULT};

// A chunk that usually holds the whole message. Levels 1..3 fall back to
// stored blocks (bounded as deflateBound); level 0 always codes with a
// fixed table, which expands random bytes by about 23% (one byte to 132).
size_t OutputEstimate(size_t size, int level) {
  if (level == 0) return size + size / 4 + 256;
  return size + (size >> 12) + (size >> 14) + (size >> 25) + 64;
}

// What a call may change; unchanged after a call means no progress.
auto Progress(const isal_zstream& s) {
  return std::make_tuple(s.next_in, s.avail_in, s.avail_out,
                         s.internal_state.state);
}

auto Progress(const inflate_state& s) {
  return std::make_tuple(s.next_in, s.avail_in, s.avail_out, s.block_state,
                         s.read_in_length, s.tmp_in_size, s.tmp_out_valid,
                         s.tmp_out_processed);
}

class IsalDeflater final : public Deflater {
 public:
  IsalDeflater(Format format, int level) : format_(format), level_(level) {}

  bool Init() {
    const LevelRange levels = LevelsOf(Backend::kIsal);
    if (level_ < levels.min || level_ > levels.max) return false;
    stream_.reset(new (std::nothrow) isal_zstream);
    if (stream_ == nullptr) return false;
    isal_deflate_init(stream_.get());
    stream_->level = static_cast<uint32_t>(level_);
    if (const uint32_t size = kLevelBufferBytes[level_]; size > 0) {
      level_buffer_.reset(new (std::nothrow) uint8_t[size]);
      if (level_buffer_ == nullptr) return false;
      stream_->level_buf = level_buffer_.get();
      stream_->level_buf_size = size;
    }
    return true;
  }

  // Into the sink's chunks: no copy, no buffer per pooled context, early stop.
  absl::Status Deflate(Pieces input, size_t max_output_bytes,
                       ChunkSink* sink) override {
    isal_zstream& stream = *stream_;
    isal_deflate_reset(&stream);
    // isal_deflate sets gzip_flag to *_NO_HDR once it has written the
    // header, and isal_deflate_reset keeps that: without this, every later
    // message would go out with no header.
    stream.gzip_flag = format_ == Format::kGzip ? IGZIP_GZIP : IGZIP_ZLIB;
    stream.flush = NO_FLUSH;
    stream.end_of_stream = 0;
    const size_t budget = BudgetFor(max_output_bytes);
    const size_t expected =
        std::min(OutputEstimate(TotalSize(input), level_), budget);
    OutputWindow output(&stream.next_out, &stream.avail_out, sink, budget);
    InputCursor cursor(input, 0, &stream.next_in, &stream.avail_in);
    // The last stretch (or no input) carries end_of_stream.
    auto feed = [&] {
      cursor.Feed();
      stream.end_of_stream = cursor.HasMore() ? 0 : 1;
    };
    feed();
    while (stream.internal_state.state != ZSTATE_END) {
      if (stream.avail_in == 0 && stream.end_of_stream == 0) feed();
      if (stream.avail_out == 0) {
        // Past the estimate, chunks grow: a few chunks, not thousands.
        const size_t produced = output.produced();
        if (!output.Next(expected > produced
                             ? expected - produced
                             : std::max<size_t>(4096, produced / 8))) {
          return StreamTooLarge(format_, max_output_bytes);
        }
      }
      const auto before = Progress(stream);
      const int result = isal_deflate(&stream);
      if (result != COMP_OK) {
        return absl::InternalError(
            absl::StrCat("isal_deflate failed: ", result));
      }
      if (output.produced() > max_output_bytes) {
        return StreamTooLarge(format_, max_output_bytes);
      }
      if (Progress(stream) == before) {
        return absl::InternalError("isal_deflate made no progress");
      }
    }
    output.Close();
    return absl::OkStatus();
  }

  // Deflate rewinds, so that no caller can skip the gzip_flag fix-up.
  bool Reset() override { return true; }

  size_t HeapBytes() const override {
    return sizeof(*this) + sizeof(isal_zstream) + kLevelBufferBytes[level_];
  }

 private:
  Format format_;
  int level_;
  std::unique_ptr<isal_zstream> stream_;
  std::unique_ptr<uint8_t[]> level_buffer_;
};

class IsalInflater final : public Inflater {
 public:
  IsalInflater(Format format, Strictness strictness)
      : format_(format), strictness_(strictness), fallback_(format) {}

  bool Init() {
    state_.reset(new (std::nothrow) inflate_state);
    if (state_ == nullptr) return false;
    isal_inflate_init(state_.get());
    return true;
  }

  absl::Status Inflate(Pieces input, size_t max_output_bytes,
                       ChunkSink* sink) override {
    // ISA-L costs a call per piece: many small pieces (an odd or hostile
    // peer's) are made one, memory permitting. zlib reads them as they came:
    // where a limit falls against an error depends on what each call gets.
    const size_t total = TotalSize(input);
    if (input.size() > 1 && total / input.size() < kSmallPieceBytes) {
      if (const char* whole = Contiguous(input, total, &input_)) {
        const absl::string_view one(whole, total);
        return InflatePieces({&one, 1}, input, max_output_bytes, sink);
      }
    }
    return InflatePieces(input, input, max_output_bytes, sink);
  }

  bool Reset() override {
    fallback_.Reset();
    return true;
  }

  size_t HeapBytes() const override {
    return sizeof(*this) + sizeof(inflate_state) + input_.capacity() +
           fallback_.HeapBytes();
  }

  bool FreeBuffers() override { return input_.Free(); }

 private:
  // Below this average, a copy costs less than ISA-L's per-call work.
  static constexpr size_t kSmallPieceBytes = 4096;

  // `as_received`: `input` in the pieces the message came in, for zlib.
  absl::Status InflatePieces(Pieces input, Pieces as_received,
                             size_t max_output_bytes, ChunkSink* sink) {
    // ISA-L's header parser skips checks zlib makes, so it sees only the
    // body; it takes bodies zlib refuses (codec/zlib_rules.h).
    const size_t header = PlainHeaderBytes(format_, input);
    if (header == 0 || (strictness_ == Strictness::kExactZlibRefusals &&
                        !MeetsZlibRules(input, header))) {
      return fallback_.Inflate(as_received, max_output_bytes, sink);
    }
    inflate_state& state = *state_;
    isal_inflate_reset(&state);
    // The body, then the trailer checked (CRC-32 and size, or Adler-32).
    state.crc_flag =
        format_ == Format::kGzip ? ISAL_GZIP_NO_HDR_VER : ISAL_ZLIB_NO_HDR_VER;
    state.hist_bits = 0;  // the full 32 KiB window
    const size_t first_guess = FirstChunkGuess(format_, input);
    OutputWindow output(&state.next_out, &state.avail_out, sink,
                        BudgetFor(max_output_bytes));
    InputCursor cursor(input, header, &state.next_in, &state.avail_in);
    // Unless ISA-L finishes cleanly within the limit: it decodes ahead, so
    // it can fail past the limit, and a message corrupt further on is
    // DATA_LOSS if zlib finds the error first.
    auto zlib_decides = [&] {
      const size_t committed = output.committed();
      const absl::Span<char> open_chunk = output.Release();
      return fallback_.Inflate(as_received, max_output_bytes, sink, committed,
                               open_chunk);
    };
    cursor.Feed();
    while (true) {
      if (state.avail_in == 0) cursor.Feed();
      if (state.avail_out == 0 &&
          !output.Next(output.produced() == 0 ? first_guess : kMaxChunkBytes)) {
        return zlib_decides();
      }
      const auto before = Progress(state);
      const int result = isal_inflate(&state);
      if (result != ISAL_DECOMP_OK || output.produced() > max_output_bytes) {
        return zlib_decides();
      }
      if (state.block_state == ISAL_BLOCK_FINISH) break;
      // No progress with room for output: the input ended early.
      if (Progress(state) == before) return zlib_decides();
    }
    // Bytes after the stream follow a body zlib may refuse: zlib answers.
    // ISA-L's input buffer may hold bytes read past the trailer.
    if (state.avail_in > 0 || state.read_in_length >= 8 || cursor.HasMore()) {
      return zlib_decides();
    }
    output.Close();
    return absl::OkStatus();
  }

  Format format_;
  Strictness strictness_;
  std::unique_ptr<inflate_state> state_;
  ReusableBuffer input_;  // a message of many small pieces, made one
  ZlibFallback fallback_;
};

}  // namespace

constexpr BackendMaker kIsalMaker = MakerFor<IsalDeflater, IsalInflater>();

}  // namespace internal
}  // namespace pooled_gzip
