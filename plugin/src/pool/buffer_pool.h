// A bounded pool of plain byte buffers, for the codec's output chunks. They
// are freed wherever their reader is done with them (gRPC unrefs a slice on
// whatever thread used it last), so buffers return to shared lists any
// thread may take from, not to the thread that took them.

#ifndef POOLED_GZIP_SRC_POOL_BUFFER_POOL_H_
#define POOLED_GZIP_SRC_POOL_BUFFER_POOL_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace pooled_gzip {
namespace internal {

struct BufferPoolCounters {
  uint64_t hits = 0;            // Acquire served by an idle buffer
  uint64_t misses = 0;          // Acquire that allocated
  uint64_t returned = 0;        // Release that kept the buffer idle
  uint64_t dropped_by_cap = 0;  // Release that freed it: the cap was full
  uint64_t idle = 0;            // buffers idle now
  uint64_t idle_bytes = 0;      // their capacity, what the cap bounds
};

class BufferPool {
 public:
  // Smaller buffers are cheap for malloc (its per-thread caches, below its
  // trim and mmap thresholds); larger ones would hold too much per buffer.
  static constexpr size_t kMinBufferBytes = 4 * 1024;
  static constexpr size_t kMaxBufferBytes = 4 * 1024 * 1024;

  explicit BufferPool(size_t max_idle_bytes)
      : max_idle_bytes_(max_idle_bytes) {}
  ~BufferPool();

  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // Whether Acquire serves buffers of `size` bytes.
  static bool Serves(size_t size) {
    return size >= kMinBufferBytes && size <= kMaxBufferBytes;
  }

  // A buffer of at least `size` bytes (Serves(size) must hold), or null if
  // malloc fails.
  void* Acquire(size_t size);

  // Takes back a buffer from Acquire, on any thread: kept idle within the
  // byte cap, else freed.
  void Release(void* buffer);

  BufferPoolCounters Stats() const;

  // Size classes, exposed for the tests: four per power of two, so a buffer
  // is at most 25% larger than asked for (libdeflate asks for a message's
  // size plus one, which powers of two would nearly double).
  static constexpr int kClasses = 41;  // 4 KiB to 4 MiB
  static int ClassOf(size_t size);
  static size_t ClassBytes(int index) {
    return static_cast<size_t>(4 + index % 4) << (10 + index / 4);
  }

 private:
  struct Header;

  struct SizeClass {
    std::mutex mutex;
    // Last in, first out: the buffer freed last is the likeliest to be in
    // cache and still resident.
    std::vector<Header*> idle;  // guarded by mutex
  };

  bool ClaimIdleBytes(size_t bytes);

  const size_t max_idle_bytes_;
  std::array<SizeClass, kClasses> classes_;
  std::atomic<uint64_t> idle_bytes_{0};
  std::atomic<uint64_t> idle_{0};
  std::atomic<uint64_t> hits_{0};
  std::atomic<uint64_t> misses_{0};
  std::atomic<uint64_t> returned_{0};
  std::atomic<uint64_t> dropped_{0};
};

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_POOL_BUFFER_POOL_H_
