// One of the small libraries loading_importer needs (built ten times, with
// POOLED_GZIP_DEPENDENCY_INDEX 0 to 9): each is one more object that
// dlopen() maps and relocates after it has listed the importer and before
// it relocates the importer itself, which widens that window.

#ifndef POOLED_GZIP_DEPENDENCY_INDEX
#error "build with -DPOOLED_GZIP_DEPENDENCY_INDEX=<0..9>"
#endif

#define POOLED_GZIP_PASTE_(a, b) a##b
#define POOLED_GZIP_PASTE(a, b) POOLED_GZIP_PASTE_(a, b)

// A name of its own, so that the importer needs every one of them.
extern "C" int POOLED_GZIP_PASTE(ImporterDependency,
                                 POOLED_GZIP_DEPENDENCY_INDEX)(int value) {
  return value + POOLED_GZIP_DEPENDENCY_INDEX;
}
