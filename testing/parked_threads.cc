#include "parked_threads.h"

#include <utility>

namespace pooled_gzip::test_support {

ParkedThreads::ParkedThreads(int count, const std::function<void()>& work) {
  for (int i = 0; i < count; ++i) Park(work);
}

ParkedThreads::~ParkedThreads() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
    cv_.notify_all();
  }
  for (std::thread& thread : threads_) thread.join();
}

void ParkedThreads::Park(std::function<void()> work) {
  threads_.emplace_back([this, work = std::move(work)] {
    work();
    std::unique_lock<std::mutex> lock(mu_);
    ++parked_;
    cv_.notify_all();
    cv_.wait(lock, [this] { return released_; });
  });
  const size_t started = threads_.size();
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this, started] { return parked_ == started; });
}

}  // namespace pooled_gzip::test_support
