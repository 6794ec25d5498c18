// gRPC core's calls into zlib for one message (message_compress.cc, 1.51
// through master, zlib_compress/zlib_decompress around zlib_body), made
// through any set of zlib's entry points: real zlib's, or the ones the
// zlib seam serves (plugin/src/seam/zlib_seam.h). The tests compare the two
// on core's exact call pattern.

#ifndef POOLED_GZIP_TESTING_CORE_ZLIB_CALLS_H_
#define POOLED_GZIP_TESTING_CORE_ZLIB_CALLS_H_

#include <zlib.h>

#include <optional>
#include <string>
#include <vector>

#include "codec/format.h"
#include "seam/real_zlib.h"
#include "seam/zlib_seam.h"

namespace pooled_gzip::test_support {

// zlib's entry points that core calls (seam/zlib_entries.def).
using ZlibEntryPoints = internal::ZlibFunctions;

// This program's zlib, as the library reaches it.
ZlibEntryPoints RealZlib();

// The zlib seam's functions in their place.
ZlibEntryPoints Seam();

// The seam's functions for the entry points of `role`, real zlib's for the
// others: libgrpc's calls once activation has pointed only those slots.
ZlibEntryPoints SeamFor(internal::ZlibEntryRole role);

// What core does with a message in `slices`: a stream opened with core's
// parameters and an allocator of its own (core's is gpr's), each slice given
// with Z_NO_FLUSH (the last with Z_FINISH) into fresh 1,024-byte output blocks
// while the last one is full. The output, or nullopt where core fails the
// message (a negative result other than Z_BUF_ERROR, input left over, no
// Z_STREAM_END at the end). Compressing, core's own rule that a stream must be
// shorter than the message comes after this and is left to the caller.
std::optional<std::string> CoreCompress(const ZlibEntryPoints& zlib,
                                        internal::Format format,
                                        const std::vector<std::string>& slices);
std::optional<std::string> CoreDecompress(
    const ZlibEntryPoints& zlib, internal::Format format,
    const std::vector<std::string>& slices);

// A z_stream as core opens one: zeroed, with an allocator of its own that
// stands for gpr's, which the zlib seam is told to serve as core's.
z_stream CoresStream();

// `bytes` cut into pieces of `piece` bytes (the last may be shorter); none
// for no bytes, as core's slice buffer of an empty message.
std::vector<std::string> Slices(const std::string& bytes, size_t piece);

}  // namespace pooled_gzip::test_support

#endif  // POOLED_GZIP_TESTING_CORE_ZLIB_CALLS_H_
