#include "seam/call_config.h"

#include <grpc/compression.h>

#include <cstring>

#include "absl/strings/str_cat.h"
#include "codec/codec.h"
#include "codec/settings.h"
#include "pooled_gzip/channel_args.h"
#include "seam/compression_algorithm.h"
#include "seam/grpc_log.h"

namespace pooled_gzip {
namespace internal {
namespace {

std::optional<int> IntArg(const grpc_arg& arg) {
  if (arg.type != GRPC_ARG_INTEGER) {
    POOLED_GZIP_LOG(kError, absl::StrCat("pooled_gzip: channel arg ", arg.key,
                                         " must be an integer"));
    return std::nullopt;
  }
  return arg.value.integer;
}

std::optional<int> IntArgInRange(const grpc_arg& arg, int min, int max) {
  std::optional<int> value = IntArg(arg);
  if (value && (*value < min || *value > max)) {
    POOLED_GZIP_LOG(
        kError, absl::StrCat("pooled_gzip: channel arg ", arg.key, "=", *value,
                             " is outside ", min, "..", max));
    return std::nullopt;
  }
  return value;
}

bool IsKey(const grpc_arg& arg, const char* key) {
  return std::strcmp(arg.key, key) == 0;
}

// Keys of earlier versions that set process-wide options per channel, so
// that the last channel created silently won for all of them.
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
  std::optional<bool> per_message_compression;
  bool minimal_stack = false;
  for (size_t i = 0; i < args.num_args; ++i) {
    const grpc_arg& arg = args.args[i];
    if (arg.type != GRPC_ARG_INTEGER &&
        std::strncmp(arg.key, "pooled_gzip.", 12) != 0) {
      continue;
    }
    if (IsKey(arg, GRPC_COMPRESSION_CHANNEL_DEFAULT_ALGORITHM)) {
      const int value = arg.value.integer;
      if (value >= 0 && value < GRPC_COMPRESS_ALGORITHMS_COUNT) {
        config.default_algorithm =
            static_cast<grpc_compression_algorithm>(value);
      }
    } else if (IsKey(arg, GRPC_COMPRESSION_CHANNEL_ENABLED_ALGORITHMS_BITSET)) {
      // Core always keeps "identity" enabled, whatever the bitset says.
      config.enabled_algorithms = static_cast<uint32_t>(arg.value.integer) | 1u;
    } else if (IsKey(arg, GRPC_ARG_ENABLE_PER_MESSAGE_COMPRESSION)) {
      per_message_compression = arg.value.integer != 0;
    } else if (IsKey(arg, GRPC_ARG_MINIMAL_STACK)) {
      minimal_stack = arg.value.integer != 0;
    } else if (IsKey(arg, GRPC_ARG_MAX_SEND_MESSAGE_LENGTH)) {
      config.max_send_message_length = arg.value.integer;
    } else if (IsKey(arg, GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH)) {
      config.max_receive_message_length = arg.value.integer;
    } else if (IsKey(arg, GRPC_COMPRESSION_CHANNEL_DEFAULT_LEVEL)) {
      config.default_level_set = true;
    } else if (IsKey(arg, kArgEnabled)) {
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
  // As core's http filters decide (http_filters_plugin.cc).
  config.per_message_compression =
      per_message_compression.value_or(!minimal_stack);
  return config;
}

void NoteReceiveLimitOf(const ChannelConfig& config) {
  if (!config.enabled) return;
  NoteReceiveLimit(config.max_receive_message_length.value_or(
      GRPC_DEFAULT_MAX_RECV_MESSAGE_LENGTH));
}

bool WithinSendLimit(const ChannelConfig& config, size_t length) {
  return !config.max_send_message_length ||
         *config.max_send_message_length < 0 ||
         length <= static_cast<size_t>(*config.max_send_message_length);
}

std::optional<Format> DecideCallFormat(
    const ChannelConfig& config,
    std::multimap<std::string, std::string>* initial_metadata) {
  if (!config.enabled || !config.per_message_compression) {
    return std::nullopt;
  }
  grpc_compression_algorithm algorithm = config.default_algorithm;
  auto requested =
      initial_metadata->find(GRPC_COMPRESSION_REQUEST_ALGORITHM_MD_KEY);
  if (requested != initial_metadata->end()) {
    if (initial_metadata->count(GRPC_COMPRESSION_REQUEST_ALGORITHM_MD_KEY) !=
            1 ||
        !grpc_compression_algorithm_parse(
            grpc_slice_from_static_buffer(requested->second.data(),
                                          requested->second.size()),
            &algorithm)) {
      return std::nullopt;
    }
  }
  // Core silently falls back to no compression for a disabled algorithm.
  if ((config.enabled_algorithms & (1u << algorithm)) == 0) {
    return std::nullopt;
  }
  std::optional<Format> format = FormatOf(algorithm);
  if (format && requested == initial_metadata->end()) {
    const char* name = nullptr;
    grpc_compression_algorithm_name(algorithm, &name);
    initial_metadata->emplace(GRPC_COMPRESSION_REQUEST_ALGORITHM_MD_KEY, name);
  }
  return format;
}

}  // namespace internal
}  // namespace pooled_gzip
