#include "child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace pooled_gzip::support {
namespace {

constexpr absl::string_view kListening = "listening on 127.0.0.1:";

// Waiting for a terminated child to go away; servers stop in well under it.
constexpr absl::Duration kTerminateGrace = absl::Seconds(5);

}  // namespace

absl::StatusOr<std::unique_ptr<ChildProcess>> ChildProcess::Start(
    const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  Options options;
  options.env = env;
  return Start(argv, options);
}

absl::StatusOr<std::unique_ptr<ChildProcess>> ChildProcess::Start(
    const std::vector<std::string>& argv, const Options& options) {
  if (argv.empty() || access(argv[0].c_str(), X_OK) != 0) {
    return absl::NotFoundError(absl::StrCat(
        "cannot run '", argv.empty() ? "" : argv[0],
        "': missing peer; run scripts/install_interop_peers.sh and rebuild"));
  }
  // Everything the child needs is built before fork: only async-signal-safe
  // calls may run between fork and exec in a threaded process.
  std::vector<char*> args;
  for (const std::string& arg : argv)
    args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    environment.emplace_back(*entry);
  }
  environment.insert(environment.end(), options.env.begin(), options.env.end());
  std::vector<char*> envp;
  for (std::string& entry : environment) envp.push_back(entry.data());
  envp.push_back(nullptr);
  return ForkWithPipes(absl::StrJoin(argv, " "), options,
                       [&] { execve(args[0], args.data(), envp.data()); });
}

absl::StatusOr<std::unique_ptr<ChildProcess>> ChildProcess::Fork(
    std::string name, absl::FunctionRef<int()> body) {
  return Fork(std::move(name), body, Options());
}

absl::StatusOr<std::unique_ptr<ChildProcess>> ChildProcess::Fork(
    std::string name, absl::FunctionRef<int()> body, const Options& options) {
  // Otherwise the child would inherit, and print again, whatever this
  // process had buffered.
  std::fflush(nullptr);
  return ForkWithPipes(std::move(name), options, [&] {
    const int code = body();
    std::fflush(nullptr);
    _exit(code);
  });
}

absl::StatusOr<std::unique_ptr<ChildProcess>> ChildProcess::ForkWithPipes(
    std::string command, const Options& options,
    absl::FunctionRef<void()> exec) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return absl::InternalError("pipe2() failed");
  }
  int input_fds[2] = {-1, -1};
  // A child that died must fail WriteLine, not end this process.
  if (options.pipe_stdin) signal(SIGPIPE, SIG_IGN);
  if (options.pipe_stdin && pipe2(input_fds, O_CLOEXEC) != 0) {
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return absl::InternalError("pipe2() failed");
  }
  const pid_t parent = getpid();

  const pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {pipe_fds[0], pipe_fds[1], input_fds[0], input_fds[1]}) {
      if (fd >= 0) close(fd);
    }
    return absl::InternalError("fork() failed");
  }
  if (pid == 0) {
    // Dies with the process that started it, so a crashed test leaves no
    // peer behind.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    dup2(pipe_fds[1], STDOUT_FILENO);
    if (options.capture_stderr) dup2(pipe_fds[1], STDERR_FILENO);
    const int input =
        options.pipe_stdin ? input_fds[0] : open("/dev/null", O_RDONLY);
    if (input >= 0) dup2(input, STDIN_FILENO);
    exec();
    _exit(127);
  }
  close(pipe_fds[1]);
  if (options.pipe_stdin) close(input_fds[0]);
  return std::unique_ptr<ChildProcess>(
      new ChildProcess(pid, pipe_fds[0], input_fds[1], std::move(command)));
}

ChildProcess::~ChildProcess() {
  CloseStdin();
  Terminate();
  close(output_fd_);
}

absl::StatusOr<std::string> ChildProcess::ReadLine(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  for (;;) {
    const size_t end = output_.find('\n', scanned_);
    if (end != std::string::npos) {
      std::string line = output_.substr(scanned_, end - scanned_);
      scanned_ = end + 1;
      return line;
    }
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      return absl::DeadlineExceededError(absl::StrCat(
          "'", command_, "' printed no line in ", absl::FormatDuration(timeout),
          "; output:\n", output_.substr(scanned_)));
    }
    if (!ReadSome(left)) {
      return absl::FailedPreconditionError(
          absl::StrCat("'", command_, "' closed its output; it printed:\n",
                       output_.substr(scanned_)));
    }
  }
}

