// Process-wide resource figures for the end-to-end benchmark: CPU time,
// page faults and resident memory, all from the kernel's own accounting.

#ifndef POOLED_GZIP_BENCH_PROCESS_STATS_H_
#define POOLED_GZIP_BENCH_PROCESS_STATS_H_

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>

namespace pooled_gzip::bench {

// getrusage(RUSAGE_SELF): every thread of the process, so client and server
// together, which is what one loopback round trip costs the machine.
struct ProcessUsage {
  double cpu_seconds = 0;  // user + system
  uint64_t minor_faults = 0;
};
ProcessUsage ReadProcessUsage();

// The process's resident set now, from /proc/self/statm; 0 if unreadable.
uint64_t CurrentRssBytes();
// The kernel's high-water mark (ru_maxrss) since the process started.
uint64_t PeakRssBytes();

// Another process's figures, read from outside it the same way whatever
// it runs (gRPC C++, Go or Node.js): its CPU clock (clock_getcpuclockid:
// every thread, exited ones included, in nanoseconds) and the kernel's
// high-water mark of its resident set (VmHWM). False if it is gone.
struct OtherProcessFigures {
  double cpu_seconds = 0;
  uint64_t peak_rss_bytes = 0;
};
bool ReadOtherProcessFigures(pid_t pid, OtherProcessFigures* figures);

// Samples the resident set every few milliseconds on its own thread and
// keeps the largest value seen under each label, so that the peak of one
// benchmark mode can be told from another's within one process.
class RssSampler {
 public:
  RssSampler();
  ~RssSampler();
  RssSampler(const RssSampler&) = delete;
  RssSampler& operator=(const RssSampler&) = delete;

  // Samples from now on count towards `label`; -1 counts towards none.
  void SetLabel(int label);
  uint64_t PeakFor(int label) const;

 private:
  void Loop();

  std::atomic<int> label_{-1};
  std::atomic<bool> stop_{false};
  mutable std::mutex mutex_;
  std::map<int, uint64_t> peaks_;  // guarded by mutex_
  std::thread thread_;
};

}  // namespace pooled_gzip::bench

#endif  // POOLED_GZIP_BENCH_PROCESS_STATS_H_
