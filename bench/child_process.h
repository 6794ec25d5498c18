// A child process driven over its stdin and stdout, one text line per
// request and per answer. The end-to-end benchmark runs every client and
// server in a process of its own this way: the core codec, once set up,
// takes over every gzip message of its process, so stock gRPC is only
// stock in a process that never sets pooled-gzip up.

#ifndef POOLED_GZIP_BENCH_CHILD_PROCESS_H_
#define POOLED_GZIP_BENCH_CHILD_PROCESS_H_

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace pooled_gzip::bench {

class ChildProcess {
 public:
  ChildProcess() = default;
  ~ChildProcess();  // closes its stdin, then waits for it (kills it late)
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Starts `argv` (argv[0] is the path) with the environment of this
  // process; its stderr is this process's. False, with `error` set, if it
  // could not be started.
  bool Start(const std::vector<std::string>& argv, std::string* error);

  // Sends one line (a newline is appended).
  bool WriteLine(const std::string& line);
  // The next line of its stdout, without the newline; false on end of file,
  // error or after `timeout`.
  bool ReadLine(std::string* line,
                std::chrono::milliseconds timeout = std::chrono::minutes(5));

  // Closes its stdin (the children exit on end of input) and waits up to
  // `grace` for it to exit, then kills it. Returns its exit status as
  // waitpid reports it, or -1.
  int Stop(std::chrono::milliseconds grace = std::chrono::seconds(10));

  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string buffered_;  // read from the child, not yet returned
};

}  // namespace pooled_gzip::bench

#endif  // POOLED_GZIP_BENCH_CHILD_PROCESS_H_