absl::Status ChildProcess::WriteLine(absl::string_view line) {
  if (input_fd_ < 0) return absl::FailedPreconditionError("no stdin pipe");
  const std::string data = absl::StrCat(line, "\n");
  for (size_t written = 0; written < data.size();) {
    const ssize_t n =
        write(input_fd_, data.data() + written, data.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return absl::UnavailableError(
          absl::StrCat("cannot write to '", command_, "'"));
    }
    written += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

void ChildProcess::CloseStdin() {
  if (input_fd_ < 0) return;
  close(input_fd_);
  input_fd_ = -1;
}

bool ChildProcess::Signal(int signal) {
  return !exited_ && kill(pid_, signal) == 0;
}

bool ChildProcess::ReadSome(absl::Duration timeout) {
  if (output_closed_) return false;
  pollfd fd = {output_fd_, POLLIN, 0};
  const int ready = poll(&fd, 1,
                         static_cast<int>(std::max<int64_t>(
                             0, absl::ToInt64Milliseconds(timeout))));
  if (ready <= 0) return true;
  char buffer[4096];
  const ssize_t n = read(output_fd_, buffer, sizeof(buffer));
  if (n > 0) {
    output_.append(buffer, n);
    if (std::find(buffer, buffer + n, '\n') != buffer + n) {
      last_line_at_ = absl::Now();
    }
    return true;
  }
  if (n < 0 && errno == EINTR) return true;
  output_closed_ = true;
  return false;
}

bool ChildProcess::WaitExited(absl::Duration timeout, absl::Duration per_line) {
  if (Reap(WNOHANG)) return true;
  // A pidfd becomes readable when the child exits, which lets one poll()
  // wait for the exit and keep draining the child's output together.
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid_, 0));
  if (pidfd < 0) return false;
  const absl::Time called = absl::Now();
  const absl::Time deadline = called + timeout;
  bool exited = false;
  for (;;) {
    const absl::Time now = absl::Now();
    const absl::Time stalled = std::max(last_line_at_, called) + per_line;
    const absl::Duration left = std::min(deadline, stalled) - now;
    if (exited || left <= absl::ZeroDuration()) break;
    pollfd fds[2] = {{pidfd, POLLIN, 0},
                     {output_closed_ ? -1 : output_fd_, POLLIN, 0}};
    // At most a minute per poll: ToInt64Milliseconds of a long bound would
    // not fit poll's int.
    const int64_t wait =
        absl::ToInt64Milliseconds(std::min(left, absl::Minutes(1)));
    if (poll(fds, 2, static_cast<int>(std::max<int64_t>(wait, 0))) < 0 &&
        errno != EINTR) {
      break;
    }
    if (fds[1].revents != 0) ReadSome(absl::ZeroDuration());
    exited = fds[0].revents != 0;
  }
  close(pidfd);
  return exited && Reap(0);
}

bool ChildProcess::Reap(int options) {
  if (exited_) return true;
  int status = 0;
  if (waitpid(pid_, &status, options) != pid_) return false;
  exited_ = true;
  exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return true;
}

absl::StatusOr<int> ChildProcess::WaitForListeningPort(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  for (;;) {
    for (size_t end; (end = output_.find('\n', scanned_)) != std::string::npos;
         scanned_ = end + 1) {
      absl::string_view line(output_.data() + scanned_, end - scanned_);
      const size_t at = line.find(kListening);
      if (at == absl::string_view::npos) continue;
      absl::string_view digits = line.substr(at + kListening.size());
      digits = digits.substr(0, digits.find_first_not_of("0123456789"));
      int port;
      if (absl::SimpleAtoi(digits, &port) && port > 0) {
        scanned_ = end + 1;
        return port;
      }
    }
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      return absl::DeadlineExceededError(absl::StrCat(
          "'", command_, "' printed no listening line; output:\n", output_));
    }
    if (!ReadSome(std::min(left, absl::Milliseconds(200)))) {
      WaitExited(kTerminateGrace);
      return absl::FailedPreconditionError(
          absl::StrCat("'", command_, "' exited (code ", exit_code_,
                       ") before listening; output:\n", output_));
    }
  }
}

absl::StatusOr<int> ChildProcess::WaitForExit(absl::Duration timeout) {
  if (!WaitExited(timeout)) {
    Terminate();
    return absl::DeadlineExceededError(
        absl::StrCat("'", command_, "' still ran after ",
                     absl::FormatDuration(timeout), "; output:\n", output_));
  }
  DrainOutput();
  return exit_code_;
}

absl::StatusOr<int> ChildProcess::WaitForExitWhileProgressing(
    absl::Duration per_line, absl::Duration safety_net) {
  const absl::Time called = absl::Now();
  if (!WaitExited(safety_net, per_line)) {
    const absl::Time now = absl::Now();
    const absl::Duration quiet = now - std::max(last_line_at_, called);
    Terminate();
    if (quiet >= per_line) {
      return absl::DeadlineExceededError(absl::StrCat(
          "'", command_, "' printed no new line for ",
          absl::FormatDuration(quiet), " (hung; bound ",
          absl::FormatDuration(per_line), " per line); output:\n", output_));
    }
    return absl::DeadlineExceededError(absl::StrCat(
        "'", command_, "' still ran, printing, after the safety net of ",
        absl::FormatDuration(now - called), "; output:\n", output_));
  }
  DrainOutput();
  return exit_code_;
}

void ChildProcess::DrainOutput() {
  // At least one read: a child that exited before anything was read (seen
  // at the first waitpid) has all of its output still in the pipe.
  size_t before;
  do {
    before = output_.size();
    if (!ReadSome(absl::ZeroDuration())) break;
  } while (output_.size() != before);
}

void ChildProcess::Terminate() {
  if (Reap(WNOHANG)) return;
  kill(pid_, SIGTERM);
  if (!WaitExited(kTerminateGrace)) {
    kill(pid_, SIGKILL);
    Reap(0);
  }
  DrainOutput();
}

}  // namespace pooled_gzip::support
