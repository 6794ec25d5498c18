#include "e2e_setups.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "codec/backend.h"
#include "codec/codec.h"

namespace pooled_gzip::bench {
namespace {

using pooled_gzip::internal::CompressOptions;
using pooled_gzip::internal::CompressToString;

bool ParseBackend(absl::string_view name, Backend* backend) {
  const std::optional<Backend> parsed = pooled_gzip::ParseBackend(name);
  if (parsed) *backend = *parsed;
  return parsed.has_value();
}

}  // namespace

const char* CompressionName(Compression compression) {
  switch (compression) {
    case Compression::kNone:
      return "none";
    case Compression::kStock:
      return "stock";
    case Compression::kPooled:
      return "pooled";
  }
  return "?";
}

std::string SetupName(const Setup& setup) {
  if (setup.compression != Compression::kPooled) {
    return CompressionName(setup.compression);
  }
  return absl::StrCat(BackendName(setup.backend), "-", setup.level,
                      setup.skip ? "+skip" : "");
}

absl::Status ParseSetup(absl::string_view text, Setup* setup) {
  *setup = Setup();
  if (text == "none") return absl::OkStatus();
  if (absl::ConsumeSuffix(&text, "+skip")) {
    if (text == "none" || text == "stock") {
      return absl::InvalidArgumentError("+skip needs a pooled setup");
    }
    absl::Status status = ParseSetup(text, setup);
    // Only Configure turns the option on, in both processes; and the
    // library's default leaves it off.
    setup->skip = true;
    setup->configure = true;
    setup->is_default = false;
    return status;
  }
  if (text == "stock") {
    setup->compression = Compression::kStock;
    return absl::OkStatus();
  }
  setup->compression = Compression::kPooled;
  if (text == "default") {
    // What a process that never calls Configure gets.
    const Options defaults = GetOptions();
    setup->backend = defaults.backend;
    setup->level = defaults.level;
    setup->is_default = true;
  } else {
    setup->configure = true;
    const size_t dash = text.find('-');
    if (!ParseBackend(text.substr(0, dash), &setup->backend)) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown setup \"", text,
                       "\": none, stock, default, or zlib, libdeflate or "
                       "isal with an optional -<level>"));
    }
    if (dash != absl::string_view::npos &&
        !absl::SimpleAtoi(text.substr(dash + 1), &setup->level)) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad level in \"", text, "\""));
    }
  }
  const absl::StatusOr<int> level =
      internal::ResolveLevel(setup->backend, setup->level);
  if (!level.ok()) return level.status();
  setup->level = *level;
  if (!setup->is_default) {
    const Options defaults = GetOptions();
    const absl::StatusOr<int> default_level =
        internal::ResolveLevel(defaults.backend, defaults.level);
    setup->is_default = default_level.ok() &&
                        defaults.backend == setup->backend &&
                        *default_level == setup->level;
  }
  return absl::OkStatus();
}

absl::Status ParseSetups(const std::vector<std::string>& items,
                         std::vector<Setup>* setups) {
  setups->clear();
  for (const std::string& item : items) {
    Setup setup;
    if (absl::Status status = ParseSetup(item, &setup); !status.ok()) {
      return status;
    }
    const std::string name = SetupName(setup);
    auto same = std::find_if(
        setups->begin(), setups->end(),
        [&](const Setup& other) { return SetupName(other) == name; });
    if (same == setups->end()) {
      setups->push_back(setup);
    } else {
      // "default" next to the setup it stands for: keep one, which runs
      // configured (the same settings, stated).
      same->is_default = same->is_default || setup.is_default;
      same->configure = same->configure || setup.configure;
    }
  }
  if (setups->empty()) return absl::InvalidArgumentError("no setups");
  return absl::OkStatus();
}

std::vector<std::string> PeerFlags(const Setup& setup) {
  return {
      absl::StrCat("--compression=", CompressionName(setup.compression)),
      absl::StrCat("--backend=", BackendName(setup.backend)),
      absl::StrCat("--level=", setup.level),
      absl::StrCat("--configure=", setup.configure ? "true" : "false"),
      absl::StrCat("--skip_incompressible=", setup.skip ? "true" : "false")};
}

absl::Status SetupFromPeerFlags(const std::string& compression,
                                const std::string& backend, int level,
                                bool configure, bool skip, Setup* setup) {
  *setup = Setup();
  if (compression == "none") {
    setup->compression = Compression::kNone;
  } else if (compression == "stock") {
    setup->compression = Compression::kStock;
  } else if (compression == "pooled") {
    setup->compression = Compression::kPooled;
  } else {
    return absl::InvalidArgumentError("--compression: none, stock or pooled");
  }
  if (!ParseBackend(backend, &setup->backend)) {
    return absl::InvalidArgumentError("--backend: zlib, libdeflate or isal");
  }
  setup->level = level;
  setup->configure = configure;
  setup->skip = skip;
  if (setup->compression == Compression::kPooled && configure) {
    Options options;
    options.backend = setup->backend;
    options.level = level;
    options.skip_incompressible = skip;
    return Configure(options);
  }
  return absl::OkStatus();
}

size_t WireBytes(const Setup& setup, const std::string& serialized) {
  if (setup.compression == Compression::kNone) return serialized.size();
  CompressOptions options;  // stock: zlib 6, byte-identical to core's
  if (setup.compression == Compression::kPooled) {
    options.backend = setup.backend;
    options.level = setup.level;
  }
  std::string compressed;
  if (!CompressToString(serialized, options, &compressed).ok()) return 0;
  return std::min(compressed.size(), serialized.size());
}

}  // namespace pooled_gzip::bench
