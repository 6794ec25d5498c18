#include "codec/contiguous_input.h"

#include <algorithm>
#include <cstring>
#include <new>

// TSan cannot see uninstrumented gRPC hand a message's slices from the
// thread that wrote them to the one that compresses them, and reports the
// byte-by-byte copy of tiny pieces below as a race (memcpy is not).
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define POOLED_GZIP_READS_GRPC_SLICES __attribute__((no_sanitize("thread")))
#endif
#endif
#ifndef POOLED_GZIP_READS_GRPC_SLICES
#define POOLED_GZIP_READS_GRPC_SLICES
#endif

namespace pooled_gzip {
namespace internal {
namespace {

constexpr size_t kTinyPieceBytes = 16;

// Tiny pieces (an odd peer's 1-byte slices) would cost a memcpy call each.
POOLED_GZIP_READS_GRPC_SLICES char* CopyTiny(absl::string_view piece,
                                             char* out) {
  for (char byte : piece) *out++ = byte;
  return out;
}

}  // namespace

char* ReusableBuffer::Get(size_t size) {
  size = std::max<size_t>(size, 1);
  if (size > capacity_) {
    Free();
    data_.reset(new (std::nothrow) char[size]);
    if (data_ == nullptr) return nullptr;
    capacity_ = size;
  }
  return data_.get();
}

bool ReusableBuffer::Free() {
  if (capacity_ == 0) return false;
  data_.reset();
  capacity_ = 0;
  return true;
}

const char* Contiguous(Pieces pieces, size_t total, ReusableBuffer* buffer) {
  // Libraries may not take a null pointer even for no bytes.
  static constexpr char kNothing[1] = {0};
  if (total == 0) return kNothing;
  for (absl::string_view piece : pieces) {
    if (piece.size() == total) return piece.data();  // the only one
    if (!piece.empty()) break;
  }
  char* copy = buffer->Get(total);
  if (copy == nullptr) return nullptr;
  char* out = copy;
  for (absl::string_view piece : pieces) {
    if (piece.size() <= kTinyPieceBytes) {
      out = CopyTiny(piece, out);
    } else {
      std::memcpy(out, piece.data(), piece.size());
      out += piece.size();
    }
  }
  return copy;
}

}  // namespace internal
}  // namespace pooled_gzip
