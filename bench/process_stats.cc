#include "process_stats.h"

#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

namespace pooled_gzip::bench {
namespace {

double Seconds(const timeval& t) {
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
}

// Often enough to catch a 1 MiB message's buffers, rarely enough to cost
// nothing measurable on a 2-core machine.
constexpr auto kSamplePeriod = std::chrono::milliseconds(5);

}  // namespace

ProcessUsage ReadProcessUsage() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  ProcessUsage result;
  result.cpu_seconds = Seconds(usage.ru_utime) + Seconds(usage.ru_stime);
  result.minor_faults = static_cast<uint64_t>(usage.ru_minflt);
  return result;
}

uint64_t CurrentRssBytes() {
  std::FILE* file = std::fopen("/proc/self/statm", "r");
  if (file == nullptr) return 0;
  unsigned long size_pages = 0;
  unsigned long resident_pages = 0;
  const int read = std::fscanf(file, "%lu %lu", &size_pages, &resident_pages);
  std::fclose(file);
  if (read != 2) return 0;
  return static_cast<uint64_t>(resident_pages) *
         static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

uint64_t PeakRssBytes() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024;  // ru_maxrss is KiB
}

bool ReadOtherProcessFigures(pid_t pid, OtherProcessFigures* figures) {
  clockid_t clock;
  timespec cpu;
  if (clock_getcpuclockid(pid, &clock) != 0 ||
      clock_gettime(clock, &cpu) != 0) {
    return false;
  }
  figures->cpu_seconds =
      static_cast<double>(cpu.tv_sec) + static_cast<double>(cpu.tv_nsec) * 1e-9;
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    unsigned long long kib = 0;
    if (std::sscanf(line.c_str(), "VmHWM: %llu kB", &kib) == 1) {
      figures->peak_rss_bytes = kib * 1024;
      return true;
    }
  }
  return false;  // a zombie has no VmHWM: it has exited
}

RssSampler::RssSampler() : thread_([this] { Loop(); }) {}

RssSampler::~RssSampler() {
  stop_.store(true);
  thread_.join();
}

void RssSampler::SetLabel(int label) { label_.store(label); }

uint64_t RssSampler::PeakFor(int label) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = peaks_.find(label);
  return it == peaks_.end() ? 0 : it->second;
}

void RssSampler::Loop() {
  while (!stop_.load()) {
    const int label = label_.load();
    if (label >= 0) {
      const uint64_t rss = CurrentRssBytes();
      std::lock_guard<std::mutex> lock(mutex_);
      uint64_t& peak = peaks_[label];
      peak = std::max(peak, rss);
    }
    std::this_thread::sleep_for(kSamplePeriod);
  }
}

}  // namespace pooled_gzip::bench
