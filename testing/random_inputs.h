// Quick inputs for the codec and backend tests: text that compresses like
// real text, and noise that does not. Both rest on std::mt19937 (and the
// text on libstdc++'s distribution), so unlike payloads.h they are only
// stable on one standard library; use payloads::Make where bytes must match
// across machines or languages.

#ifndef POOLED_GZIP_TESTING_RANDOM_INPUTS_H_
#define POOLED_GZIP_TESTING_RANDOM_INPUTS_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace pooled_gzip::payloads {

// Words from a vocabulary of twenty, a newline after one in thirteen.
std::string TextLike(size_t size, uint32_t seed = 1);

// Uniformly random bytes.
std::string RandomBytes(size_t size, uint32_t seed = 42);

}  // namespace pooled_gzip::payloads

#endif  // POOLED_GZIP_TESTING_RANDOM_INPUTS_H_
