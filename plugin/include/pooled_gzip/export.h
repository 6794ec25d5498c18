// POOLED_GZIP_EXPORT marks the functions that libpooled_gzip and
// libpooled_gzip_prometheus export. Both are built with hidden visibility,
// so whatever lacks the mark stays inside its library and can change
// without breaking programs linked against it.

#ifndef POOLED_GZIP_EXPORT_H_
#define POOLED_GZIP_EXPORT_H_

// The libraries are ELF only (the core codec rewrites ELF relocation
// slots), where one attribute serves both building and using them.
#if defined(__GNUC__)
#define POOLED_GZIP_EXPORT __attribute__((visibility("default")))
#else
#define POOLED_GZIP_EXPORT
#endif

#endif  // POOLED_GZIP_EXPORT_H_
