// Reads a deflate body's bits across a message's pieces (codec/zlib_rules.cc).

#ifndef POOLED_GZIP_SRC_CODEC_BIT_READER_H_
#define POOLED_GZIP_SRC_CODEC_BIT_READER_H_

#include <endian.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace pooled_gzip {
namespace internal {
namespace deflate {

// What decoding one symbol of a Huffman block found.
enum class Step { kMore, kEndOfBlock, kRefused };

// Zero bytes past the end are made up so that a refill always fills the
// buffer; using any of them means the body is truncated.
class BitReader {
 public:
  BitReader(absl::Span<const absl::string_view> pieces, size_t skip)
      : pieces_(pieces) {
    while (index_ < pieces_.size() && skip >= pieces_[index_].size()) {
      skip -= pieces_[index_].size();
      ++index_;
    }
    if (index_ < pieces_.size()) {
      Enter(index_);
      next_ += skip;
    }
  }

  // At least 56 bits in the buffer; false once made-up bytes were used.
  bool Refill() {
    if (end_ - next_ >= 8) {
      // Whole bytes that fit; the part of the next byte above them is the
      // stream's own next bits, which the following refill writes again.
      uint64_t word;
      std::memcpy(&word, next_, sizeof(word));
      buffer_ |= le64toh(word) << count_;
      next_ += (63 - count_) >> 3;
      count_ |= 56;
      return true;
    }
    while (count_ <= 56) {
      uint64_t byte = 0;
      while (next_ == end_ && index_ + 1 < pieces_.size()) Enter(index_ + 1);
      if (next_ < end_) {
        byte = static_cast<uint8_t>(*next_++);
      } else {
        ++made_up_;
      }
      buffer_ |= byte << count_;
      count_ += 8;
    }
    return !Overrun();
  }

  uint64_t bits() const { return buffer_; }
  void Drop(unsigned n) {
    buffer_ >>= n;
    count_ -= n;
  }
  uint32_t Take(unsigned n) {
    const uint32_t value = static_cast<uint32_t>(buffer_ & ((1u << n) - 1));
    Drop(n);
    return value;
  }
  bool Overrun() const { return made_up_ * 8 > count_; }

  // A stored block after its header bits: LEN/NLEN checked, bytes skipped.
  bool SkipStored() {
    Drop(count_ & 7);
    if (!Refill()) return false;
    const uint32_t length = Take(16);
    if ((Take(16) ^ 0xffff) != length)
      return false;  // "invalid stored block lengths"
    if (Overrun()) return false;
    const uint32_t buffered = count_ / 8 - made_up_;
    if (length <= buffered) {
      if (length > 0) Drop(8 * length);
      return true;
    }
    size_t skip = length - buffered;
    buffer_ = 0;
    count_ = 0;
    made_up_ = 0;
    while (skip > 0) {
      const size_t here = std::min<size_t>(skip, end_ - next_);
      next_ += here;
      skip -= here;
      if (skip == 0) break;
      if (index_ + 1 >= pieces_.size()) return false;
      Enter(index_ + 1);
    }
    return true;
  }

  // A Huffman block's body up to its end-of-block, a symbol at a time by
  // `next_symbol(uint64_t* buffer, unsigned* count)`, given at least 48
  // bits; false if it refuses or the input ends first.
  template <typename Next>
  bool ReadBody(const Next& next_symbol) {
    while (true) {
      // Locals: through the members, every symbol would store and reload
      // the state (the input is char, which may alias them).
      uint64_t buffer = buffer_;
      unsigned count = count_;
      const char* next = next_;
      const char* const end = end_;
      Step step = Step::kMore;
      while (step == Step::kMore && end - next >= 8) {
        uint64_t word;
        std::memcpy(&word, next, sizeof(word));
        buffer |= le64toh(word) << count;
        next += (63 - count) >> 3;
        count |= 56;
        step = next_symbol(&buffer, &count);
      }
      buffer_ = buffer;
      count_ = count;
      next_ = next;
      if (step != Step::kMore) return step == Step::kEndOfBlock;
      // The end of a piece: byte by byte into the next.
      if (!Refill()) return false;
      step = next_symbol(&buffer_, &count_);
      if (step != Step::kMore) return step == Step::kEndOfBlock;
    }
  }

 private:
  void Enter(size_t index) {
    index_ = index;
    next_ = pieces_[index].data();
    end_ = next_ + pieces_[index].size();
  }

  absl::Span<const absl::string_view> pieces_;
  size_t index_ = 0;
  const char* next_ = nullptr;
  const char* end_ = nullptr;
  uint64_t buffer_ = 0;
  unsigned count_ = 0;
  unsigned made_up_ = 0;
};

}  // namespace deflate
}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_BIT_READER_H_
