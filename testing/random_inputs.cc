#include "random_inputs.h"

#include <iterator>
#include <random>

namespace pooled_gzip::payloads {

std::string TextLike(size_t size, uint32_t seed) {
  static constexpr const char* kWords[] = {
      "the",  "quick",   "brown", "fox",     "jumps", "over",  "lazy",
      "dog",  "message", "grpc",  "payload", "zlib",  "pool",  "context",
      "gzip", "deflate", "a",     "of",      "and",   "stream"};
  std::mt19937 random(seed);
  std::uniform_int_distribution<size_t> pick(0, std::size(kWords) - 1);
  std::string text;
  text.reserve(size + 16);
  while (text.size() < size) {
    text += kWords[pick(random)];
    text += random() % 13 == 0 ? '\n' : ' ';
  }
  text.resize(size);
  return text;
}

std::string RandomBytes(size_t size, uint32_t seed) {
  std::mt19937 random(seed);
  std::string bytes(size, '\0');
  for (char& c : bytes) c = static_cast<char>(random() & 0xff);
  return bytes;
}

}  // namespace pooled_gzip::payloads
