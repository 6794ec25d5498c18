#include "zlib_context.h"

#include <cstdlib>
#include <cstring>
#include <new>

namespace pooled_gzip {
namespace internal {
namespace {

// zfree is not told the size, so each block carries it in a header that
// keeps the payload maximally aligned.
constexpr size_t kHeaderBytes = alignof(std::max_align_t);

voidpf CountingAlloc(voidpf opaque, uInt items, uInt size) {
  const size_t bytes = static_cast<size_t>(items) * size;
  auto* block = static_cast<char*>(std::malloc(kHeaderBytes + bytes));
  if (block == nullptr) return Z_NULL;
  std::memcpy(block, &bytes, sizeof(bytes));
  static_cast<ZlibContext*>(opaque)->heap_bytes += bytes;
  return block + kHeaderBytes;
}

void CountingFree(voidpf opaque, voidpf address) {
  char* block = static_cast<char*>(address) - kHeaderBytes;
  size_t bytes;
  std::memcpy(&bytes, block, sizeof(bytes));
  static_cast<ZlibContext*>(opaque)->heap_bytes -= bytes;
  std::free(block);
}

}  // namespace

int WindowBits(Format format) { return format == Format::kGzip ? 15 + 16 : 15; }

ZlibContext* ZlibPolicy::Create(const ZlibKey& key) {
  auto* context = new (std::nothrow) ZlibContext;
  if (context == nullptr) return nullptr;
  context->key = key;
  z_stream& stream = context->stream;
  stream.zalloc = CountingAlloc;
  stream.zfree = CountingFree;
  stream.opaque = context;
  // memLevel 8 and the default strategy match gRPC core's own deflate.
  const int result =
      key.direction == ZlibKey::Direction::kDeflate
          ? deflateInit2(&stream, key.level, Z_DEFLATED, WindowBits(key.format),
                         8, Z_DEFAULT_STRATEGY)
          : inflateInit2(&stream, WindowBits(key.format));
  if (result != Z_OK) {
    delete context;
    return nullptr;
  }
  return context;
}

bool ZlibPolicy::Reset(ZlibContext* context) {
  const int result = context->key.direction == ZlibKey::Direction::kDeflate
                         ? deflateReset(&context->stream)
                         : inflateReset(&context->stream);
  return result == Z_OK;
}

void ZlibPolicy::Destroy(ZlibContext* context) {
  if (context->key.direction == ZlibKey::Direction::kDeflate) {
    deflateEnd(&context->stream);
  } else {
    inflateEnd(&context->stream);
  }
  delete context;
}

ZlibPool& GlobalZlibPool() {
  static ZlibPool* pool = new ZlibPool();
  return *pool;
}

}  // namespace internal
}  // namespace pooled_gzip
