// What a channel or server's arguments say to the plugin: whether it is
// enabled there, and the receive limit the derived cap follows.

#ifndef POOLED_GZIP_SRC_GLUE_CALL_CONFIG_H_
#define POOLED_GZIP_SRC_GLUE_CALL_CONFIG_H_

#include <grpc/grpc.h>

#include <optional>

namespace pooled_gzip {
namespace internal {

struct ChannelConfig {
  std::optional<int> max_receive_message_length;  // negative: unlimited
  // The plugin's own key (channel_args.h).
  bool enabled = true;
};

// Reads gRPC's and the plugin's keys; malformed or unknown plugin keys are
// logged and ignored.
ChannelConfig ReadChannelConfig(const grpc_channel_args& args);

// Notes the receive limit of an enabled channel or server for the derived
// decompression cap (codec/settings.h).
void NoteReceiveLimitOf(const ChannelConfig& config);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_GLUE_CALL_CONFIG_H_
