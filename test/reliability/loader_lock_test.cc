// Installing the core codec must not deadlock against a thread inside
// dlopen() or dlclose(). loader_lock_child races the two once per run; a
// run that deadlocks never exits, so a run that prints no line for
// kPerStep counts as hung. Each line follows one step (the load loop
// running, the install), a fraction of a second even under TSan on a busy
// machine, so the bound is on progress, not on how slow the machine is.

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "child_process.h"

namespace pooled_gzip::reliability {
namespace {

using support::ChildProcess;

constexpr int kRuns = 50;
// Runs started together, so that they overlap.
constexpr int kAtOnce = 5;
constexpr absl::Duration kPerStep = absl::Seconds(60);

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

// Waits for one run while it progresses and counts what became of it.
void Judge(ChildProcess& child, Tally& tally) {
  const absl::StatusOr<int> code = child.WaitForExitWhileProgressing(kPerStep);
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
    for (const std::unique_ptr<ChildProcess>& child : batch) {
      Judge(*child, tally);
    }
  }
  EXPECT_EQ(tally.hung, 0)
      << tally.hung << " of " << kRuns << " runs printed nothing for "
      << absl::FormatDuration(kPerStep)
      << " (installing deadlocked against the thread in dlopen/dlclose)";
  EXPECT_EQ(tally.failed, 0) << tally.failed << " of " << kRuns << " failed";
  EXPECT_EQ(tally.inactive, 0)
      << tally.inactive << " of " << kRuns << " ran without the core codec";
  EXPECT_TRUE(tally.first_problem.empty())
      << "first problem: " << tally.first_problem;
}

}  // namespace
}  // namespace pooled_gzip::reliability
