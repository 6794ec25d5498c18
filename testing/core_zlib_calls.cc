#include "core_zlib_calls.h"

#include <cstdlib>
#include <cstring>

#include "codec/core_zlib_parameters.h"

namespace pooled_gzip::test_support {
namespace {

// Core sets gpr's allocator on every stream; these stand for it.
void* Allocate(void* /*opaque*/, unsigned items, unsigned size) {
  return std::malloc(static_cast<size_t>(items) * size);
}
void Free(void* /*opaque*/, void* address) { std::free(address); }

// zlib_body: the output blocks joined, or nullopt where core fails.
std::optional<std::string> Body(z_stream* zs,
                                const std::vector<std::string>& slices,
                                int (*flate)(z_streamp, int)) {
  std::string output;
  std::string block(internal::kCoreOutputBlockBytes, '\0');
  int result = Z_STREAM_END;  // no slices: core's loop never runs
  zs->avail_out = internal::kCoreOutputBlockBytes;
  zs->next_out = reinterpret_cast<Bytef*>(block.data());
  for (size_t i = 0; i < slices.size(); ++i) {
    const int flush = i + 1 == slices.size() ? Z_FINISH : Z_NO_FLUSH;
    zs->avail_in = static_cast<uInt>(slices[i].size());
    zs->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(slices[i].data()));
    do {
      if (zs->avail_out == 0) {
        output += block;
        zs->avail_out = internal::kCoreOutputBlockBytes;
        zs->next_out = reinterpret_cast<Bytef*>(block.data());
      }
      result = flate(zs, flush);
      if (result < 0 && result != Z_BUF_ERROR) return std::nullopt;
    } while (zs->avail_out == 0);
    if (zs->avail_in != 0) return std::nullopt;
  }
  if (result != Z_STREAM_END) return std::nullopt;
  output.append(block.data(), internal::kCoreOutputBlockBytes - zs->avail_out);
  return output;
}

}  // namespace

z_stream CoresStream() {
  // The seam serves the streams of gRPC's allocator; this one stands for it.
  static const bool recognized = [] {
    internal::ServeStreamsAllocatedBy(&Allocate, &Free);
    return true;
  }();
  (void)recognized;
  z_stream zs;
  std::memset(&zs, 0, sizeof(zs));
  zs.zalloc = &Allocate;
  zs.zfree = &Free;
  return zs;
}

ZlibEntryPoints RealZlib() { return internal::RealZlib(); }

ZlibEntryPoints Seam() {
  ZlibEntryPoints seam;
#define POOLED_GZIP_ZLIB_ENTRY(name, role, field, served_by, params, args) \
  seam.field = &internal::served_by;
#include "seam/zlib_entries.def"
#undef POOLED_GZIP_ZLIB_ENTRY
  return seam;
}

ZlibEntryPoints SeamFor(internal::ZlibEntryRole only) {
  ZlibEntryPoints some = RealZlib();
  const ZlibEntryPoints seam = Seam();
#define POOLED_GZIP_ZLIB_ENTRY(name, role, field, served_by, params, args) \
  if (internal::ZlibEntryRole::role == only) some.field = seam.field;
#include "seam/zlib_entries.def"
#undef POOLED_GZIP_ZLIB_ENTRY
  return some;
}

std::optional<std::string> CoreCompress(
    const ZlibEntryPoints& zlib, internal::Format format,
    const std::vector<std::string>& slices) {
  z_stream zs = CoresStream();
  if (zlib.deflate_init(&zs, internal::kCoreLevel, internal::kCoreMethod,
                        internal::WindowBitsOf(format), internal::kCoreMemLevel,
                        internal::kCoreStrategy, ZLIB_VERSION,
                        sizeof(z_stream)) != Z_OK) {
    return std::nullopt;  // core asserts
  }
  std::optional<std::string> output = Body(&zs, slices, zlib.deflate);
  zlib.deflate_end(&zs);
  return output;
}

std::optional<std::string> CoreDecompress(
    const ZlibEntryPoints& zlib, internal::Format format,
    const std::vector<std::string>& slices) {
  z_stream zs = CoresStream();
  if (zlib.inflate_init(&zs, internal::WindowBitsOf(format), ZLIB_VERSION,
                        sizeof(z_stream)) != Z_OK) {
    return std::nullopt;
  }
  std::optional<std::string> output = Body(&zs, slices, zlib.inflate);
  zlib.inflate_end(&zs);
  return output;
}

std::vector<std::string> Slices(const std::string& bytes, size_t piece) {
  std::vector<std::string> slices;
  for (size_t at = 0; at < bytes.size(); at += piece) {
    slices.push_back(bytes.substr(at, piece));
  }
  return slices;
}

}  // namespace pooled_gzip::test_support
