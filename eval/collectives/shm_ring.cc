#ifdef HLO_HAVE_MPI

#include "eval/collectives/shm_ring.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>

namespace hlo {
namespace {

// A segment: `consumed` on a cache line of its own (the readers' stores
// do not share a line with the writer's), then the slots, each from the
// start of a line.
constexpr size_t kLine = 64;
constexpr size_t kHeaderBytes = kLine;

size_t RoundUp(size_t n) { return (n + kLine - 1) / kLine * kLine; }

}  // namespace

std::unique_ptr<ShmRing> ShmRing::Create(MPI_Comm comm, size_t slot_bytes) {
  static_assert(std::atomic<uint64_t>::is_always_lock_free,
                "counters shared between processes must be lock-free");
  int size = 0, me = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &me);
  // The ranks of `comm` on this machine, in comm's order.
  MPI_Comm node;
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node) != MPI_SUCCESS) {
    return nullptr;
  }
  int node_size = 0;
  MPI_Comm_size(node, &node_size);
  // Every rank sees the same answer: all of comm on one machine or not.
  if (node_size != size) {
    MPI_Comm_free(&node);
    return nullptr;
  }
  const size_t stride = RoundUp(kStampBytes + slot_bytes);
  const size_t segment = kHeaderBytes + kSlots * stride;
  char* base = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  MPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN);
  const bool made = MPI_Win_allocate_shared(static_cast<MPI_Aint>(segment), 1, MPI_INFO_NULL, node,
                                            &base, &win) == MPI_SUCCESS;
  // A window some rank could not make is used by none (and left to
  // MPI_Finalize: freeing it is collective).
  int all_made = made ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &all_made, 1, MPI_INT, MPI_MIN, node);
  MPI_Comm_free(&node);
  if (!all_made) return nullptr;
  new (base) std::atomic<uint64_t>(0);
  for (uint64_t s = 0; s < kSlots; ++s) {
    new (base + kHeaderBytes + s * stride) std::atomic<uint64_t>(0);
  }
  std::vector<Segment> segments(static_cast<size_t>(size));
  for (int r = 0; r < size; ++r) {
    MPI_Aint bytes = 0;
    int unit = 0;
    char* at = nullptr;
    MPI_Win_shared_query(win, r, &bytes, &unit, &at);
    segments[r] = Segment{reinterpret_cast<std::atomic<uint64_t>*>(at), at + kHeaderBytes};
  }
  // Every rank's counters are zero before any rank publishes.
  MPI_Win_fence(0, win);
  return std::unique_ptr<ShmRing>(new ShmRing(win, me, slot_bytes, stride, std::move(segments)));
}

ShmRing::~ShmRing() { MPI_Win_free(&win_); }

bool ShmRing::CanPublish(uint64_t seq) {
  if (seq < kSlots || consumed_seen_ >= seq - kSlots + 1) return true;
  uint64_t least = UINT64_MAX;
  for (size_t r = 0; r < segments_.size(); ++r) {
    if (static_cast<int>(r) == me_) continue;
    least = std::min(least, segments_[r].consumed->load(std::memory_order_acquire));
  }
  consumed_seen_ = least;
  return consumed_seen_ >= seq - kSlots + 1;
}

void ShmRing::Publish(uint64_t seq, std::string_view block) {
  std::memcpy(SlotOf(seq), block.data(), block.size());
  Published(seq);
}

bool ShmRing::Arrived(uint64_t seq) const {
  for (size_t r = 0; r < segments_.size(); ++r) {
    if (static_cast<int>(r) == me_) continue;
    if (Stamp(static_cast<int>(r), seq).load(std::memory_order_acquire) < seq + 1) return false;
  }
  return true;
}

std::string_view ShmRing::Block(int rank, uint64_t seq, size_t bytes) const {
  return std::string_view(SlotAt(rank, seq) + kStampBytes, bytes);
}

void ShmRing::Consumed(uint64_t seq) {
  segments_[me_].consumed->store(seq + 1, std::memory_order_release);
}

}  // namespace hlo

#endif  // HLO_HAVE_MPI
