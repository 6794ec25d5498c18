// Built by the README's CMake snippet "metrics-cmake".
// Harness of the README's snippet "metrics": the user's own registry. Not
// run: it would listen on a fixed port; linked, which is what proves the
// CMake snippet's libraries provide prometheus::Exposer.
#include <prometheus/registry.h>

#include <memory>

#include "metrics.includes.inc"

namespace readme_snippet_metrics {

void Snippet(const std::shared_ptr<prometheus::Registry>& registry) {
#include "metrics.body.inc"
}

void Run() {}

}  // namespace readme_snippet_metrics
