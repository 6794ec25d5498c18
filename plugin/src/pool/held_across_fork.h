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

// The process-lifetime mutex that `Self` returns, registered as above when
// first used: std::mutex& M() { return MutexHeldAcrossFork<&M>(); }
template <std::mutex& (*Self)()>
std::mutex& MutexHeldAcrossFork() {
  static std::mutex* const mutex = [] {
    auto* created = new std::mutex;
    HoldAcrossFork<Self>();
    return created;
  }();
  return *mutex;
}

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_POOL_HELD_ACROSS_FORK_H_
