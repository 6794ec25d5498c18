// A stand-in for gRPC core's message_compress.cc.o, linked in its place
// into a libgrpc.so.29 relinked from Debian's libgrpc.a by
// relink_libgrpc.sh. Same two functions, same declarations (C++ linkage,
// so the same mangled names, exported as libgrpc exports them), working
// zlib for gRPC's traffic, but code of its own and ANOTHER contract:
// compress reports success whenever deflate succeeds, even when the result
// is not shorter than the input (core declines then and hands back the
// input's refs), and it finishes a stream with a call of its own that
// gives no input. pooled_gzip serves gRPC's codec only at its zlib calls,
// never in place of these functions, so the contract stays the stand-in's.
//
// Built two ways, which differ only in the allocator its zlib streams are
// opened with:
// - POOLED_GZIP_STAND_IN_GPR_ALLOCATOR defined: gpr's, as core opens them
//   (with core's parameters, and Z_FINISH with the last slice inflating):
//   pooled_gzip recognises them as gRPC's and serves them both ways.
// - otherwise zlib's default allocator: not gRPC's streams to pooled_gzip,
//   which leaves them to zlib, and the process runs as stock gRPC.
//
// Each function also says once on stderr when libgrpc's own code called it
// (the caller's return address lies in this object): gRPC's filter then
// still reaches the stand-in, so its relocation slots for these functions
// lead here, whatever pooled_gzip did.

#include <dlfcn.h>
#include <grpc/compression.h>
#include <grpc/slice.h>
#include <grpc/slice_buffer.h>
#include <grpc/support/alloc.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <cstring>

namespace {

constexpr size_t kChunk = 8192;

// Whether `caller` lies in the object that holds this code (libgrpc).
bool CalledFromHere(void* caller) {
  Dl_info own;
  Dl_info theirs;
  return dladdr(reinterpret_cast<void*>(&CalledFromHere), &own) != 0 &&
         dladdr(caller, &theirs) != 0 && own.dli_fbase == theirs.dli_fbase;
}

void MarkOnce(std::atomic<bool>* said, const char* name, void* caller) {
  if (!CalledFromHere(caller) || said->exchange(true)) return;
  char line[160] = "relinked_libgrpc stand-in: ";
  std::strcat(line, name);
  std::strcat(line, " called by libgrpc itself\n");
  (void)!write(2, line, std::strlen(line));
}

#ifdef POOLED_GZIP_STAND_IN_GPR_ALLOCATOR
void* ZallocGpr(void* /*opaque*/, unsigned items, unsigned size) {
  return gpr_malloc(static_cast<size_t>(items) * size);
}

void ZfreeGpr(void* /*opaque*/, void* address) { gpr_free(address); }
#endif

// A stream's allocator, before its init call: gpr's or zlib's default.
void SetAllocator(z_stream* zs) {
#ifdef POOLED_GZIP_STAND_IN_GPR_ALLOCATOR
  zs->zalloc = ZallocGpr;
  zs->zfree = ZfreeGpr;
#else
  zs->zalloc = Z_NULL;
  zs->zfree = Z_NULL;
#endif
}

// Runs `flate` over every slice of `input`, appending to `output`; true
// when the stream ended with all input used. Deflating, every slice goes
// with Z_NO_FLUSH and one more call without input finishes the stream;
// inflating, the last slice goes with Z_FINISH, as core gives it. On
// failure `output` is as it was.
template <typename Flate>
bool Run(z_stream* zs, Flate flate, bool deflating, grpc_slice_buffer* input,
         grpc_slice_buffer* output) {
  const size_t length_before = output->length;
  const size_t calls = deflating ? input->count + 1 : input->count;
  int r = Z_OK;
  for (size_t i = 0; i < calls; ++i) {
    const bool last = i + 1 == calls;
    if (i < input->count) {
      zs->next_in = GRPC_SLICE_START_PTR(input->slices[i]);
      zs->avail_in = static_cast<uInt>(GRPC_SLICE_LENGTH(input->slices[i]));
    }
    do {
      grpc_slice out = grpc_slice_malloc(kChunk);
      zs->next_out = GRPC_SLICE_START_PTR(out);
      zs->avail_out = kChunk;
      r = flate(zs, last ? Z_FINISH : Z_NO_FLUSH);
      if (zs->avail_out == kChunk) {
        grpc_slice_unref(out);
      } else {
        grpc_slice_buffer_add(
            output, grpc_slice_sub_no_ref(out, 0, kChunk - zs->avail_out));
      }
      if (r < 0 && r != Z_BUF_ERROR) break;
      // Finishing, deflate says Z_OK while there is more to come.
    } while (zs->avail_out == 0 || (deflating && last && r == Z_OK));
    if (r < 0 && r != Z_BUF_ERROR) break;
    if (!deflating && r == Z_STREAM_END) {
      if (zs->avail_in != 0 || !last) r = Z_DATA_ERROR;
      break;
    }
  }
  if (r == Z_STREAM_END) return true;
  // trim_end must not be asked for nothing: on an empty buffer it would
  // read the slice before the first.
  if (output->length > length_before) {
    grpc_slice_buffer_trim_end(output, output->length - length_before, nullptr);
  }
  return false;
}

int WindowBits(grpc_compression_algorithm algorithm) {
  return algorithm == GRPC_COMPRESS_GZIP ? 15 | 16 : 15;
}

std::atomic<bool> g_compress_said{false};
std::atomic<bool> g_decompress_said{false};

}  // namespace

int grpc_msg_compress(grpc_compression_algorithm algorithm,
                      grpc_slice_buffer* input, grpc_slice_buffer* output) {
  MarkOnce(&g_compress_said, "grpc_msg_compress", __builtin_return_address(0));
  if (algorithm == GRPC_COMPRESS_GZIP || algorithm == GRPC_COMPRESS_DEFLATE) {
    z_stream zs{};
    SetAllocator(&zs);
    if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED,
                     WindowBits(algorithm), 8, Z_DEFAULT_STRATEGY) == Z_OK) {
      const bool ok = Run(&zs, deflate, true, input, output);
      deflateEnd(&zs);
      if (ok) return 1;  // the other contract: shorter or not
    }
  }
  for (size_t i = 0; i < input->count; ++i) {
    grpc_slice_buffer_add(output, grpc_slice_ref(input->slices[i]));
  }
  return 0;
}

int grpc_msg_decompress(grpc_compression_algorithm algorithm,
                        grpc_slice_buffer* input, grpc_slice_buffer* output) {
  MarkOnce(&g_decompress_said, "grpc_msg_decompress",
           __builtin_return_address(0));
  if (algorithm == GRPC_COMPRESS_NONE) {
    for (size_t i = 0; i < input->count; ++i) {
      grpc_slice_buffer_add(output, grpc_slice_ref(input->slices[i]));
    }
    return 1;
  }
  if (algorithm != GRPC_COMPRESS_GZIP && algorithm != GRPC_COMPRESS_DEFLATE) {
    return 0;
  }
  z_stream zs{};
  SetAllocator(&zs);
  if (inflateInit2(&zs, WindowBits(algorithm)) != Z_OK) return 0;
  const bool ok = Run(&zs, inflate, false, input, output);
  inflateEnd(&zs);
  return ok ? 1 : 0;
}
