// A child process for the tests and benchmarks: a peer's server or client,
// or a benchmark peer driven a line at a time, with its stdout (and by
// default its stderr) captured through one pipe. Servers are waited for by
// the "listening on 127.0.0.1:PORT" line they print once they serve, never
// by sleeping. Every wait is bounded, and the child is killed if the
// process that started it dies first.

#ifndef POOLED_GZIP_TESTING_CHILD_PROCESS_H_
#define POOLED_GZIP_TESTING_CHILD_PROCESS_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace pooled_gzip::support {

class ChildProcess {
 public:
  struct Options {
    // Added to this process's environment ("NAME=value").
    std::vector<std::string> env;
    // A pipe for WriteLine; otherwise the child reads /dev/null.
    bool pipe_stdin = false;
    // Its stderr in output() too; otherwise it writes to this process's.
    bool capture_stderr = true;
  };

  // Starts argv[0] (a path) with `argv`; `env` entries ("NAME=value") are
  // added to this process's environment.
  static absl::StatusOr<std::unique_ptr<ChildProcess>> Start(
      const std::vector<std::string>& argv,
      const std::vector<std::string>& env = {});
  static absl::StatusOr<std::unique_ptr<ChildProcess>> Start(
      const std::vector<std::string>& argv, const Options& options);
  // Terminates the child if it still runs.
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Reads output until a line "listening on 127.0.0.1:PORT" and returns
  // PORT. Fails if the child exits or the timeout passes first.
  absl::StatusOr<int> WaitForListeningPort(absl::Duration timeout);

  // The next line of output not yet returned or searched for the port,
  // without its newline. Fails if the child closes its output or the
  // timeout passes first.
  absl::StatusOr<std::string> ReadLine(absl::Duration timeout);

  // Sends `line` and a newline to its stdin (Options::pipe_stdin).
  absl::Status WriteLine(absl::string_view line);
  // Ends its input: a child driven by lines exits on it.
  void CloseStdin();

  // Sends `signal` (SIGKILL, say); false if it could not be sent.
  // WaitForExit then tells the outcome.
  bool Signal(int signal);

  // Reads output until the child exits; returns its exit code (128+signal if
  // killed). Kills it and fails on timeout.
  absl::StatusOr<int> WaitForExit(absl::Duration timeout);

  // SIGTERM, then SIGKILL if it has not exited within a bound.
  void Terminate();

  // Everything the child printed so far.
  const std::string& output() const { return output_; }
  const std::string& command() const { return command_; }

 private:
  ChildProcess(pid_t pid, int output_fd, int input_fd, std::string command)
      : pid_(pid),
        output_fd_(output_fd),
        input_fd_(input_fd),
        command_(std::move(command)) {}
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
  int input_fd_;  // -1 without Options::pipe_stdin, or once closed
  std::string command_;
  std::string output_;
  size_t scanned_ = 0;  // output_ bytes already read as lines
  bool output_closed_ = false;
  bool exited_ = false;
  int exit_code_ = -1;
};

}  // namespace pooled_gzip::support

#endif  // POOLED_GZIP_TESTING_CHILD_PROCESS_H_
