// The payload every client of the suite sends (the Go, Node and Python
// peers and the example client, examples/echo_client.cc): simple enough to
// write identically in four languages, and compressible like text.

#ifndef POOLED_GZIP_TEST_INTEROP_HARNESS_PEER_PAYLOAD_H_
#define POOLED_GZIP_TEST_INTEROP_HARNESS_PEER_PAYLOAD_H_

#include <cstddef>
#include <string>

namespace pooled_gzip::interop {

// Words from a fixed list of ten, word k being (7k + 3 seed) mod 10, each
// followed by a space or, every eighth, a newline; cut to `size` bytes.
std::string PeerPayload(size_t size, int seed);

}  // namespace pooled_gzip::interop

#endif  // POOLED_GZIP_TEST_INTEROP_HARNESS_PEER_PAYLOAD_H_
