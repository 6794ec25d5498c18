// Waiting for the process-wide pool to be at rest, where its counters must
// account for every context: created - destroyed == pooled.

#ifndef POOLED_GZIP_TEST_RELIABILITY_POOL_AT_REST_H_
#define POOLED_GZIP_TEST_RELIABILITY_POOL_AT_REST_H_

#include "pooled_gzip/pool_stats.h"

namespace pooled_gzip::reliability {

// True once a snapshot of the pool satisfies created - destroyed == pooled,
// i.e. no context is checked out; false if none does within 30 s. `last`
// receives the final snapshot.
//
// Why wait at all: after a server shuts down, gRPC's own threads (the sync
// server's workers, the event engine's pool) may still be exiting, and a
// thread that exits frees its idle contexts in the same moment the counters
// are read one by one. Such a snapshot is off by one for an instant; a
// context that was checked out and never returned stays off forever. The
// wait is for that distinction only: it returns as soon as the books
// balance, and nothing else depends on timing.
bool PoolComesToRest(PoolStats* last);

}  // namespace pooled_gzip::reliability

#endif  // POOLED_GZIP_TEST_RELIABILITY_POOL_AT_REST_H_
