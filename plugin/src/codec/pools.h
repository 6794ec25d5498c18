// The process-wide writer, reader and message buffer pools, bound by one
// idle budget.

#ifndef POOLED_GZIP_SRC_CODEC_POOLS_H_
#define POOLED_GZIP_SRC_CODEC_POOLS_H_

#include "codec/backend.h"
#include "codec/message_buffers.h"
#include "pool/context_pool.h"

namespace pooled_gzip {
namespace internal {

// The pool's Policy for the writers or readers `New` makes.
template <typename C, typename K, std::unique_ptr<C> (*New)(const K&)>
struct ContextPolicy {
  using Context = C;
  using Key = K;
  static C* Create(const K& key) { return New(key).release(); }
  static bool Reset(C* context) { return context->Reset(); }
  static size_t Bytes(const C& context) { return context.HeapBytes(); }
  static bool Shrink(C* context) { return context->FreeBuffers(); }
  static void Destroy(C* context) { delete context; }
};

using WriterPool =
    ThreadLocalPool<ContextPolicy<Deflater, DeflaterKey, NewDeflater>>;
using ReaderPool =
    ThreadLocalPool<ContextPolicy<Inflater, InflaterKey, NewInflater>>;
using BufferPool = ThreadLocalPool<MessageBuffersPolicy>;

// The idle budget both pools share.
const std::shared_ptr<IdleBudget>& Budget();

// Never destroyed, so thread exit can always return contexts to them. The
// first call to any registers their fork handler (pool/context_pool.h).
WriterPool& Writers();
ReaderPool& Readers();
BufferPool& Buffers();

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_POOLS_H_
