#include "client_threads.h"

namespace pooled_gzip::bench {

ClientThreads::ClientThreads(int count) {
  threads_.reserve(count);
  for (int i = 0; i < count; ++i) threads_.emplace_back([this, i] { Loop(i); });
}

ClientThreads::~ClientThreads() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

void ClientThreads::Run(int count, const std::function<void(int)>& task) {
  std::unique_lock<std::mutex> lock(mutex_);
  task_ = &task;
  active_ = count;
  pending_ = count;
  ++generation_;
  wake_.notify_all();
  done_.wait(lock, [this] { return pending_ == 0; });
  task_ = nullptr;
}

void ClientThreads::Loop(int index) {
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
    if (stop_) return;
    seen = generation_;
    if (index >= active_) continue;
    const std::function<void(int)>* task = task_;
    lock.unlock();
    (*task)(index);
    lock.lock();
    if (--pending_ == 0) done_.notify_all();
  }
}

}  // namespace pooled_gzip::bench
