// The zlib seam: gRPC's message codec served where it calls zlib.
//
// Every gRPC build (message_compress.cc, 1.51 through master) makes each
// message's stream through six zlib entry points: deflateInit2_ or
// inflateInit2_, then deflate or inflate once per input slice (Z_NO_FLUSH,
// Z_FINISH on the last) into 1,024-byte output slices for as long as it
// fills them, then deflateEnd or inflateEnd. In a shared libgrpc these are
// imports whatever it was linked with, and only the message codec makes
// them; activation points their slots here (seam/activation.h). A program
// linked with the static flavour reaches them for every zlib call it makes
// (seam/link_time_routing.h).
//
// Each function keeps zlib's contract for any caller:
// - A stream opened with core's parameters (Z_DEFAULT_COMPRESSION,
//   Z_DEFLATED, windowBits 15 or 31, memLevel 8, Z_DEFAULT_STRATEGY:
//   codec/core_zlib_parameters.h) and gRPC's allocator (gpr's, learned while
//   activation watches gRPC's own codec), in a direction activation has seen
//   served, is served: its input is taken (copied, as zlib lets a caller reuse
//   what it consumed) until Z_FINISH; then one codec call makes the whole
//   stream, or inflates the whole message, with the configured backend, the
//   pools, the cap and the traffic statistics (codec/codec.h); the result is
//   handed out over as many calls as the caller's output room needs.
// - Any other stream is real zlib's from the start (its caller may rely on
//   output before Z_FINISH), and so is a served stream from its first
//   flush that is neither Z_NO_FLUSH nor Z_FINISH (seam/zlib_handoff.h).
// - A served stream's state begins with a word no zlib state begins with,
//   so a stream real zlib opened is passed on to real zlib.
//
// What a caller can tell apart, none of which changes what core does with
// a message: a served stream writes nothing before Z_FINISH; its bytes are
// the backend's; and a stream the codec refuses fails at Z_FINISH for good,
// with Z_DATA_ERROR (corrupt, truncated, or followed by bytes zlib would
// leave unread, where core fails the message as well) or Z_MEM_ERROR (past
// the cap, or out of memory).

#ifndef POOLED_GZIP_SRC_SEAM_ZLIB_SEAM_H_
#define POOLED_GZIP_SRC_SEAM_ZLIB_SEAM_H_

#include <zlib.h>

#include <cstdint>

#include "absl/types/span.h"

namespace pooled_gzip {
namespace internal {

int SeamDeflateInit2(z_streamp stream, int level, int method, int window_bits,
                     int mem_level, int strategy, const char* version,
                     int stream_size);
int SeamDeflate(z_streamp stream, int flush);
int SeamDeflateEnd(z_streamp stream);
int SeamInflateInit2(z_streamp stream, int window_bits, const char* version,
                     int stream_size);
int SeamInflate(z_streamp stream, int flush);
int SeamInflateEnd(z_streamp stream);

// Whether an entry point passes real zlib's streams on, or opens streams
// the seam may serve (seam/zlib_entries.def says why the order matters).
enum class ZlibEntryRole { kPassing, kOpening };

// One of zlib's entry points, the function above that serves it, and the
// stock one, zlib's own as this library reaches it.
struct ZlibEntry {
  const char* name;
  ZlibEntryRole role;
  void* served;
  const void* stock;
};

// Every row of seam/zlib_entries.def, in its order.
absl::Span<const ZlibEntry> ZlibEntries();

// Serves the streams that core's parameters open with this allocator from
// now on (a few allocators at most; more are ignored). Tests name their
// stand-in for gpr's allocator so.
void ServeStreamsAllocatedBy(alloc_func zalloc, free_func zfree);

// While one lives on a thread, the allocator of a stream opened there with
// core's parameters is taken for gRPC's own and served from then on:
// activation holds one while it calls gRPC's own message codec.
class RecognizingGrpcStreams {
 public:
  RecognizingGrpcStreams();
  ~RecognizingGrpcStreams();
  RecognizingGrpcStreams(const RecognizingGrpcStreams&) = delete;
  RecognizingGrpcStreams& operator=(const RecognizingGrpcStreams&) = delete;

 private:
  bool outer_;
};

// Streams made to the end and freed by the seam on the calling thread,
// per direction: what activation watches to see gRPC's own code served.
uint64_t StreamsServedOnThisThread(bool compressing);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_SEAM_ZLIB_SEAM_H_
