// Threads that each run one piece of work and then stay alive, idle, with
// whatever the work left in their thread-local state (idle contexts, kept
// buffers), until the object is destroyed: the state of a server whose
// threads handled a message each and now wait for the next.

#ifndef POOLED_GZIP_TESTING_PARKED_THREADS_H_
#define POOLED_GZIP_TESTING_PARKED_THREADS_H_

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace pooled_gzip::test_support {

class ParkedThreads {
 public:
  ParkedThreads() = default;
  // `count` threads running `work`, one after another.
  ParkedThreads(int count, const std::function<void()>& work);
  // Lets every thread finish, and joins them.
  ~ParkedThreads();

  ParkedThreads(const ParkedThreads&) = delete;
  ParkedThreads& operator=(const ParkedThreads&) = delete;

  // Starts a thread that runs `work`; returns once the work is done and the
  // thread waits.
  void Park(std::function<void()> work);

  size_t size() const { return threads_.size(); }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  size_t parked_ = 0;      // guarded
  bool released_ = false;  // guarded
  std::vector<std::thread> threads_;
};

}  // namespace pooled_gzip::test_support

#endif  // POOLED_GZIP_TESTING_PARKED_THREADS_H_
