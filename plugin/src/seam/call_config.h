// What a channel or server's arguments say about compression, and the
// decision, per call, of whether the plugin may compress its messages.

#ifndef POOLED_GZIP_SRC_SEAM_CALL_CONFIG_H_
#define POOLED_GZIP_SRC_SEAM_CALL_CONFIG_H_

#include <grpc/grpc.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "codec/format.h"

namespace pooled_gzip {
namespace internal {

struct ChannelConfig {
  // gRPC's own settings, as core will apply them.
  grpc_compression_algorithm default_algorithm = GRPC_COMPRESS_NONE;
  uint32_t enabled_algorithms = ~uint32_t{0};
  // Whether the channel stack has core's compression filter: the
  // per-message compression key if set, else not on a minimal stack.
  bool per_message_compression = true;
  bool default_level_set = false;
  std::optional<int> max_send_message_length;     // negative: unlimited
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

// Whether a message of `length` uncompressed bytes may be compressed by the
// plugin: core checks the send limit against what it is handed, so a
// message over the limit must reach core uncompressed to be refused.
bool WithinSendLimit(const ChannelConfig& config, size_t length);

// Decides, when a call's initial metadata is about to be sent, which format
// the plugin compresses its messages with; nullopt leaves them to core. When
// the call relies on the channel default, writes the algorithm into the
// metadata explicitly, so that core's choice and the plugin's cannot differ.
std::optional<Format> DecideCallFormat(
    const ChannelConfig& config,
    std::multimap<std::string, std::string>* initial_metadata);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_SEAM_CALL_CONFIG_H_
