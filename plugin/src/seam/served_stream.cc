#include "seam/served_stream.h"

#include <new>

#include "seam/real_zlib.h"

namespace pooled_gzip {
namespace internal {
namespace {

// Ended streams of this thread: a few, since core has one message in hand
// at a time on a thread. The head is trivially destructible, so a stream
// ended during the thread's exit, after the owner below, is freed instead.
thread_local ServedStream* idle[kIdleStreamsPerThread] = {};
thread_local bool idle_closed = false;

struct IdleOwner {
  ~IdleOwner() {
    idle_closed = true;
    for (ServedStream*& stream : idle) {
      delete stream;
      stream = nullptr;
    }
  }
};
thread_local IdleOwner idle_owner;

}  // namespace

ServedStream* NewStream(bool compressing, Format format) {
  (void)&idle_owner;  // constructed on the thread's first use
  ServedStream* stream = nullptr;
  for (ServedStream*& slot : idle) {
    if (slot != nullptr) {
      stream = slot;
      slot = nullptr;
      break;
    }
  }
  if (stream == nullptr) {
    stream = new (std::nothrow) ServedStream;
    if (stream == nullptr) return nullptr;
  }
  stream->compressing = compressing;
  stream->format = format;
  stream->phase = ServedStream::Phase::kTaking;
  stream->error = Z_OK;
  stream->buffers = Buffers().Acquire(compressing);
  if (stream->buffers != nullptr) {
    stream->taken.swap(stream->buffers->input);
    stream->made.swap(stream->buffers->output);
  }
  stream->given = 0;
  return stream;
}

void Release(ServedStream* stream) {
  if (stream->zlib_open) {
    if (stream->compressing) {
      RealZlib().deflate_end(&stream->zlib);
    } else {
      RealZlib().inflate_end(&stream->zlib);
    }
    stream->zlib_open = false;
  }
  if (stream->buffers != nullptr) {
    stream->taken.swap(stream->buffers->input);
    stream->made.swap(stream->buffers->output);
    stream->buffers.reset();  // pooled within the caps, or freed
  }
  // Not the pool's, so not kept.
  std::string().swap(stream->taken);
  std::string().swap(stream->made);
  if (!idle_closed) {
    for (ServedStream*& slot : idle) {
      if (slot != nullptr) continue;
      slot = stream;
      return;
    }
  }
  delete stream;
}

}  // namespace internal
}  // namespace pooled_gzip
