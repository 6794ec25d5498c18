// A child process for the interop tests: a peer's server or client, with its
// stdout and stderr captured through one pipe. Servers are waited for by the
// "listening on 127.0.0.1:PORT" line they print once they serve, never by
// sleeping. Every wait is bounded, and the child is killed if the test
// process dies first.

#ifndef POOLED_GZIP_TEST_INTEROP_HARNESS_CHILD_PROCESS_H_
#define POOLED_GZIP_TEST_INTEROP_HARNESS_CHILD_PROCESS_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace pooled_gzip::interop {

class ChildProcess {
 public:
  // Starts argv[0] (a path) with `argv`; `env` entries ("NAME=value") are
  // added to this process's environment.
  static absl::StatusOr<std::unique_ptr<ChildProcess>> Start(
      const std::vector<std::string>& argv,
      const std::vector<std::string>& env = {});
  // Terminates the child if it still runs.
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Reads output until a line "listening on 127.0.0.1:PORT" and returns
  // PORT. Fails if the child exits or the timeout passes first.
  absl::StatusOr<int> WaitForListeningPort(absl::Duration timeout);

  // Reads output until the child exits; returns its exit code (128+signal if
  // killed). Kills it and fails on timeout.
  absl::StatusOr<int> WaitForExit(absl::Duration timeout);

  // SIGTERM, then SIGKILL if it has not exited within a bound.
  void Terminate();

  // Everything the child printed so far.
  const std::string& output() const { return output_; }
  const std::string& command() const { return command_; }

 private:
  ChildProcess(pid_t pid, int output_fd, std::string command)
      : pid_(pid), output_fd_(output_fd), command_(std::move(command)) {}
  // Reads what is available within `timeout`; false once the pipe is closed.
  bool ReadSome(absl::Duration timeout);
  // Waits for the child to exit while draining its output.
  bool WaitExited(absl::Duration timeout);
  // Reads what the child wrote just before exiting, which may still be in
  // the pipe when its exit is seen.
  void DrainOutput();
  bool Reap(int options);

  pid_t pid_;
  int output_fd_;
  std::string command_;
  std::string output_;
  size_t scanned_ = 0;  // output_ bytes already searched for the port line
  bool output_closed_ = false;
  bool exited_ = false;
  int exit_code_ = -1;
};

}  // namespace pooled_gzip::interop

#endif  // POOLED_GZIP_TEST_INTEROP_HARNESS_CHILD_PROCESS_H_
