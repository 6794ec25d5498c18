#include "seam/zlib_handoff.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "glue/codec_log.h"
#include "seam/real_zlib.h"

namespace pooled_gzip {
namespace internal {
namespace {

int RealFlate(ServedStream* served, int flush) {
  return served->compressing ? RealZlib().deflate(&served->zlib, flush)
                             : RealZlib().inflate(&served->zlib, flush);
}

// Room zlib may write into this call: inflating, at most one byte past
// the cap in all, so that a stream past it is seen.
uInt ZlibRoom(const ServedStream& served, uInt avail_out) {
  if (served.compressing) return avail_out;
  const uint64_t written = served.zlib.total_out;
  const uint64_t room = written > served.cap ? 0 : served.cap + 1 - written;
  return static_cast<uInt>(std::min<uint64_t>(room, avail_out));
}

bool PastCap(const ServedStream& served) {
  return !served.compressing && served.zlib.total_out > served.cap;
}

}  // namespace

// Opens real zlib with the caller's allocator and replays what the stream
// took so far into `made`, which the next calls hand out first.
int HandToZlib(ServedStream* served, z_streamp stream) {
  z_stream& zlib = served->zlib;
  zlib = z_stream{};
  zlib.zalloc = stream->zalloc;
  zlib.zfree = stream->zfree;
  zlib.opaque = stream->opaque;
  const int opened =
      served->compressing
          ? RealZlib().deflate_init(&zlib, served->level, Z_DEFLATED,
                                    served->window_bits, served->mem_level,
                                    served->strategy, ZLIB_VERSION,
                                    static_cast<int>(sizeof(z_stream)))
          : RealZlib().inflate_init(&zlib, served->window_bits, ZLIB_VERSION,
                                    static_cast<int>(sizeof(z_stream)));
  if (opened != Z_OK) return Fail(served, stream, opened, zlib.msg);
  served->zlib_open = true;
  served->phase = ServedStream::Phase::kZlib;
  served->made.clear();
  served->given = 0;
  zlib.next_in = reinterpret_cast<Bytef*>(served->taken.data());
  zlib.avail_in = static_cast<uInt>(served->taken.size());
  while (zlib.avail_in > 0) {
    const size_t before = served->made.size();
    served->made.resize(before + std::max<size_t>(zlib.avail_in, 4096));
    zlib.next_out = reinterpret_cast<Bytef*>(&served->made[before]);
    const uInt room =
        ZlibRoom(*served, static_cast<uInt>(served->made.size() - before));
    zlib.avail_out = room;
    const int result = RealFlate(served, Z_NO_FLUSH);
    served->made.resize(before + room - zlib.avail_out);
    if (PastCap(*served)) {
      LogRefusal(served->format, served->cap);
      return Fail(served, stream, Z_MEM_ERROR, "past pooled_gzip's cap");
    }
    if (result == Z_STREAM_END && zlib.avail_in > 0) {
      // zlib would have left these bytes in avail_in; they were consumed.
      return Fail(served, stream, Z_DATA_ERROR, "bytes after the stream end");
    }
    if (result == Z_STREAM_END) break;
    if (result != Z_OK && result != Z_BUF_ERROR) {
      return Fail(served, stream, result, zlib.msg);
    }
    if (result == Z_BUF_ERROR && zlib.avail_out > 0) break;  // needs more
  }
  return Z_OK;
}

// A stream real zlib serves: hands out the replay's output first, then
// lets zlib work on the caller's buffers.
int PassOn(ServedStream* served, z_streamp stream, int flush) {
  if (served->given < served->made.size()) {
    if (stream->next_out == nullptr) return Z_STREAM_ERROR;
    if (!Give(served, stream)) return Z_OK;
    if (stream->avail_out == 0) return Z_OK;
  }
  z_stream& zlib = served->zlib;
  zlib.next_in = stream->next_in;
  zlib.avail_in = stream->avail_in;
  zlib.next_out = stream->next_out;
  const uInt room = ZlibRoom(*served, stream->avail_out);
  zlib.avail_out = room;
  const uLong in_before = zlib.total_in;
  const int result = RealFlate(served, flush);
  const uInt written = room - zlib.avail_out;
  stream->total_in += zlib.total_in - in_before;
  stream->next_in = zlib.next_in;
  stream->avail_in = zlib.avail_in;
  stream->next_out = zlib.next_out;
  stream->avail_out -= written;
  stream->total_out += written;
  stream->adler = zlib.adler;
  stream->data_type = zlib.data_type;
  stream->msg = zlib.msg;
  if (PastCap(*served)) {
    LogRefusal(served->format, served->cap);
    return Fail(served, stream, Z_MEM_ERROR, "past pooled_gzip's cap");
  }
  return result;
}

}  // namespace internal
}  // namespace pooled_gzip
