// Built by the README's CMake snippet "cmake".
// Harness of the README's snippet "options". Run: the options it sets are
// valid, so Configure must accept them.
#include <pooled_gzip/pooled_gzip.h>

#include <cstdlib>
#include <iostream>

#include "options.includes.inc"

namespace readme_snippet_options {

void Run() {
#include "options.body.inc"
  if (pooled_gzip::GetOptions().backend != pooled_gzip::Backend::kIsal) {
    std::cerr << "snippet options: Configure did not take the options\n";
    std::exit(1);
  }
}

}  // namespace readme_snippet_options
