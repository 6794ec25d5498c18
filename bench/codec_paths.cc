#include "codec_paths.h"

#include <grpc/slice.h>
#include <grpc/support/alloc.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "codec/codec.h"
#include "glue/slice_buffers.h"

namespace pooled_gzip::bench {
namespace {

// --- A replica of gRPC 1.51 src/core/lib/compression/message_compress.cc ---
// Kept line for line in behaviour: fresh stream per message, memLevel 8,
// windowBits 15|16, 1 KiB output slices, gpr_malloc as zalloc.

constexpr size_t kOutputBlockSize = 1024;

int ZlibBody(z_stream* zs, grpc_slice_buffer* input, grpc_slice_buffer* output,
             int (*flate)(z_stream* zs, int flush)) {
  int r = Z_STREAM_END;  // Core does not fail on an empty input.
  grpc_slice outbuf = grpc_slice_malloc(kOutputBlockSize);
  zs->avail_out = static_cast<uInt>(GRPC_SLICE_LENGTH(outbuf));
  zs->next_out = GRPC_SLICE_START_PTR(outbuf);
  int flush = Z_NO_FLUSH;
  for (size_t i = 0; i < input->count; i++) {
    if (i == input->count - 1) flush = Z_FINISH;
    zs->avail_in = static_cast<uInt>(GRPC_SLICE_LENGTH(input->slices[i]));
    zs->next_in = GRPC_SLICE_START_PTR(input->slices[i]);
    do {
      if (zs->avail_out == 0) {
        grpc_slice_buffer_add_indexed(output, outbuf);
        outbuf = grpc_slice_malloc(kOutputBlockSize);
        zs->avail_out = static_cast<uInt>(GRPC_SLICE_LENGTH(outbuf));
        zs->next_out = GRPC_SLICE_START_PTR(outbuf);
      }
      r = flate(zs, flush);
      if (r < 0 && r != Z_BUF_ERROR) {
        grpc_slice_unref(outbuf);
        return 0;
      }
    } while (zs->avail_out == 0);
    if (zs->avail_in != 0) {
      grpc_slice_unref(outbuf);
      return 0;
    }
  }
  if (r != Z_STREAM_END) {
    grpc_slice_unref(outbuf);
    return 0;
  }
  outbuf.data.refcounted.length -= zs->avail_out;
  grpc_slice_buffer_add_indexed(output, outbuf);
  return 1;
}

void* ZallocGpr(void* /*opaque*/, unsigned int items, unsigned int size) {
  return gpr_malloc(items * size);
}

void ZfreeGpr(void* /*opaque*/, void* address) { gpr_free(address); }

// A stream for deflateInit2 or inflateInit2 that allocates with gpr_malloc.
z_stream GprStream() {
  z_stream zs;
  std::memset(&zs, 0, sizeof(zs));
  zs.zalloc = ZallocGpr;
  zs.zfree = ZfreeGpr;
  return zs;
}

// Where `output` ended before a call, so that what a failed call appended
// can be dropped.
class OutputEnd {
 public:
  explicit OutputEnd(const grpc_slice_buffer& output)
      : count_(output.count), length_(output.length) {}

  void DropAppended(grpc_slice_buffer* output) const {
    for (size_t i = count_; i < output->count; i++) {
      grpc_slice_unref(output->slices[i]);
    }
    output->count = count_;
    output->length = length_;
  }

 private:
  size_t count_;
  size_t length_;
};

void CopyRefs(grpc_slice_buffer* input, grpc_slice_buffer* output) {
  for (size_t i = 0; i < input->count; i++) {
    grpc_slice_buffer_add(output, grpc_slice_ref(input->slices[i]));
  }
}

}  // namespace

bool StockCompress(grpc_slice_buffer* input, grpc_slice_buffer* output) {
  const OutputEnd end(*output);
  z_stream zs = GprStream();
  int r = deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 | 16, 8,
                       Z_DEFAULT_STRATEGY);
  if (r != Z_OK) return false;
  r = ZlibBody(&zs, input, output, deflate) && output->length < input->length;
  if (!r) end.DropAppended(output);
  deflateEnd(&zs);
  // grpc_msg_compress: a message that did not shrink is sent as it is.
  if (!r) CopyRefs(input, output);
  return r != 0;
}

bool StockDecompress(grpc_slice_buffer* input, grpc_slice_buffer* output) {
  const OutputEnd end(*output);
  z_stream zs = GprStream();
  int r = inflateInit2(&zs, 15 | 16);
  if (r != Z_OK) return false;
  r = ZlibBody(&zs, input, output, inflate);
  if (!r) end.DropAppended(output);
  inflateEnd(&zs);
  return r != 0;
}

bool PooledCompress(const grpc_slice_buffer& input,
                    const internal::CompressOptions& options,
                    grpc_slice_buffer* output) {
  internal::SliceBufferSink sink(output);
  return internal::Compress(internal::ViewsOf(input), options, &sink).ok();
}

bool PooledDecompress(const grpc_slice_buffer& input, internal::Format format,
                      Backend backend, grpc_slice_buffer* output,
                      internal::Strictness strictness) {
  internal::SliceBufferSink sink(output);
  return internal::Decompress(internal::ViewsOf(input), format,
                              std::numeric_limits<size_t>::max(), &sink,
                              backend, strictness)
      .ok();
}

std::vector<size_t> CoreSliceLengths(Direction direction, size_t length) {
  std::vector<size_t> lengths;
  constexpr size_t kSentBlock = size_t{1} << 20;
  constexpr size_t kSentHeader = 4;
  constexpr size_t kReadBytes = 64 * 1024;
  const bool sent = direction == Direction::kSent;
  size_t first =
      sent ? kSentBlock - kSentHeader : std::min(length / 2, kReadBytes / 2);
  const size_t block = sent ? kSentBlock : kReadBytes;
  if (first == 0) first = length;
  for (size_t at = 0, next = first; at < length; at += next, next = block) {
    lengths.push_back(std::min(next, length - at));
  }
  return lengths;
}

void AddSlices(absl::string_view bytes, const std::vector<size_t>& lengths,
               grpc_slice_buffer* buffer) {
  size_t at = 0;
  for (size_t length : lengths) {
    // Not grpc_slice_buffer_add, which would merge the adjacent static
    // slices back into one.
    grpc_slice_buffer_add_indexed(
        buffer, grpc_slice_from_static_buffer(bytes.data() + at, length));
    at += length;
  }
}

}  // namespace pooled_gzip::bench
