// A plugin that embeds its own copy of pooled_gzip (the library's objects
// linked in, every symbol but its entry point local, as plugins are
// built), loaded into a process that already uses the shared library.

#include <cstddef>

#include "pooled_gzip/pooled_gzip.h"

// Configures the plugin's copy with `cap` and installs its core codec, as
// a plugin's set-up would; whether that copy reports the codec active.
extern "C" int SecondCopyInstall(size_t cap) {
  pooled_gzip::Options options;
  options.max_decompressed_bytes = cap;
  if (!pooled_gzip::Configure(options).ok()) return -1;
  return pooled_gzip::InstallCoreCodec() ? 1 : 0;
}
