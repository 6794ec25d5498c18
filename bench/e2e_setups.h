// What the end-to-end benchmark compares: a "setup" is one way of running
// the echo pair, and each setup gets its own server process and its own
// client process, because pooled-gzip's core codec, once set up, serves
// every gzip message of its process:
//   none:    stock gRPC, no compression;
//   stock:   stock gRPC gzip (core's zlib-6, a fresh stream per message);
//   pooled:  pooled_gzip::CreateChannel / EnableOnServer, gzip, with a
//            backend and level set by pooled_gzip::Configure in both
//            processes, or left at the library's default; "+skip" turns
//            Options::skip_incompressible on as well.

#ifndef POOLED_GZIP_BENCH_E2E_SETUPS_H_
#define POOLED_GZIP_BENCH_E2E_SETUPS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "pooled_gzip/options.h"

namespace pooled_gzip::bench {

enum class Compression { kNone, kStock, kPooled };

struct Setup {
  Compression compression = Compression::kNone;
  // Pooled only: whether the peers call Configure({backend, level}); false
  // leaves the library's default in force.
  bool configure = false;
  Backend backend = Backend::kZlib;
  int level = kDefaultLevel;  // resolved for pooled setups
  // Pooled only: the backend and level equal the library's default.
  bool is_default = false;
  // Pooled only: Options::skip_incompressible (Configure'd).
  bool skip = false;
};

// "none", "stock", "zlib-6", "libdeflate-6", "isal-1", "libdeflate-6+skip":
// what reports print and what ParseSetup reads back.
std::string SetupName(const Setup& setup);

// Reads "none", "stock", "default" (the library's default backend and
// level), or "<backend>[-<level>]" with backend zlib, libdeflate or isal
// ("libdeflate" alone: that backend's default level); a pooled one may end
// in "+skip".
absl::Status ParseSetup(absl::string_view text, Setup* setup);

// Parses every item, then drops "default" if another item already names the
// same backend and level (marking that one is_default instead), and any
// exact duplicate.
absl::Status ParseSetups(const std::vector<std::string>& items,
                         std::vector<Setup>* setups);

// The flags that hand `setup` to a peer process, and their reading there
// (which also calls Configure for a pooled setup that asks for it).
std::vector<std::string> PeerFlags(const Setup& setup);
absl::Status SetupFromPeerFlags(const std::string& compression,
                                const std::string& backend, int level,
                                bool configure, bool skip, Setup* setup);

// The bytes of one message of `serialized` on the wire (the gRPC frame's
// 5-byte prefix not included) under `setup`: gzip by the setup's codec if
// that makes it smaller, else `serialized` as it is (core's rule, which the
// core codec keeps).
size_t WireBytes(const Setup& setup, const std::string& serialized);

// "none", "stock" or "pooled": the --compression value of a peer.
const char* CompressionName(Compression compression);

}  // namespace pooled_gzip::bench

#endif  // POOLED_GZIP_BENCH_E2E_SETUPS_H_
