// Long-lived client threads for the end-to-end benchmark. The pool of zlib
// contexts is thread-local, so a benchmark that started fresh threads for
// every run would measure a cold pool each time; applications keep their
// threads, and so does this.

#ifndef POOLED_GZIP_BENCH_CLIENT_THREADS_H_
#define POOLED_GZIP_BENCH_CLIENT_THREADS_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace pooled_gzip::bench {

class ClientThreads {
 public:
  explicit ClientThreads(int count);
  ~ClientThreads();
  ClientThreads(const ClientThreads&) = delete;
  ClientThreads& operator=(const ClientThreads&) = delete;

  int size() const { return static_cast<int>(threads_.size()); }

  // Runs task(0) .. task(count - 1), each on its own thread (thread i always
  // runs index i), and returns when all are done. count <= size().
  void Run(int count, const std::function<void(int)>& task);

 private:
  void Loop(int index);

  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  const std::function<void(int)>* task_ = nullptr;  // guarded by mutex_
  int active_ = 0;           // threads taking part in this round
  int pending_ = 0;          // of those, not yet finished
  uint64_t generation_ = 0;  // bumped per round
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace pooled_gzip::bench

#endif  // POOLED_GZIP_BENCH_CLIENT_THREADS_H_
