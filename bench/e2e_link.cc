#include "e2e_link.h"

#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "child_process.h"

namespace pooled_gzip::bench {
namespace {

constexpr int kMtu = 1500;
// See e2e_link.h: two packets, or 50 us of the rate where that is more.
constexpr uint64_t kMinBurstBytes = 3 * 1024;
constexpr uint64_t kBurstMicros = 50;
// Deep enough that the queue holds a whole 1 MiB message each way and never
// drops: with no round-trip time to pace it, TCP on loopback hands the
// qdisc as much as tcp_limit_output_bytes lets it, and a drop would add
// loss recovery, whose cost depends on the kernel's congestion control more
// than on the link.
constexpr int kLimitBytes = 4 * 1024 * 1024;

std::string RateText(uint64_t bits_per_s) {
  if (bits_per_s % 1000000000 == 0) {
    return absl::StrCat(bits_per_s / 1000000000, " Gbit/s");
  }
  if (bits_per_s % 1000000 == 0) {
    return absl::StrCat(bits_per_s / 1000000, " Mbit/s");
  }
  return absl::StrCat(bits_per_s / 1000, " kbit/s");
}

uint64_t BurstBytes(uint64_t bits_per_s) {
  return std::max(kMinBurstBytes, bits_per_s / 8 * kBurstMicros / 1000000);
}

std::string FindTc(const std::string& tc) {
  if (!tc.empty()) return access(tc.c_str(), X_OK) == 0 ? tc : "";
  std::string dirs = "/usr/sbin:/sbin";
  if (const char* path = std::getenv("PATH"))
    dirs = std::string(path) + ":" + dirs;
  for (absl::string_view dir : absl::StrSplit(dirs, ':', absl::SkipEmpty())) {
    const std::string candidate = absl::StrCat(dir, "/tc");
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

// Runs tc with `args`; on failure, what it said.
absl::Status RunTc(const std::string& tc,
                   const std::vector<std::string>& args) {
  std::vector<std::string> argv = {tc};
  argv.insert(argv.end(), args.begin(), args.end());
  auto child = support::ChildProcess::Start(argv);
  if (!child.ok()) return child.status();
  const absl::StatusOr<int> code = (*child)->WaitForExit(absl::Seconds(10));
  if (!code.ok()) return code.status();
  if (*code != 0) {
    return absl::InternalError(
        absl::StrCat("tc ", absl::StrJoin(args, " "), ": ",
                     absl::StripAsciiWhitespace((*child)->output())));
  }
  return absl::OkStatus();
}

// Brings the namespace's loopback up at kMtu.
absl::Status LoopbackUp() {
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::ErrnoToStatus(errno, "socket");
  struct ifreq request;
  std::memset(&request, 0, sizeof(request));
  std::strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
  absl::Status status;
  request.ifr_mtu = kMtu;
  if (ioctl(fd, SIOCSIFMTU, &request) != 0) {
    status = absl::ErrnoToStatus(errno, "lo: set MTU");
  } else if (ioctl(fd, SIOCGIFFLAGS, &request) != 0) {
    status = absl::ErrnoToStatus(errno, "lo: get flags");
  } else {
    request.ifr_flags |= IFF_UP;
    if (ioctl(fd, SIOCSIFFLAGS, &request) != 0) {
      status = absl::ErrnoToStatus(errno, "lo: up");
    }
  }
  close(fd);
  return status;
}

// The qdiscs on the namespace's loopback; `delay_ms` is set to what was
// applied (0 if netem is missing).
absl::Status Shape(const std::string& tc, const Link& link, int* delay_ms,
                   std::string* note) {
  const std::vector<std::string> tbf = {
      "tbf",
      "rate",
      absl::StrCat(link.rate_bits_per_s, "bit"),
      "burst",
      absl::StrCat(BurstBytes(link.rate_bits_per_s)),
      "limit",
      absl::StrCat(kLimitBytes)};
  *delay_ms = 0;
  if (link.delay_ms > 0) {
    // netem delays, tbf below it paces what leaves.
    const absl::Status netem = RunTc(
        tc, {"qdisc", "add", "dev", "lo", "root", "handle", "1:", "netem",
             "delay", absl::StrCat(link.delay_ms, "ms"), "limit", "100000"});
    if (netem.ok()) {
      std::vector<std::string> args = {"qdisc",  "add", "dev",    "lo",
                                       "parent", "1:1", "handle", "10:"};
      args.insert(args.end(), tbf.begin(), tbf.end());
      if (absl::Status status = RunTc(tc, args); !status.ok()) return status;
      *delay_ms = link.delay_ms;
      return absl::OkStatus();
    }
    *note = absl::StrCat("; no delay: ", netem.message());
  }
  std::vector<std::string> args = {"qdisc", "add", "dev", "lo", "root"};
  args.insert(args.end(), tbf.begin(), tbf.end());
  return RunTc(tc, args);
}

LinkState Fallback(const Link& link, absl::string_view why) {
  LinkState state;
  state.description = absl::StrCat("loopback, unshaped: asked for ",
                                   RateText(link.rate_bits_per_s), ", but ",
                                   why, "; running on plain loopback");
  return state;
}

}  // namespace

absl::Status ParseLink(absl::string_view text, int delay_ms, Link* link) {
  *link = Link();
  link->name = std::string(text);
  link->delay_ms = delay_ms;
  if (text == "loopback") return absl::OkStatus();
  const std::string lower = absl::AsciiStrToLower(text);
  absl::string_view number = lower;
  uint64_t unit = 0;
  if (absl::ConsumeSuffix(&number, "gbit")) {
    unit = 1000000000;
  } else if (absl::ConsumeSuffix(&number, "mbit")) {
    unit = 1000000;
  } else if (absl::ConsumeSuffix(&number, "kbit")) {
    unit = 1000;
  }
  uint64_t n = 0;
  if (unit == 0 || !absl::SimpleAtoi(number, &n) || n == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bad --link \"", text, "\": loopback, or <n>kbit, <n>mbit, <n>gbit"));
  }
  link->rate_bits_per_s = n * unit;
  return absl::OkStatus();
}

LinkState EnterLink(const Link& link, const std::string& tc) {
  if (link.rate_bits_per_s == 0) {
    LinkState state;
    state.description = "loopback, unshaped";
    return state;
  }
  const std::string tc_path = FindTc(tc);
  if (tc_path.empty()) {
    return Fallback(link, tc.empty() ? "no tc (iproute2) found"
                                     : absl::StrCat("no tc at ", tc));
  }
  // Kept to come back to if the shaping fails half way.
  const int home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  if (unshare(CLONE_NEWNET) != 0) {
    const int error = errno;
    if (home >= 0) close(home);
    return Fallback(link, absl::StrCat("no network namespace of its own (",
                                       std::strerror(error),
                                       "; needs root or CAP_SYS_ADMIN)"));
  }
  int delay_ms = 0;
  std::string note;
  absl::Status status = LoopbackUp();
  if (status.ok()) status = Shape(tc_path, link, &delay_ms, &note);
  if (!status.ok()) {
    if (home < 0 || setns(home, CLONE_NEWNET) != 0) {
      // Nowhere to go back to: a namespace whose loopback may be down.
      std::fprintf(stderr, "e2e_bench: cannot leave the new namespace\n");
      std::abort();
    }
    close(home);
    return Fallback(link, std::string(status.message()));
  }
  if (home >= 0) close(home);
  LinkState state;
  state.shaped = true;
  state.rate_bits_per_s = link.rate_bits_per_s;
  state.delay_ms = delay_ms;
  state.description = absl::StrCat(
      RateText(link.rate_bits_per_s),
      delay_ms > 0 ? absl::StrCat(", ", delay_ms, " ms each way") : "",
      ": loopback in a network namespace of its own, MTU ", kMtu,
      ", tc tbf rate ", link.rate_bits_per_s, "bit burst ",
      BurstBytes(link.rate_bits_per_s), " limit ", kLimitBytes, note);
  return state;
}

}  // namespace pooled_gzip::bench
