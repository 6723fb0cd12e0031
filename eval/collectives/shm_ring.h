// Small gathers among MPI ranks of one machine through memory they all map
// (MPI_Win_allocate_shared). Each rank has a segment of the window: a
// counter, then a ring of slots. A gather's block goes into the rank's own
// slot, and one release store of the slot's stamp (the gather's number)
// makes it visible; every peer reads it where it lies, then says so through
// its own `consumed` counter, which the writer checks before it reuses the
// slot. The stamp shares its cache line with the block's first 48 bytes,
// so a peer that finds a small block published has it already. A round is
// then a few cache-line transfers between cores: f32[4] between 2 ranks
// took 100-150 cycles where MPI's own exchange (Irecv, Isend and
// polls through its shared-memory transport) took 500 (Open MPI 4.1, this
// machine). The gathers of one ring are numbered in the order every rank
// starts them (Transport::StartGather's contract), so no message matching
// is needed: gather `seq` uses slot seq % kSlots on every rank.
#ifndef HLO_EVAL_COLLECTIVES_SHM_RING_H_
#define HLO_EVAL_COLLECTIVES_SHM_RING_H_

#ifdef HLO_HAVE_MPI

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "eval/collectives/mpi_api.h"

namespace hlo {

class ShmRing {
 public:
  static constexpr uint64_t kSlots = 4;

  // Collective over `comm` (every rank of it calls, in one order with its
  // other collectives): a ring of slots of `slot_bytes` when every rank of
  // `comm` shares this machine's memory and MPI gives such a window; null
  // otherwise (every rank decides the same).
  static std::unique_ptr<ShmRing> Create(MPI_Comm comm, size_t slot_bytes);
  // Collective over the ring's ranks (MPI_Win_free).
  ~ShmRing();
  ShmRing(const ShmRing&) = delete;
  ShmRing& operator=(const ShmRing&) = delete;

  size_t slot_bytes() const { return slot_bytes_; }

  // Whether every peer has read the block that gather `seq` overwrites
  // (gather seq - kSlots's). Called by one thread at a time.
  bool CanPublish(uint64_t seq);
  // This rank's block of gather `seq` (at most slot_bytes), visible to the
  // peers once this returns. Gathers are published in order.
  void Publish(uint64_t seq, std::string_view block);
  // The same in two steps, for a block written in place: where gather
  // `seq`'s block goes (once CanPublish(seq)), then its publication.
  char* SlotOf(uint64_t seq) const { return SlotAt(me_, seq) + kStampBytes; }
  void Published(uint64_t seq) { Stamp(me_, seq).store(seq + 1, std::memory_order_release); }
  // Whether every peer has published gather `seq`.
  bool Arrived(uint64_t seq) const;
  // Rank `rank`'s block of gather `seq` (its first `bytes`), valid until
  // Consumed(seq).
  std::string_view Block(int rank, uint64_t seq, size_t bytes) const;
  // This rank has read every block of gather `seq` (gathers are consumed
  // in order).
  void Consumed(uint64_t seq);

 private:
  struct Segment {
    std::atomic<uint64_t>* consumed;
    char* slots;
  };
  // A slot: the stamp (the number of the gather published there, plus
  // one), 8 bytes that keep blocks 16-byte aligned, the block.
  static constexpr size_t kStampBytes = 16;
  ShmRing(MPI_Win win, int me, size_t slot_bytes, size_t stride, std::vector<Segment> segments)
      : win_(win),
        me_(me),
        slot_bytes_(slot_bytes),
        stride_(stride),
        segments_(std::move(segments)) {}
  char* SlotAt(int rank, uint64_t seq) const {
    return segments_[rank].slots + (seq % kSlots) * stride_;
  }
  std::atomic<uint64_t>& Stamp(int rank, uint64_t seq) const {
    return *reinterpret_cast<std::atomic<uint64_t>*>(SlotAt(rank, seq));
  }

  MPI_Win win_;
  int me_;
  size_t slot_bytes_;
  size_t stride_;                  // from one slot to the next
  std::vector<Segment> segments_;  // per rank of the ring's communicator
  // The least `consumed` of the peers when CanPublish last read them: a
  // publish it already allows reads no peer's line (each read of one the
  // peer just wrote is a transfer between cores).
  uint64_t consumed_seen_ = 0;
};

}  // namespace hlo

#endif  // HLO_HAVE_MPI

#endif  // HLO_EVAL_COLLECTIVES_SHM_RING_H_
