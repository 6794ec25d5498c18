// Built by the README's CMake snippet "cmake".
// Harness of the README's snippet "stats". Run.
#include <pooled_gzip/pooled_gzip.h>

#include <iostream>

#include "stats.includes.inc"

namespace readme_snippet_stats {

void Run() {
#include "stats.body.inc"
}

}  // namespace readme_snippet_stats
