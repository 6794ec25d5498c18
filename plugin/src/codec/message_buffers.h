// The buffers of a caller that holds a whole message across calls: the
// input it gathers before the codec runs and the output it hands out
// after (the zlib seam's served streams). Pooled as the writers and
// readers are (codec/pools.h), so that a thread's next message allocates
// none of them and their heap counts against max_pooled_bytes: kept at
// any size while the byte cap holds them, freed when it cannot.

#ifndef POOLED_GZIP_SRC_CODEC_MESSAGE_BUFFERS_H_
#define POOLED_GZIP_SRC_CODEC_MESSAGE_BUFFERS_H_

#include <cstddef>
#include <new>
#include <string>

namespace pooled_gzip {
namespace internal {

struct MessageBuffers {
  std::string input;
  std::string output;
};

// The pool's Policy. A key per direction (true: compressing), whose
// messages' sizes differ.
struct MessageBuffersPolicy {
  using Context = MessageBuffers;
  using Key = bool;
  static MessageBuffers* Create(const bool&) {
    return new (std::nothrow) MessageBuffers;
  }
  static bool Reset(MessageBuffers* buffers) {
    buffers->input.clear();
    buffers->output.clear();
    return true;
  }
  static size_t Bytes(const MessageBuffers& buffers) {
    return sizeof(buffers) + HeapOf(buffers.input) + HeapOf(buffers.output);
  }
  static bool Shrink(MessageBuffers* buffers) {
    const bool kept = HeapOf(buffers->input) + HeapOf(buffers->output) > 0;
    std::string().swap(buffers->input);
    std::string().swap(buffers->output);
    return kept;
  }
  static void Destroy(MessageBuffers* buffers) { delete buffers; }

  // A string's allocation: its capacity and the terminating byte, unless it
  // fits in the string itself.
  static size_t HeapOf(const std::string& s) {
    static const size_t kInPlace = std::string().capacity();
    return s.capacity() > kInPlace ? s.capacity() + 1 : 0;
  }
};

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_MESSAGE_BUFFERS_H_
