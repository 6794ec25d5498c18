// The link the end-to-end benchmark's peers talk over: plain loopback, or a
// loopback shaped to a rate (and, where the kernel has netem, a delay)
// inside a network namespace the orchestrator makes for itself, so that
// nothing outside the benchmark sees the shaping and the peers, started
// after it, inherit it.
//
// Shaping: loopback's MTU goes down to 1500 (an Ethernet link's), and a
// token bucket filter on its egress passes `rate` with a bucket of two
// packets (3 KiB), or 50 us of the rate where that is more (1 Gbit/s:
// 6250 bytes). tbf holds back any packet larger than its bucket forever,
// and loopback's default MTU is 64 KiB; at 1500 the bucket can be small. It
// must be: a bucket refills while the link idles, and what it holds then
// leaves at once, so a setup that idles the link while it compresses would
// get up to one bucket back per pause, which no real link gives (a 16 KiB
// bucket is 13 ms at 10 Mbit/s, a fifth of a 64 KiB round trip). With two
// packets that is at most 2.5 ms at 10 Mbit/s and 0.25 ms at 100 Mbit/s
// per pause; at 1 Gbit/s a bucket that small wakes tbf's timer for every
// other packet and no longer reaches the rate. Both directions share
// loopback's one queue, as on a half-duplex link; the benchmark's round
// trips send one way at a time.

#ifndef POOLED_GZIP_BENCH_E2E_LINK_H_
#define POOLED_GZIP_BENCH_E2E_LINK_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace pooled_gzip::bench {

struct Link {
  std::string name = "loopback";  // as given: "loopback", "100mbit", ...
  uint64_t rate_bits_per_s = 0;   // 0: unshaped
  int delay_ms = 0;               // one way; needs netem
};

// Reads "loopback" or "<n>kbit", "<n>mbit", "<n>gbit".
absl::Status ParseLink(absl::string_view text, int delay_ms, Link* link);

// What the run got, which is what its output states.
struct LinkState {
  bool shaped = false;
  uint64_t rate_bits_per_s = 0;  // 0 when not shaped
  int delay_ms = 0;              // what was applied
  // "loopback, unshaped", "tbf rate 100mbit burst 16kb ...", or the
  // fallback and why ("asked for 100mbit, but ...: plain loopback").
  std::string description;
};

// Moves this process (and every child it starts after) into a new network
// namespace with the shaped loopback. `tc` is the tc binary; empty: looked
// for in PATH, /usr/sbin and /sbin. Without it, or without the privilege
// to make a namespace, or if tc fails, this process stays where it was and
// the state says why.
LinkState EnterLink(const Link& link, const std::string& tc);

}  // namespace pooled_gzip::bench

#endif  // POOLED_GZIP_BENCH_E2E_LINK_H_
