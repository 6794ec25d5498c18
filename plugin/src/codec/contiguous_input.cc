#include "codec/contiguous_input.h"

#include <algorithm>
#include <cstring>
#include <new>

namespace pooled_gzip {
namespace internal {

char* ReusableBuffer::Get(size_t size) {
  size = std::max<size_t>(size, 1);
  if (size > capacity_) {
    data_.reset();
    capacity_ = 0;
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
  const char* only = kNothing;
  size_t non_empty = 0;
  for (absl::string_view piece : pieces) {
    if (piece.empty()) continue;
    only = piece.data();
    ++non_empty;
  }
  if (non_empty <= 1) return only;
  char* copy = buffer->Get(total);
  if (copy == nullptr) return nullptr;
  size_t offset = 0;
  for (absl::string_view piece : pieces) {
    std::memcpy(copy + offset, piece.data(), piece.size());
    offset += piece.size();
  }
  return copy;
}

}  // namespace internal
}  // namespace pooled_gzip
