#include "process_memory.h"

#include <fstream>
#include <string>

namespace pooled_gzip::reliability {
namespace {

// Reads a "Name:   123 kB" line of /proc/self/status.
size_t StatusKiB(const std::string& name) {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == name + ":") {
      size_t kib = 0;
      status >> kib;
      return kib * 1024;
    }
    std::getline(status, key);
  }
  return 0;
}

}  // namespace

size_t CurrentRssBytes() { return StatusKiB("VmRSS"); }

size_t PeakRssBytes() { return StatusKiB("VmHWM"); }

bool ResetPeakRss() {
  // "5" resets the peak RSS (VmHWM) to the current RSS, Linux >= 4.0.
  std::ofstream clear_refs("/proc/self/clear_refs");
  clear_refs << "5";
  clear_refs.flush();
  return static_cast<bool>(clear_refs);
}

}  // namespace pooled_gzip::reliability
