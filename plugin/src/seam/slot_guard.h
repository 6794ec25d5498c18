// The slots activation pointed that the dynamic linker may still write
// back, kept pointed.
//
// A thread inside the loader's binding of one of libgrpc's lazy JUMP_SLOTs
// when activation points it writes zlib's address after ours, however late
// (seam/slot_rewrite.h). An End slot written back would hand served streams
// to real zlib's End, which frees nothing: every served stream would leak.
// An opening slot written back would leave messages stock and uncapped
// while activation says served. So such a slot is pointed back before the
// emulation serves a stream, whenever a stream that real zlib opened
// reaches it in a served direction, and before CoreCodecActive() answers.
// A binding writes once, so a slot pointed back stays pointed.
//
// What is left needs a thread that entered such a binding before
// activation and leaves it later: a message served on another thread,
// opened before that write and ended after it, reaches real zlib's End and
// is not freed; and the first message opened through an opening slot
// written back runs on real zlib, as stock.

#ifndef POOLED_GZIP_SRC_SEAM_SLOT_GUARD_H_
#define POOLED_GZIP_SRC_SEAM_SLOT_GUARD_H_

#include <vector>

#include "seam/slot_rewrite.h"

namespace pooled_gzip {
namespace internal {

// Keeps `slots` pointed from now on (each slot once; a few dozen at most,
// more are left unguarded).
void GuardSlots(const std::vector<RebindableSlot>& slots);

// Points back every guarded slot that no longer leads to its served function,
// and logs it once a minute; lock-free, a few loads when none moved.
// Whether any had moved.
bool KeepSlotsPointed();

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_SEAM_SLOT_GUARD_H_
