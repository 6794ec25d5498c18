#include "glue/grpc_log.h"

#include <grpcpp/version_info.h>

#include <string>

#if GRPC_CPP_VERSION_MAJOR == 1 && GRPC_CPP_VERSION_MINOR < 66
#include <grpc/support/log.h>
#define POOLED_GZIP_LOG_THROUGH_GPR 1
#else
#include "absl/log/log.h"
#define POOLED_GZIP_LOG_THROUGH_GPR 0
#endif

namespace pooled_gzip {
namespace internal {

void LogLine(const char* file, int line, LogSeverity severity,
             std::string_view message) {
#if POOLED_GZIP_LOG_THROUGH_GPR
  // gpr_log prints nothing until the verbosity is read, which grpc_init
  // does: a set-up call made before it (or in a process whose grpc_init
  // would hang, with two gRPC cores) would log into the void.
  gpr_log_verbosity_init();
  gpr_log(file, line,
          severity == LogSeverity::kInfo ? GPR_LOG_SEVERITY_INFO
                                         : GPR_LOG_SEVERITY_ERROR,
          "%s", std::string(message).c_str());
#else
  switch (severity) {
    case LogSeverity::kInfo:
      LOG(INFO).AtLocation(file, line) << message;
      break;
    case LogSeverity::kWarning:
      LOG(WARNING).AtLocation(file, line) << message;
      break;
    case LogSeverity::kError:
      LOG(ERROR).AtLocation(file, line) << message;
      break;
  }
#endif
}

}  // namespace internal
}  // namespace pooled_gzip
