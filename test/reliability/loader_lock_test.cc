// Installing the core codec must not deadlock against a thread inside
// dlopen() or dlclose(). loader_lock_child races the two once per run; a
// run that deadlocks never exits, so each is bounded and a run still going
// after kHangBound counts as hung (a run takes well under a second).

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "child_process.h"

namespace pooled_gzip::reliability {
namespace {

using support::ChildProcess;

constexpr int kRuns = 50;
// Runs started together, so that hung ones cost kHangBound per batch
// rather than each.
constexpr int kAtOnce = 5;
constexpr absl::Duration kHangBound = absl::Seconds(20);

struct Tally {
  int hung = 0;
  int failed = 0;    // exited non-zero or on a signal
  int inactive = 0;  // exited 0 with the core codec off
  std::string first_problem;

  void Note(int* count, const std::string& what) {
    ++*count;
    if (first_problem.empty()) first_problem = what;
  }
};

// Waits for one run until `deadline` and counts what became of it.
void Judge(ChildProcess& child, absl::Time deadline, Tally& tally) {
  const absl::StatusOr<int> code =
      child.WaitForExit(std::max(deadline - absl::Now(), absl::ZeroDuration()));
  if (!code.ok()) {
    tally.Note(&tally.hung, std::string(code.status().message()));
  } else if (*code != 0) {
    tally.Note(&tally.failed,
               absl::StrCat("exit code ", *code,
                            " (128+N: signal N); output:\n", child.output()));
  } else if (!absl::StrContains(child.output(), "core codec active: yes")) {
    tally.Note(&tally.inactive, absl::StrCat("core codec not active; output:\n",
                                             child.output()));
  }
}

TEST(LoaderLockTest, InstallDoesNotDeadlockAgainstDlopen) {
  Tally tally;
  for (int first = 0; first < kRuns; first += kAtOnce) {
    std::vector<std::unique_ptr<ChildProcess>> batch;
    for (int run = first; run < std::min(kRuns, first + kAtOnce); ++run) {
      absl::StatusOr<std::unique_ptr<ChildProcess>> child =
          ChildProcess::Start({POOLED_GZIP_LOADER_LOCK_CHILD});
      ASSERT_TRUE(child.ok()) << child.status();
      batch.push_back(*std::move(child));
    }
    const absl::Time deadline = absl::Now() + kHangBound;
    for (const std::unique_ptr<ChildProcess>& child : batch) {
      Judge(*child, deadline, tally);
    }
  }
  EXPECT_EQ(tally.hung, 0)
      << tally.hung << " of " << kRuns << " runs hung for "
      << absl::FormatDuration(kHangBound)
      << " (installing deadlocked against the thread in dlopen/dlclose)";
  EXPECT_EQ(tally.failed, 0) << tally.failed << " of " << kRuns << " failed";
  EXPECT_EQ(tally.inactive, 0)
      << tally.inactive << " of " << kRuns << " ran without the core codec";
  EXPECT_TRUE(tally.first_problem.empty())
      << "first problem: " << tally.first_problem;
}

}  // namespace
}  // namespace pooled_gzip::reliability
