#ifndef POOLED_GZIP_SRC_POOL_HELD_ACROSS_FORK_H_
#define POOLED_GZIP_SRC_POOL_HELD_ACROSS_FORK_H_

#include <pthread.h>

#include <mutex>

namespace pooled_gzip {
namespace internal {

// Registers the mutex `Get` returns, which lives as long as the process, so
// that fork() never leaves it locked in the child: the forking thread takes
// it before fork() and releases it after. Mutexes registered later are
// taken first: one that may be held while another is taken must be
// registered after it.
template <std::mutex& (*Get)()>
void HoldAcrossFork() {
  pthread_atfork([] { Get().lock(); }, [] { Get().unlock(); },
                 [] { Get().unlock(); });
}

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_POOL_HELD_ACROSS_FORK_H_
