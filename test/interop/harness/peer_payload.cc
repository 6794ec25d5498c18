#include "peer_payload.h"

namespace pooled_gzip::interop {

std::string PeerPayload(size_t size, int seed) {
  static const char* const kWords[] = {"alpha", "bravo",   "charlie", "delta",
                                       "echo",  "foxtrot", "golf",    "hotel",
                                       "india", "juliet"};
  std::string text;
  text.reserve(size + 16);
  for (int k = 0; text.size() < size; ++k) {
    text += kWords[(k * 7 + seed * 3) % 10];
    text += k % 8 == 7 ? '\n' : ' ';
  }
  text.resize(size);
  return text;
}

}  // namespace pooled_gzip::interop
