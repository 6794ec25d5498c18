// A process-wide mutex that fork() never leaves locked in the child. The
// child has only the thread that forked: a lock another thread held at
// that moment would stay taken for good, and the child's next user of it
// would wait forever. The forking thread takes the mutex before fork() and
// releases it after, in the parent and in the child.

#ifndef POOLED_GZIP_SRC_POOL_HELD_ACROSS_FORK_H_
#define POOLED_GZIP_SRC_POOL_HELD_ACROSS_FORK_H_

#include <pthread.h>

#include <mutex>

namespace pooled_gzip {
namespace internal {

// Registers the mutex that `Get` returns (one that lives as long as the
// process). Mutexes registered later are taken first; one that may be
// held while another is taken must be registered after it.
template <std::mutex& (*Get)()>
void HoldAcrossFork() {
  pthread_atfork([] { Get().lock(); }, [] { Get().unlock(); },
                 [] { Get().unlock(); });
}

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_POOL_HELD_ACROSS_FORK_H_
