// What a channel or server's arguments say about compression, and the
// decision, per call, of whether the plugin may compress its messages.

#ifndef POOLED_GZIP_SRC_CALL_CONFIG_H_
#define POOLED_GZIP_SRC_CALL_CONFIG_H_

#include <grpc/grpc.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "pooled_gzip/codec.h"
#include "pooled_gzip/context_pool.h"

namespace pooled_gzip {
namespace internal {

struct ChannelConfig {
  // gRPC's own settings, as core will apply them.
  grpc_compression_algorithm default_algorithm = GRPC_COMPRESS_NONE;
  uint32_t enabled_algorithms = ~uint32_t{0};
  bool per_message_compression = true;
  bool default_level_set = false;
  // The plugin's settings (channel_args.h).
  bool enabled = true;
  int level = kDefaultLevel;
  std::optional<size_t> max_idle_per_thread;
  std::optional<size_t> max_pooled_bytes;
};

// Reads gRPC's and the plugin's keys; malformed plugin values are logged and
// ignored.
ChannelConfig ReadChannelConfig(const grpc_channel_args& args);

// Applies the process-wide pool caps the arguments carry, if any.
void ApplyPoolCaps(const ChannelConfig& config);

// Decides, when a call's initial metadata is about to be sent, which format
// the plugin compresses its messages with; nullopt leaves them to core. When
// the call relies on the channel default, writes the algorithm into the
// metadata explicitly, so that core's choice and the plugin's cannot differ.
std::optional<Format> DecideCallFormat(
    const ChannelConfig& config,
    std::multimap<std::string, std::string>* initial_metadata);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CALL_CONFIG_H_
