// The two roles an e2e_bench process takes when the orchestrator starts it
// (e2e_bench --role=server|client ...): one echo server, or one client
// channel with long-lived client threads, in one setup. Both read commands
// from stdin and answer on stdout, one line each:
//
//   server:  prints "listening <port> core_codec=<0|1>", then answers
//            "stats" with "stats <counters>" (see ToWords).
//   client:  connects, prints "ready core_codec=<0|1>", then answers
//            "run <rpc> <threads> <kind> <size> <ms> <min_messages>" with
//            one run's ToLine.
//
// End of input ends either. Anything that goes wrong is one line starting
// with "error".

#ifndef POOLED_GZIP_BENCH_E2E_PEER_H_
#define POOLED_GZIP_BENCH_E2E_PEER_H_

#include <string>

#include "e2e_runner.h"
#include "e2e_setups.h"

namespace pooled_gzip::bench {

// The client role's "run" command for one run of `cell`.
std::string RunCommand(const Cell& cell, int duration_ms, int min_messages);

int RunServerRole(const Setup& setup);
int RunClientRole(const Setup& setup, const std::string& target,
                  int max_threads);

}  // namespace pooled_gzip::bench

#endif  // POOLED_GZIP_BENCH_E2E_PEER_H_
