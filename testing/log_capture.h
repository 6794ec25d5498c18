// The lines gRPC's log receives while a LogCapture lives, for tests that
// check what an operator is told. gRPC 1.51 logs through gpr_log, whose
// function a test can replace; gRPC 1.66 on logs through Abseil, whose sinks
// a test can add (pooled_gzip logs the way its gRPC does, glue/grpc_log.h).
// Which one is chosen by the gRPC the test is built against.

#ifndef POOLED_GZIP_TESTING_LOG_CAPTURE_H_
#define POOLED_GZIP_TESTING_LOG_CAPTURE_H_

#include <grpc/support/log.h>
#include <grpcpp/version_info.h>

#include <mutex>
#include <string>
#include <utility>
#include <vector>

#if GRPC_CPP_VERSION_MAJOR == 1 && GRPC_CPP_VERSION_MINOR < 66
#define POOLED_GZIP_TEST_LOG_THROUGH_GPR 1
#else
#define POOLED_GZIP_TEST_LOG_THROUGH_GPR 0
#include "absl/base/log_severity.h"
#include "absl/log/globals.h"
#include "absl/log/log_entry.h"
#include "absl/log/log_sink.h"
#include "absl/log/log_sink_registry.h"
#endif

namespace pooled_gzip::test_support {

// gpr_log has no warning severity: there, a warning arrives as kError.
enum class Severity { kInfo, kWarning, kError };

struct LogLine {
  Severity severity;
  std::string message;
};

// One capture at a time per process. Lines come from whichever thread logs.
class LogCapture {
 public:
  LogCapture() {
    {
      std::lock_guard<std::mutex> lock(Mutex());
      Active() = this;
    }
#if POOLED_GZIP_TEST_LOG_THROUGH_GPR
    gpr_set_log_function(&FromGpr);
#else
    absl::AddLogSink(&sink_);
#endif
  }
  ~LogCapture() {
#if POOLED_GZIP_TEST_LOG_THROUGH_GPR
    // gRPC 1.51 has no getter for the log function; nullptr restores its
    // default, which is what a test process had before.
    gpr_set_log_function(nullptr);
#else
    absl::RemoveLogSink(&sink_);
#endif
    std::lock_guard<std::mutex> lock(Mutex());
    Active() = nullptr;
  }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  // Lets information lines through to the log as well as errors (by
  // default gRPC 1.51 drops them before any log function sees them).
  static void IncludeInformation() {
#if POOLED_GZIP_TEST_LOG_THROUGH_GPR
    gpr_set_log_verbosity(GPR_LOG_SEVERITY_DEBUG);
#else
    absl::SetMinLogLevel(absl::LogSeverityAtLeast::kInfo);
#endif
  }

  std::vector<LogLine> Lines() const {
    std::lock_guard<std::mutex> lock(Mutex());
    return lines_;
  }

 private:
  static std::mutex& Mutex() {
    static auto* mutex = new std::mutex;
    return *mutex;
  }
  static LogCapture*& Active() {
    static LogCapture* active = nullptr;
    return active;
  }
  static void Add(Severity severity, std::string message) {
    std::lock_guard<std::mutex> lock(Mutex());
    if (Active() != nullptr) {
      Active()->lines_.push_back({severity, std::move(message)});
    }
  }

#if POOLED_GZIP_TEST_LOG_THROUGH_GPR
  static void FromGpr(gpr_log_func_args* args) {
    Add(args->severity == GPR_LOG_SEVERITY_ERROR ? Severity::kError
                                                 : Severity::kInfo,
        args->message);
  }
#else
  class Sink final : public absl::LogSink {
   public:
    void Send(const absl::LogEntry& entry) override {
      Add(entry.log_severity() >= absl::LogSeverity::kError ? Severity::kError
          : entry.log_severity() >= absl::LogSeverity::kWarning
              ? Severity::kWarning
              : Severity::kInfo,
          std::string(entry.text_message()));
    }
  };
  Sink sink_;
#endif

  std::vector<LogLine> lines_;
};

}  // namespace pooled_gzip::test_support

#endif  // POOLED_GZIP_TESTING_LOG_CAPTURE_H_
