#include "pool/buffer_pool.h"

#include <cstdlib>
#include <new>

namespace pooled_gzip {
namespace internal {

// Ahead of every buffer, so that Release needs nothing but the pointer.
struct alignas(16) BufferPool::Header {
  int size_class;
};

BufferPool::~BufferPool() {
  for (SizeClass& size_class : classes_) {
    for (Header* header : size_class.idle) std::free(header);
  }
}

int BufferPool::ClassOf(size_t size) {
  if (size <= kMinBufferBytes) return 0;
  // 2^bit <= size - 1 < 2^(bit + 1); the two bits below the top one say
  // which quarter of that octave `size` rounds up to.
  const size_t n = size - 1;
  const int bit = 63 - __builtin_clzll(n);
  const int quarter = static_cast<int>(n >> (bit - 2)) + 1;  // 5 to 8
  return 4 * (bit - 12) + (quarter - 4);
}

bool BufferPool::ClaimIdleBytes(size_t bytes) {
  uint64_t held = idle_bytes_.load(std::memory_order_relaxed);
  do {
    if (held + bytes > max_idle_bytes_) return false;
  } while (!idle_bytes_.compare_exchange_weak(held, held + bytes,
                                              std::memory_order_relaxed));
  return true;
}

void* BufferPool::Acquire(size_t size) {
  const int index = ClassOf(size);
  SizeClass& size_class = classes_[index];
  Header* header = nullptr;
  {
    std::lock_guard<std::mutex> lock(size_class.mutex);
    if (!size_class.idle.empty()) {
      header = size_class.idle.back();
      size_class.idle.pop_back();
      // Under the lock, after the Release that counted it: never below 0.
      idle_.fetch_sub(1, std::memory_order_relaxed);
    }
  }
  if (header != nullptr) {
    idle_bytes_.fetch_sub(ClassBytes(index), std::memory_order_relaxed);
    hits_.fetch_add(1, std::memory_order_relaxed);
    return header + 1;
  }
  void* memory = std::malloc(sizeof(Header) + ClassBytes(index));
  if (memory == nullptr) return nullptr;
  header = new (memory) Header{index};
  misses_.fetch_add(1, std::memory_order_relaxed);
  return header + 1;
}

void BufferPool::Release(void* buffer) {
  Header* header = static_cast<Header*>(buffer) - 1;
  const size_t bytes = ClassBytes(header->size_class);
  if (!ClaimIdleBytes(bytes)) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    std::free(header);
    return;
  }
  SizeClass& size_class = classes_[header->size_class];
  {
    std::lock_guard<std::mutex> lock(size_class.mutex);
    size_class.idle.push_back(header);
    idle_.fetch_add(1, std::memory_order_relaxed);
  }
  returned_.fetch_add(1, std::memory_order_relaxed);
}

BufferPoolCounters BufferPool::Stats() const {
  BufferPoolCounters stats;
  stats.hits = hits_.load(std::memory_order_relaxed);
  stats.misses = misses_.load(std::memory_order_relaxed);
  stats.returned = returned_.load(std::memory_order_relaxed);
  stats.dropped_by_cap = dropped_.load(std::memory_order_relaxed);
  stats.idle = idle_.load(std::memory_order_relaxed);
  stats.idle_bytes = idle_bytes_.load(std::memory_order_relaxed);
  return stats;
}

}  // namespace internal
}  // namespace pooled_gzip
