// A stand-in for a gRPC archive built with -flto: gRPC's message codec as
// core writes it (message_compress.cc: zlib_body on gpr's allocator, 1 KiB
// output slices, the declined-compression rule), compiled to LTO objects
// together with its caller (lto_grpc_filter.cc), as gRPC's compression
// filter is in such an archive, where the link-time optimizer may inline
// one into the other. The static flavour routes none of this code: it
// wraps zlib's six entry points, and the zlib calls below, from LTO
// objects into a zlib that is not LTO, must still reach pooled_gzip's
// __wrap_ functions.

#include <grpc/compression.h>
#include <grpc/slice.h>
#include <grpc/slice_buffer.h>
#include <grpc/support/alloc.h>
#include <zlib.h>

namespace {

constexpr size_t kOutputBlockSize = 1024;

void* ZallocGpr(void* /*opaque*/, unsigned items, unsigned size) {
  return gpr_malloc(static_cast<size_t>(items) * size);
}

void ZfreeGpr(void* /*opaque*/, void* address) { gpr_free(address); }

int ZlibBody(z_stream* zs, grpc_slice_buffer* input, grpc_slice_buffer* output,
             int (*flate)(z_stream*, int)) {
  int r = Z_STREAM_END;  // an empty input does not fail
  grpc_slice out = grpc_slice_malloc(kOutputBlockSize);
  zs->avail_out = static_cast<uInt>(kOutputBlockSize);
  zs->next_out = GRPC_SLICE_START_PTR(out);
  for (size_t i = 0; i < input->count; ++i) {
    grpc_slice in = input->slices[i];
    zs->avail_in = static_cast<uInt>(GRPC_SLICE_LENGTH(in));
    zs->next_in = GRPC_SLICE_START_PTR(in);
    const int flush = i == input->count - 1 ? Z_FINISH : Z_NO_FLUSH;
    do {
      if (zs->avail_out == 0) {
        grpc_slice_buffer_add_indexed(output, out);
        out = grpc_slice_malloc(kOutputBlockSize);
        zs->avail_out = static_cast<uInt>(kOutputBlockSize);
        zs->next_out = GRPC_SLICE_START_PTR(out);
      }
      r = flate(zs, flush);
      if (r < 0 && r != Z_BUF_ERROR) goto error;
    } while (zs->avail_out == 0);
    if (zs->avail_in != 0) goto error;
  }
  if (r != Z_STREAM_END) goto error;
  out.data.refcounted.length -= zs->avail_out;
  grpc_slice_buffer_add_indexed(output, out);
  return 1;
error:
  grpc_slice_unref(out);
  return 0;
}

// Takes back what a failed or declined call added to `output`.
void Restore(grpc_slice_buffer* output, size_t count_before,
             size_t length_before) {
  for (size_t i = count_before; i < output->count; ++i) {
    grpc_slice_unref(output->slices[i]);
  }
  output->count = count_before;
  output->length = length_before;
}

int Deflate(z_stream* zs, int flush) { return deflate(zs, flush); }
int Inflate(z_stream* zs, int flush) { return inflate(zs, flush); }

bool Zlib(grpc_compression_algorithm algorithm) {
  return algorithm == GRPC_COMPRESS_DEFLATE || algorithm == GRPC_COMPRESS_GZIP;
}

int WindowBits(grpc_compression_algorithm algorithm) {
  return algorithm == GRPC_COMPRESS_GZIP ? 15 | 16 : 15;
}

void CopyRefs(grpc_slice_buffer* input, grpc_slice_buffer* output) {
  for (size_t i = 0; i < input->count; ++i) {
    grpc_slice_buffer_add(output, grpc_slice_ref(input->slices[i]));
  }
}

}  // namespace

int grpc_msg_compress(grpc_compression_algorithm algorithm,
                      grpc_slice_buffer* input, grpc_slice_buffer* output) {
  if (Zlib(algorithm)) {
    const size_t count_before = output->count;
    const size_t length_before = output->length;
    z_stream zs{};
    zs.zalloc = ZallocGpr;
    zs.zfree = ZfreeGpr;
    if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED,
                     WindowBits(algorithm), 8, Z_DEFAULT_STRATEGY) == Z_OK) {
      const int made = ZlibBody(&zs, input, output, &Deflate);
      deflateEnd(&zs);
      // Core weighs the whole output, bytes already there included.
      if (made && output->length < input->length) return 1;
      Restore(output, count_before, length_before);
    }
  }
  CopyRefs(input, output);
  return 0;
}

int grpc_msg_decompress(grpc_compression_algorithm algorithm,
                        grpc_slice_buffer* input, grpc_slice_buffer* output) {
  if (!Zlib(algorithm)) {
    CopyRefs(input, output);
    return 1;
  }
  const size_t count_before = output->count;
  const size_t length_before = output->length;
  z_stream zs{};
  zs.zalloc = ZallocGpr;
  zs.zfree = ZfreeGpr;
  if (inflateInit2(&zs, WindowBits(algorithm)) != Z_OK) return 0;
  const int made = ZlibBody(&zs, input, output, &Inflate);
  inflateEnd(&zs);
  if (!made) Restore(output, count_before, length_before);
  return made;
}
