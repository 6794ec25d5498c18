// One line in gRPC's own log, where an operator of a gRPC process already
// looks: through gpr_log where gRPC logs that way (1.51), through Abseil's
// LOG where gRPC itself logs through Abseil (1.66 on; 1.83 has no gpr_log).

#ifndef POOLED_GZIP_SRC_GLUE_GRPC_LOG_H_
#define POOLED_GZIP_SRC_GLUE_GRPC_LOG_H_

#include <string_view>

namespace pooled_gzip {
namespace internal {

// What an operator sees with GRPC_VERBOSITY unset: gRPC 1.51's gpr_log
// prints errors only; gRPC 1.83 leaves Abseil's settings alone, whose
// default prints every severity to stderr (errors only once the program
// calls absl::InitializeLog()). gpr_log has no warning severity: kWarning
// is an error there, so that it is printed by default on both.
enum class LogSeverity { kInfo, kWarning, kError };

void LogLine(const char* file, int line, LogSeverity severity,
             std::string_view message);

}  // namespace internal
}  // namespace pooled_gzip

// POOLED_GZIP_LOG(kError, message): message is anything that converts to a
// std::string_view, typically an absl::StrCat or absl::StrFormat result.
#define POOLED_GZIP_LOG(severity, message)                                \
  ::pooled_gzip::internal::LogLine(                                       \
      __FILE__, __LINE__, ::pooled_gzip::internal::LogSeverity::severity, \
      message)

// The same at a severity chosen at run time.
#define POOLED_GZIP_LOG_AT(severity, message) \
  ::pooled_gzip::internal::LogLine(__FILE__, __LINE__, severity, message)

#endif  // POOLED_GZIP_SRC_GLUE_GRPC_LOG_H_
