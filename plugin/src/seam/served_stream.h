// One stream the zlib emulation serves (seam/zlib_seam.h), as it and the
// hand-off to real zlib (seam/zlib_handoff.h) see it.

#ifndef POOLED_GZIP_SRC_SEAM_SERVED_STREAM_H_
#define POOLED_GZIP_SRC_SEAM_SERVED_STREAM_H_

#include <zlib.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "codec/format.h"
#include "codec/pools.h"

namespace pooled_gzip {
namespace internal {

// Above any user-space address on x86-64 and AArch64 (48-bit or 52-bit),
// so never the z_streamp that zlib's own state begins with.
inline constexpr uint64_t kServedMagic = 0xfeed'5eed'0000'6a70;

// What one served stream holds between calls. Its buffers come from the
// pool (codec/message_buffers.h) and go back to it when the stream ends;
// the stream itself is kept per thread for the next message.
struct ServedStream {
  uint64_t magic = kServedMagic;  // first, where zlib keeps z_streamp
  bool compressing = true;
  Format format = Format::kGzip;
  enum class Phase { kTaking, kGiving, kEnded, kFailed, kZlib };
  Phase phase = Phase::kTaking;
  int error = Z_OK;
  std::string taken;  // input taken before Z_FINISH
  std::string made;   // the stream or message made, or zlib's replay output
  // Where `taken` and `made` came from, and go back to; null if the pool
  // could not make one.
  BufferPool::Handle buffers;
  size_t given = 0;  // bytes of `made` handed out
  // Real zlib, once the stream is handed to it; opened with the caller's
  // allocator and these parameters.
  z_stream zlib{};
  bool zlib_open = false;
  int level = Z_DEFAULT_COMPRESSION;
  int window_bits = MAX_WBITS;
  int mem_level = 8;
  int strategy = Z_DEFAULT_STRATEGY;
  size_t cap = 0;  // inflating: the cap read when the stream was opened
};

// Ended streams a thread keeps, without their buffers, for its next
// messages: core has one message in hand at a time on a thread.
inline constexpr int kIdleStreamsPerThread = 2;

// What a thread keeps of the library's heap outside max_pooled_bytes once
// its messages are done, whatever their size: its ended streams, and the
// pools' record of each kind of context it used (a slot each: the writers
// and readers of the settings in use, the buffers of each direction). The
// figure docs/design.md states.
inline constexpr size_t kFixedBytesPerThread = 4096;
static_assert(kIdleStreamsPerThread * sizeof(ServedStream) <=
                  kFixedBytesPerThread / 4,
              "the streams leave most of the fixed part to the slots");

inline void Consume(z_streamp stream, size_t bytes) {
  stream->next_in += bytes;
  stream->avail_in -= static_cast<uInt>(bytes);
  stream->total_in += bytes;
}

// Copies what the caller has room for of `made`; true once all is given.
inline bool Give(ServedStream* served, z_streamp stream) {
  const size_t bytes =
      std::min<size_t>(served->made.size() - served->given, stream->avail_out);
  std::memcpy(stream->next_out, served->made.data() + served->given, bytes);
  stream->next_out += bytes;
  stream->avail_out -= static_cast<uInt>(bytes);
  stream->total_out += bytes;
  served->given += bytes;
  return served->given == served->made.size();
}

inline int Fail(ServedStream* served, z_streamp stream, int error,
                const char* why) {
  served->phase = ServedStream::Phase::kFailed;
  served->error = error;
  stream->msg = const_cast<char*>(why);
  return error;
}

// A stream for a new caller, from this thread's ended ones if it has one
// (core has one message in hand at a time on a thread); null when out of
// memory.
ServedStream* NewStream(bool compressing, Format format);

// Ends a stream: closes its real zlib stream if it was handed to one,
// gives its buffers back to the pool, and keeps it for the thread's next
// stream or frees it.
void Release(ServedStream* stream);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_SEAM_SERVED_STREAM_H_
