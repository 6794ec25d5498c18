#include "glue/call_config.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "codec/settings.h"
#include "glue/grpc_log.h"
#include "pooled_gzip/channel_args.h"

namespace pooled_gzip {
namespace internal {
namespace {

std::optional<int> IntArgInRange(const grpc_arg& arg, int min, int max) {
  if (arg.type != GRPC_ARG_INTEGER) {
    POOLED_GZIP_LOG(kError, absl::StrCat("pooled_gzip: channel arg ", arg.key,
                                         " must be an integer"));
    return std::nullopt;
  }
  const int value = arg.value.integer;
  if (value < min || value > max) {
    POOLED_GZIP_LOG(
        kError, absl::StrCat("pooled_gzip: channel arg ", arg.key, "=", value,
                             " is outside ", min, "..", max));
    return std::nullopt;
  }
  return value;
}

// Keys that would set a process-wide setting per channel, where the last
// channel created would win for all: logged as not read, so that a program
// still passing one learns where the setting is (docs/decisions.md).
bool IsRetiredKey(const char* key) {
  for (const char* retired :
       {"pooled_gzip.level", "pooled_gzip.max_idle_contexts_per_thread",
        "pooled_gzip.max_pooled_bytes"}) {
    if (std::strcmp(key, retired) == 0) return true;
  }
  return false;
}

}  // namespace

ChannelConfig ReadChannelConfig(const grpc_channel_args& args) {
  ChannelConfig config;
  for (size_t i = 0; i < args.num_args; ++i) {
    const grpc_arg& arg = args.args[i];
    if (std::strcmp(arg.key, GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH) == 0) {
      if (arg.type == GRPC_ARG_INTEGER)
        config.max_receive_message_length = arg.value.integer;
    } else if (std::strcmp(arg.key, kArgEnabled) == 0) {
      if (auto value = IntArgInRange(arg, 0, 1)) config.enabled = *value != 0;
    } else if (IsRetiredKey(arg.key)) {
      POOLED_GZIP_LOG(
          kError,
          absl::StrCat("pooled_gzip: channel arg ", arg.key,
                       " is not read: it set a process-wide setting, which "
                       "has one entry point, pooled_gzip::Configure (start "
                       "from pooled_gzip::GetOptions())"));
    } else if (std::strncmp(arg.key, "pooled_gzip.", 12) == 0) {
      POOLED_GZIP_LOG(
          kError, absl::StrCat("pooled_gzip: unknown channel arg ", arg.key));
    }
  }
  return config;
}

void NoteReceiveLimitOf(const ChannelConfig& config) {
  if (!config.enabled) return;
  NoteReceiveLimit(config.max_receive_message_length.value_or(
      GRPC_DEFAULT_MAX_RECV_MESSAGE_LENGTH));
}

}  // namespace internal
}  // namespace pooled_gzip
