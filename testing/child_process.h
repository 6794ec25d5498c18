// A child process for the tests and benchmarks: a peer's server or client,
// a benchmark peer driven a line at a time, or a fork of the test itself,
// with its stdout (and by default its stderr) captured through one pipe.
// Servers are waited for by the "listening on 127.0.0.1:PORT" line they
// print once they serve, never by sleeping. Every wait is bounded, and the
// child is killed if the process that started it dies first.
//
// A child that could hang (a deadlock is a failure, not a stuck CTest) is
// better bounded by its progress than by the clock: it prints a line per
// unit of work and WaitForExitWhileProgressing fails only when no line
// comes for a while. A sanitizer build on a busy machine makes every step
// slower, but none of them endless.

#ifndef POOLED_GZIP_TESTING_CHILD_PROCESS_H_
#define POOLED_GZIP_TESTING_CHILD_PROCESS_H_

#include <sys/types.h>
#include <sys/wait.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
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
  // Forks this process and runs `body` in the child, which then _exits with
  // what `body` returned; `name` stands for the command in messages. Only
  // the forking thread lives on in the child: for tests of what the child
  // of a multi-threaded program can do without exec. stdio is flushed
  // before the fork, so that the child's output holds only what `body`
  // prints. Options::env does not apply.
  static absl::StatusOr<std::unique_ptr<ChildProcess>> Fork(
      std::string name, absl::FunctionRef<int()> body);
  static absl::StatusOr<std::unique_ptr<ChildProcess>> Fork(
      std::string name, absl::FunctionRef<int()> body, const Options& options);
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

  // As WaitForExit, but bounds the wait for each line of output instead of
  // the whole run: kills the child and fails once `per_line` passes without
  // a new line (counted from the last line read or the call, whichever is
  // later), or `safety_net` in all, a bound far above any run that only
  // stops a child that prints for ever.
  absl::StatusOr<int> WaitForExitWhileProgressing(
      absl::Duration per_line, absl::Duration safety_net = absl::Hours(1));

  // SIGTERM, then SIGKILL if it has not exited within a bound.
  void Terminate();

  // Whether it has exited, without waiting; then exit_code() tells how.
  bool HasExited() { return Reap(WNOHANG); }
  int exit_code() const { return exit_code_; }
  pid_t pid() const { return pid_; }

  // Everything the child printed so far.
  const std::string& output() const { return output_; }
  const std::string& command() const { return command_; }

 private:
  ChildProcess(pid_t pid, int output_fd, int input_fd, std::string command)
      : pid_(pid),
        output_fd_(output_fd),
        input_fd_(input_fd),
        command_(std::move(command)) {}
  // Forks with the pipes set up; in the child, runs `exec` with its stdout
  // (and stderr) on the output pipe and never returns.
  static absl::StatusOr<std::unique_ptr<ChildProcess>> ForkWithPipes(
      std::string command, const Options& options,
      absl::FunctionRef<void()> exec);
  // Reads what is available within `timeout`; false once the pipe is closed.
  bool ReadSome(absl::Duration timeout);
  // Waits for the child to exit while draining its output, at most `timeout`
  // and at most `per_line` without a new line of output.
  bool WaitExited(absl::Duration timeout,
                  absl::Duration per_line = absl::InfiniteDuration());
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
  absl::Time last_line_at_ = absl::Now();  // when a line last came
  bool output_closed_ = false;
  bool exited_ = false;
  int exit_code_ = -1;
};

}  // namespace pooled_gzip::support

#endif  // POOLED_GZIP_TESTING_CHILD_PROCESS_H_
