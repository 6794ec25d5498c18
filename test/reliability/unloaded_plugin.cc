// A plugin that links the shared library, as a host's plugins do: the host
// itself does not link pooled_gzip, so unloading the plugin would unload
// the library with it, were it not made permanent as it loads.

#include <cstdlib>

#include "pooled_gzip/pooled_gzip.h"

// 0: loaded only, never set up; 1: installs the core codec; 2: installs
// with POOLED_GZIP_CORE_CODEC=0. Whether the codec is then active.
extern "C" int UnloadedPluginSetUp(int how) {
  if (how == 0) return 0;
  if (how == 2) setenv("POOLED_GZIP_CORE_CODEC", "0", /*overwrite=*/1);
  return pooled_gzip::InstallCoreCodec() ? 1 : 0;
}
