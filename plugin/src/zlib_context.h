// The zlib half of the pool: a z_stream that counts its own heap, and the
// policy that lets ThreadLocalPool create, reset and destroy it.

#ifndef POOLED_GZIP_SRC_ZLIB_CONTEXT_H_
#define POOLED_GZIP_SRC_ZLIB_CONTEXT_H_

#include <zlib.h>

#include <cstddef>

#include "pooled_gzip/codec.h"
#include "pooled_gzip/context_pool.h"

namespace pooled_gzip {
namespace internal {

// Writers and readers, formats and levels never share a context.
struct ZlibKey {
  enum class Direction { kDeflate, kInflate };
  Direction direction = Direction::kDeflate;
  Format format = Format::kGzip;
  int level = 0;  // deflate only

  static ZlibKey Deflate(Format format, int level) {
    return {Direction::kDeflate, format, level};
  }
  static ZlibKey Inflate(Format format) {
    return {Direction::kInflate, format, 0};
  }
  friend bool operator==(const ZlibKey& a, const ZlibKey& b) {
    return a.direction == b.direction && a.format == b.format &&
           a.level == b.level;
  }
};

struct ZlibContext {
  z_stream stream{};
  ZlibKey key;
  // What zlib holds on the heap through our allocator, so that the pool's
  // byte cap is exact (an inflate window appears only on first use).
  size_t heap_bytes = 0;
};

struct ZlibPolicy {
  using Context = ZlibContext;
  using Key = ZlibKey;
  static ZlibContext* Create(const ZlibKey& key);
  static bool Reset(ZlibContext* context);
  static size_t Bytes(const ZlibContext& context) {
    return context.heap_bytes + sizeof(ZlibContext);
  }
  static void Destroy(ZlibContext* context);
};

using ZlibPool = ThreadLocalPool<ZlibPolicy>;

// The process-wide pool; never destroyed, so thread exit can always use it.
ZlibPool& GlobalZlibPool();

// zlib's windowBits for a format: 15 (32 KiB window, as gRPC core uses),
// plus 16 for the gzip wrapper.
int WindowBits(Format format);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_ZLIB_CONTEXT_H_
