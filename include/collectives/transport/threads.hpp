#pragma once
// The threads transport: a team of p threads in one process, one endpoint each.
//
// Channels. Each ordered pair of ranks (a, b) has a channel: a ring of bytes that a writes
// and b reads (single producer, single consumer), allocated on its first message and kept
// for the team's life. Every message is an entry in the ring: a 64-byte header (size, call,
// step, collective and algorithm names) and, for small messages, the payload. The header's
// first word publishes the entry: the receiver polls it where its next entry will start,
// so a message costs the receiver one cache line more than its payload (no shared head
// index to read first).
//  - Eager (at most Options::eager_bytes): the sender copies the message into its entry
//    and goes on without waiting for the receiver, as Open MPI's shared-memory path does;
//    the receiver copies (or combines) it out. Two copies, no wait: below the threshold
//    waiting for the partner costs more than the second copy.
//  - Single copy (larger): the entry only announces the message; the sender publishes its
//    gather list in the channel's rendezvous record and waits until the receiver has
//    copied (or combined) straight from the sender's memory.
//  - Shared single copy (at least two chunks, Options::share_chunk; by default only when
//    the team has a core per rank): the receiver publishes its scatter list too and
//    copies chunks from the front while the sender, waiting for this message with nothing
//    else to do (no receive in this step), copies chunks from the back, so a rank that
//    would only wait (a reduce's or a broadcast's sender) does half the work. Both take
//    chunks from one atomic word; the receiver returns only when every chunk taken has
//    been moved, since the sender writes into its memory. A combine is shared only when
//    it says it may run on two threads at once (ReceiveCombine::grain, the element size
//    the chunks are cut at).
// Both kinds go through the same ring, so the messages of a channel stay in order.
//
// Combining on receipt (combines_on_receive): a reduction's receive combines each segment
// straight from the ring entry or the sender's memory into place, so a reduction step
// reads every byte once and needs no staging. One exception: when the destination is
// memory this rank still sends from in the same step (an in-place exchange such as
// recursive doubling's, where both ranks combine into the block they send each other), the
// message is copied aside and combined once this rank's sends have been taken, since
// combining first would change what the peer reads.
//
// Calls never mix: every entry carries its sender's call number (begin_call) and step;
// the receiver checks both, and the collective's name, against its own, and a message of
// another call or step is a CallMismatch naming both (a message left over from an earlier
// call is never consumed by a later one). A message no rank ever received makes Team::run
// throw CallMismatch naming its call and step.
//
// Waiting spins briefly, yields a few times, then blocks on the waiter's own doorbell
// (std::atomic wait/notify). A blocking rank registers as asleep under the team's sleep mutex; whoever
// changes what a sleeper waits for deregisters it and rings its doorbell. So when the last
// live rank goes to sleep and finds every other live rank asleep and not rung, no message
// can move any more: that rank declares a Deadlock, which every waiting rank throws
// (naming which rank waits for which, at which collective and step) and nothing more is
// written. A rank that throws fails the team: every waiting rank is woken and throws
// RankFailed naming it, and Team::run rethrows the original exception.
//
// Because a receiver reads a single-copy sender's memory, it claims the offer before
// reading it; a sender leaving exchange() by an exception takes back every offer not yet
// claimed, and waits for the claimed ones to be copied, before its buffers can go away.
//
// Memory ordering: every store that can let a sleeper go on (a new entry, a consumed
// entry, a finished offer) is sequentially consistent and is followed by a sequentially
// consistent load of the sleeper's flag; a sleeper sets its flag (seq_cst) before its
// last look. So either the waker sees the flag and rings, or the sleeper sees the change.

#include <collectives/cost/model.hpp>
#include <collectives/transport/concepts.hpp>
#include <collectives/transport/errors.hpp>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace collectives {

namespace detail {

/// Moves bytes [begin, end) of a gather list into the same bytes of a scatter list of the
/// same total size: copies, or combines with `combine` segment by segment (segments end
/// where a piece of either side ends, so at element boundaries when both sides' pieces,
/// and begin and end, are cut there).
inline void transfer(const ConstBytes* from, std::size_t nfrom, std::span<const MutableBytes> to,
                     const ReceiveCombine* combine, std::size_t begin, std::size_t end)
{
  std::size_t fi = 0, fo = begin, ti = 0, to_at = begin;
  while (fi < nfrom && fo >= from[fi].size && fo != 0) fo -= from[fi++].size;
  while (ti < to.size() && to_at >= to[ti].size && to_at != 0) to_at -= to[ti++].size;
  for (std::size_t left = end - begin; left != 0;) {
    while (from[fi].size == fo) { // (empty pieces too)
      ++fi;
      fo = 0;
    }
    while (to[ti].size == to_at) {
      ++ti;
      to_at = 0;
    }
    const std::size_t n = std::min({left, from[fi].size - fo, to[ti].size - to_at});
    if (combine != nullptr) combine->fn(combine->ctx, to[ti].data + to_at, from[fi].data + fo, n);
    else std::memcpy(to[ti].data + to_at, from[fi].data + fo, n);
    left -= n;
    fo += n;
    to_at += n;
  }
}

/// The whole of a gather list into a scatter list of the same total size.
inline void transfer(const ConstBytes* from, std::size_t nfrom, std::span<const MutableBytes> to,
                     const ReceiveCombine* combine)
{
  transfer(from, nfrom, to, combine, 0, total_bytes(std::span<const ConstBytes>(from, nfrom)));
}

} // namespace detail

namespace threads {

class Team;

/// Tuning of a Team. The defaults were measured on a 2-core x86 machine (see
/// benchmarks/threads_transport.cpp).
struct Options {
  /// Messages of at most this many bytes go eager (copied into the channel); larger ones
  /// are copied once, by the receiver, from the sender's memory. 0: default, 4 KiB, Open
  /// MPI's shared-memory eager limit: when both ranks run, single copy was 2-3x faster at
  /// 8 KiB (broadcast, alltoall, p = 2) and eager no faster at 2-4 KiB, while eager spares
  /// a sender whose partner waits for a CPU the whole wait; 64 KiB was 2-4x slower at
  /// 16-64 KiB.
  std::size_t eager_bytes = 0;
  /// Bytes of each channel's ring (rounded up to a power of two, so that a position's
  /// place in the ring is a mask, not a division; at least 2 (eager_bytes + 64) + 64, so
  /// an eager message always fits an empty ring). 0: default, that least size rounded up,
  /// i.e. 16 KiB per channel by default, allocated on a channel's first message (a team of
  /// p ranks holds at most p (p - 1) of them: 1 MiB at p = 8, 16 MiB at p = 32).
  std::size_t channel_bytes = 0;
  /// Polls of a waiting rank before it yields its CPU (a pause between polls). 0: default
  /// (1024 when the team has at most as many ranks as cores, else 32).
  unsigned spin = 0;
  /// Polls, after spinning, each preceded by std::this_thread::yield(), before a waiting
  /// rank blocks on its doorbell. 0: default (16, or 4 with more ranks than cores).
  unsigned yields = 0;
  /// Single-copy messages of at least two chunks of this many bytes are shared between the
  /// receiver and a sender that waits for them (see the top of this header). 0: default,
  /// 64 KiB, and never in a team with more ranks than cores, where a helping sender takes
  /// no work off its receiver, only the core a third rank needs (measured at p = 2, 1 MiB:
  /// a reduce's combine and a broadcast's copy 1.9x faster than the receiver alone; smaller
  /// chunks pay more for the word both take them from). SIZE_MAX: never.
  std::size_t share_chunk = 0;
};

/// One rank's end of a Team; satisfies collectives::endpoint, takes the step's identity,
/// numbers collective calls and combines on receipt.
class Endpoint {
public:
  /// This endpoint honours RecvRequest::combine.
  static constexpr bool combines_on_receive = true;

  std::size_t rank() const noexcept { return rank_; }
  std::size_t size() const noexcept;
  /// Posts every send and receive of one step and returns when all have completed (an
  /// eager send completes when copied). Throws std::invalid_argument for a bad peer,
  /// std::length_error for a size mismatch, CallMismatch for a message of another call or
  /// step, Deadlock when no rank can move, RankFailed when a peer failed or returned.
  void exchange(std::span<const SendRequest> sends, std::span<const RecvRequest> recvs);
  /// The same, for the collective call and step `info` (checked against the peers').
  void exchange(std::span<const SendRequest> sends, std::span<const RecvRequest> recvs, const StepInfo& info);
  /// Numbers the next collective call on this endpoint, from 1 in each Team::run.
  std::uint64_t begin_call() noexcept { return ++calls_; }
  /// The cost model a Communicator over this endpoint selects default algorithms with
  /// (Team::cost_model): the same on every rank.
  CostModel cost_model() const noexcept;

private:
  friend class Team;
  Endpoint(Team& team, std::size_t rank) : team_(&team), rank_(rank) {}
  Team* team_;
  std::size_t rank_;
  std::uint64_t calls_ = 0;
};

/// p threads, each running the same function with its own Endpoint.
/// collective: run() returns when every rank's function has returned.
class Team {
public:
  /// A team of p >= 1 ranks.
  explicit Team(std::size_t p, Options options = {}) : p_(p)
  {
    if (p == 0) throw std::invalid_argument("collectives::threads::Team: the team needs at least one rank");
    eager_ = options.eager_bytes != 0 ? options.eager_bytes : 4096;
    // An eager message, a wrap before it and the next entry's word fit an empty ring.
    const std::size_t least = 2 * (round64(eager_) + header_bytes) + 64;
    ring_bytes_ = std::bit_ceil(std::max(options.channel_bytes, least));
    ring_mask_ = ring_bytes_ - 1;
    // With more ranks than cores, a spinning rank holds the core the rank it waits for
    // needs: poll only briefly before blocking.
    const unsigned cores = std::thread::hardware_concurrency();
    cores_ = cores != 0 ? cores : 1;
    oversubscribed_ = cores != 0 && p > cores;
    // Spinning only pays when the partner is running on another core: a short spin, a few
    // yields (which hand the core to a runnable partner), then block. Measured with
    // benchmarks/threads_transport.cpp on 2 shared cores: long spins (4096 polls and more)
    // cost a scheduler time slice per step whenever other processes load the machine.
    spin_limit_ = options.spin != 0 ? options.spin : oversubscribed_ ? 32 : 1024;
    yield_limit_ = options.yields != 0 ? options.yields : oversubscribed_ ? 4 : 16;
    share_chunk_ = options.share_chunk != 0 ? options.share_chunk : oversubscribed_ ? std::size_t(-1) : 64 * 1024;
    channels_ = std::make_unique<Channel[]>(p_ * p_);
    ranks_ = std::make_unique<RankState[]>(p_);
    reset();
  }
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;
  ~Team()
  {
    for (std::size_t i = 0; i < p_ * p_; ++i)
      if (std::byte* ring = channels_[i].ring.load(); ring != nullptr) ::operator delete(ring, std::align_val_t{64});
  }

  std::size_t size() const noexcept { return p_; }
  /// The cost model of this team's exchanges, for choosing algorithms: one node's shared
  /// memory (a message's start-up is a cache-line handshake, a word moves at memory
  /// speed; a rank's receive and its peer's receive of what it sends share one memory
  /// system, so a step's words in both directions add up: half_duplex), and, with more
  /// ranks than cores, ranks time-sharing the cores (lanes) and a start-up that grows
  /// with the ranks per core: every step then waits for its partners to be scheduled, so
  /// algorithms with fewer steps win (measured with benchmarks/bench_collectives and
  /// mpi_collectives).
  /// Depends only on p and the machine, so every rank computes the same.
  CostModel cost_model() const noexcept
  {
    const double per_core = static_cast<double>(p_) / static_cast<double>(cores_);
    const double t_s = oversubscribed_ ? 1.5e-6 * per_core : 0.5e-6;
    return CostModel{.t_s = t_s, .t_w = 0.5e-9, .t_h = 0, .t_r = 0.25e-9, .half_duplex = true,
                     .lanes = oversubscribed_ ? std::size_t{cores_} : 0};
  }
  /// Messages of at most this many bytes go eager.
  std::size_t eager_bytes() const noexcept { return eager_; }

  /// Runs f(endpoint) on p threads (rank 0 on the calling thread) and waits for all.
  /// If any rank throws, the others are released (a rank waiting for a failed rank throws
  /// RankFailed naming it) and the first exception is rethrown. Every rank's f runs, even
  /// when another rank has failed before it starts, unless the threads cannot be started.
  /// A message sent but never received makes run() throw CallMismatch naming it.
  template <class F>
  void run(F&& f)
  {
    reset();
    auto body = [&](std::size_t r) {
      Endpoint ep(*this, r);
      try {
        f(ep);
        finish(r);
      } catch (const RankFailed& e) {
        // Released by another rank's failure: pass the name of the rank at the root on, so
        // every rank released later names the same one.
        fail(r, e.failed_rank(), std::current_exception());
      } catch (...) {
        fail(r, r, std::current_exception());
      }
    };
    std::vector<std::thread> workers;
    workers.reserve(p_ - 1);
    bool started = true;
    try {
      for (std::size_t r = 1; r < p_; ++r) workers.emplace_back(body, r);
    } catch (...) {
      started = false;
      fail(0, 0, std::current_exception());
    }
    // Rank 0 runs even when a worker has already failed: it is released at its first wait
    // like every other rank, instead of silently never running.
    if (started) body(0);
    else finish(0);
    for (auto& w : workers) w.join();
    if (failure_) std::rethrow_exception(failure_);
    check_all_received();
  }

private:
  friend class Endpoint;

  static constexpr std::size_t header_bytes = 64;
  static constexpr std::size_t round64(std::size_t n) { return (n + 63) / 64 * 64; }

  /// The head of every ring entry, after its publication word (see publish()). Whether
  /// the entry is eager, an offer or a wrap follows from `bytes`, so the header and the
  /// word fill one cache line.
  struct Header {
    std::uint64_t bytes = 0; // the message's size; a wrap: wrap_bit | the bytes skipped
    std::uint64_t call = 0;  // the sender's call number (0: no StepInfo)
    std::uint32_t step = 0;
    std::uint32_t steps = 0;
    std::string_view collective{};
    std::string_view algorithm{};
  };
  static constexpr std::size_t seq_bytes = sizeof(std::uint64_t);
  static_assert(seq_bytes + sizeof(Header) == header_bytes);
  static constexpr std::uint64_t wrap_bit = std::uint64_t{1} << 63;

  /// States of a channel's rendezvous record (shared: claimed, and open to the sender's
  /// help).
  enum : std::uint32_t { idle, offered, claimed, shared, copied, withdrawn };

  // Positions in a channel (head, tail, an entry's) count bytes over the team's life and
  // are never reset, so a position names one entry: the receiver polls the publication
  // word where its next entry will start, and no stale word can match (see publish()).
  struct Channel {
    // The sender's own.
    alignas(64) std::uint64_t head = 0; // bytes ever published
    std::uint64_t tail_seen = 0;        // the sender's last look at tail
    // Allocated (zeroed) by the sender's first message, then read-only: its own line, so
    // the receiver's every poll of it hits its cache.
    alignas(64) std::atomic<std::byte*> ring{nullptr};
    // Written by the receiver.
    alignas(64) std::atomic<std::uint64_t> tail{0}; // bytes ever consumed
    // The single-copy offer (one at a time per channel).
    alignas(64) std::atomic<std::uint32_t> offer{idle};
    const ConstBytes* pieces = nullptr;
    std::size_t count = 0;
    // A shared offer, written by the receiver before `shared` is stored: its scatter list,
    // combine and chunks.
    std::span<const MutableBytes> into;
    const ReceiveCombine* combine = nullptr;
    std::size_t bytes = 0, chunk = 0, chunks = 0;
    std::exception_ptr error; // the first chunk that threw (written before its `moved`)
    std::atomic<bool> failed{false};
    // Chunks taken: from the front by the receiver (low 32 bits), from the back by the
    // sender (high 32 bits). A take adds 1 to its half and is valid when the word it
    // replaced held fewer than `chunks` in all; both halves only grow, so none wraps.
    alignas(64) std::atomic<std::uint64_t> taken{0};
    std::atomic<std::uint32_t> moved{0}; // chunks taken and moved
  };

  /// What a rank is doing in exchange(), for its own loop and for the deadlock report.
  struct RankState {
    // Per send: 0 not posted, 1 offered (single copy, waiting), 2 done.
    std::vector<std::uint8_t> send_state;
    std::vector<std::uint8_t> recv_done;
    std::vector<std::size_t> send_prev, recv_prev; // earlier request to the same peer, or npos
    std::vector<std::size_t> last;                 // per peer: scratch for the above
    std::vector<std::size_t> staged_at;            // per receive: offset in stage, or npos
    // Combining receives whose destination this rank still sends from wait here (see
    // try_receive); grown, never shrunk.
    std::byte* stage = nullptr;
    std::size_t stage_capacity = 0;
    std::size_t stage_used = 0;
    ~RankState()
    {
      if (stage != nullptr) ::operator delete(stage, std::align_val_t{64});
    }
    std::span<const SendRequest> sends;
    std::span<const RecvRequest> recvs;
    const StepInfo* info = nullptr;
    // Sleeping (the flag and count are changed under the team's sleep mutex).
    alignas(64) std::atomic<std::uint32_t> bell{0};
    std::atomic<bool> sleeping{false};
    std::atomic<bool> finished{false};
  };

  static constexpr std::size_t npos = ~std::size_t{0};

  Channel& channel(std::size_t from, std::size_t to) { return channels_[from * p_ + to]; }
  /// The ring's memory at position `at` (the ring must exist).
  std::byte* entry_at(const Channel& ch, std::uint64_t at) const
  {
    return ch.ring.load(std::memory_order_relaxed) + (at & ring_mask_);
  }
  static Header header_at(const std::byte* at)
  {
    Header h;
    std::memcpy(&h, at + seq_bytes, sizeof h);
    return h;
  }
  static std::atomic_ref<std::uint64_t> seq_word(const std::byte* at)
  {
    // An entry starts on a 64-byte boundary of the ring (allocated 64-aligned).
    return std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(const_cast<std::byte*>(at)));
  }
  /// Makes the entry written at position `at` visible to the receiver: its word becomes
  /// at + 1 (seq_cst: see the top of this header). The receiver waits for exactly that
  /// value at its tail, so the word must never hold it before: every publication first
  /// zeroes the word where the next entry will start (payload of an earlier lap may lie
  /// there, and a payload could hold any value), and a fresh ring is zeroed.
  static void publish(std::byte* e, std::uint64_t at) { seq_word(e).store(at + 1, std::memory_order_seq_cst); }
  /// The entry at the receiver's position `tail` when it has been published, else null.
  const std::byte* published_at(const Channel& ch, std::uint64_t tail, std::memory_order order) const
  {
    const std::byte* ring = ch.ring.load(std::memory_order_acquire);
    if (ring == nullptr) return nullptr;
    const std::byte* e = ring + (tail & ring_mask_);
    return seq_word(e).load(order) == tail + 1 ? e : nullptr;
  }
  /// Bytes of the entry with this header in the ring.
  std::uint64_t entry_bytes(const Header& h) const
  {
    if ((h.bytes & wrap_bit) != 0) return h.bytes & ~wrap_bit;
    return header_bytes + (h.bytes <= eager_ ? round64(h.bytes) : 0);
  }

  void reset()
  {
    for (std::size_t i = 0; i < p_ * p_; ++i) {
      // Positions go on from the last run (see Channel); a message a failed run left
      // behind is dropped.
      Channel& ch = channels_[i];
      ch.tail.store(ch.head, std::memory_order_relaxed);
      ch.tail_seen = ch.head;
      ch.offer.store(idle, std::memory_order_relaxed);
    }
    for (std::size_t r = 0; r < p_; ++r) {
      ranks_[r].sleeping.store(false, std::memory_order_relaxed);
      ranks_[r].finished.store(false, std::memory_order_relaxed);
    }
    asleep_ = 0;
    live_ = p_;
    deadlocked_.store(false);
    failed_.store(false);
    failed_rank_ = 0;
    failure_ = nullptr;
  }

  // --- sleeping and waking -------------------------------------------------------------

  /// Rank q may be able to go on: wake it if it sleeps. Called after a seq_cst store of
  /// what q waits for (see the top of this header).
  void wake(std::size_t q)
  {
    RankState& rs = ranks_[q];
    if (!rs.sleeping.load(std::memory_order_seq_cst)) return;
    {
      std::lock_guard lock(sleep_mutex_);
      if (rs.sleeping.load(std::memory_order_relaxed)) {
        rs.sleeping.store(false, std::memory_order_relaxed);
        --asleep_;
      }
      rs.bell.fetch_add(1, std::memory_order_release);
    }
    rs.bell.notify_one();
  }
  void wake_all()
  {
    for (std::size_t r = 0; r < p_; ++r) wake(r);
  }

  void finish(std::size_t r)
  {
    {
      std::lock_guard lock(sleep_mutex_);
      --live_;
    }
    ranks_[r].finished.store(true, std::memory_order_seq_cst);
    wake_all();
  }

  /// Rank r leaves with exception e; `culprit` is the rank to blame (r itself, or the rank
  /// a RankFailed from r names).
  void fail(std::size_t r, std::size_t culprit, std::exception_ptr e)
  {
    poison(culprit, e);
    finish(r);
  }

  /// Fails the team (the first failure wins) and wakes every rank.
  void poison(std::size_t culprit, std::exception_ptr e)
  {
    {
      std::lock_guard lock(failure_mutex_);
      if (!failed_.load(std::memory_order_relaxed)) {
        failed_rank_ = culprit;
        failure_ = e;
        failed_.store(true, std::memory_order_seq_cst);
      }
    }
    wake_all();
  }

  /// Throws e after failing the team with it, so the peers are released at once even if
  /// the caller catches e and carries on.
  template <class E>
  [[noreturn]] void raise(std::size_t me, E e)
  {
    std::exception_ptr ptr = std::make_exception_ptr(std::move(e));
    poison(me, ptr);
    std::rethrow_exception(ptr);
  }

  [[noreturn]] void throw_released(std::size_t me, std::size_t peer, const StepInfo* info)
  {
    if (deadlocked_.load(std::memory_order_acquire)) {
      std::string what;
      {
        std::lock_guard lock(sleep_mutex_);
        what = deadlock_text_;
      }
      throw Deadlock(what);
    }
    if (failed_.load(std::memory_order_acquire))
      throw RankFailed(failed_rank_, "collectives::threads: rank " + std::to_string(me) + ", in " +
                                         detail::describe_step(info) + ", released because rank " +
                                         std::to_string(failed_rank_) + " failed");
    raise(me, RankFailed(peer, "collectives::threads: rank " + std::to_string(me) + ", in " +
                                   detail::describe_step(info) + ", waits for rank " + std::to_string(peer) +
                                   ", which has already returned. " + detail::mismatch_causes));
  }

  static void pause()
  {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause(); // the PAUSE instruction, without <immintrin.h> (~0.5 s to compile)
#else
    std::this_thread::yield();
#endif
  }

  // --- one exchange --------------------------------------------------------------------

  void exchange(std::size_t me, std::span<const SendRequest> sends, std::span<const RecvRequest> recvs,
                const StepInfo* info);
  bool try_post(std::size_t me, const SendRequest& s, const StepInfo* info, bool& done);
  bool try_receive(std::size_t me, std::size_t i, const StepInfo* info);
  bool overlaps_open_send(std::size_t me, const RecvRequest& r);
  std::byte* stage(std::size_t me, std::size_t bytes, std::size_t& offset);
  bool can_progress(std::size_t me);
  static bool chunks_left(const Channel& ch);
  static std::exception_ptr move_chunks(Channel& ch, bool front) noexcept;
  void receive_shared(Channel& ch, std::size_t peer, std::span<const MutableBytes> into,
                      const ReceiveCombine* combine, std::size_t bytes);
  void block(std::size_t me);
  void withdraw(std::size_t me) noexcept;
  std::string waits_text(std::size_t r);
  void check_header(std::size_t me, const RecvRequest& r, const Header& h, const StepInfo* info);
  void check_all_received();

  std::size_t p_;
  std::size_t eager_ = 4096;
  std::size_t ring_bytes_ = 0; // a power of two
  std::size_t ring_mask_ = 0;
  bool oversubscribed_ = false;
  unsigned cores_ = 1;
  unsigned spin_limit_ = 1024; // polls (with pause) before yielding
  unsigned yield_limit_ = 16;  // polls (with yield) before blocking on the doorbell
  std::size_t share_chunk_ = std::size_t(-1); // bytes (Options::share_chunk)
  std::unique_ptr<Channel[]> channels_;
  std::unique_ptr<RankState[]> ranks_;

  std::mutex sleep_mutex_; // guards asleep_, live_, deadlock_text_ and the sleeping flags
  std::size_t asleep_ = 0;
  std::size_t live_ = 0;
  std::string deadlock_text_;
  std::atomic<bool> deadlocked_{false};

  std::atomic<bool> failed_{false};
  std::mutex failure_mutex_;
  std::size_t failed_rank_ = 0; // written before failed_ is set (seq_cst), read after it
  std::exception_ptr failure_;
};

inline std::size_t Endpoint::size() const noexcept { return team_->size(); }
inline CostModel Endpoint::cost_model() const noexcept { return team_->cost_model(); }

inline void Endpoint::exchange(std::span<const SendRequest> sends, std::span<const RecvRequest> recvs)
{
  team_->exchange(rank_, sends, recvs, nullptr);
}

inline void Endpoint::exchange(std::span<const SendRequest> sends, std::span<const RecvRequest> recvs,
                               const StepInfo& info)
{
  team_->exchange(rank_, sends, recvs, &info);
}


inline void Team::check_header(std::size_t me, const RecvRequest& r, const Header& h, const StepInfo* info)
{
  // Only calls that name themselves on both sides can be compared.
  if (info == nullptr || info->call == 0 || h.call == 0) return;
  if (h.call == info->call && h.step == info->step && h.collective == info->collective) return;
  StepInfo theirs{h.collective, h.algorithm, h.call, h.step, h.steps};
  std::string what = "collectives::threads: rank " + std::to_string(me) + ", in " + detail::describe_step(info) +
                     ", expects a message from rank " + std::to_string(r.peer) + " but finds one of " +
                     detail::describe_step(&theirs) + " (" + std::to_string(h.bytes) + " bytes)";
  if (h.call < info->call) what += ", left over from an earlier call that never received it";
  else if (h.call > info->call) what += ": rank " + std::to_string(r.peer) + " has gone on to a later call";
  raise(me, CallMismatch(what + ". " + detail::mismatch_causes));
}

inline bool Team::try_post(std::size_t me, const SendRequest& s, const StepInfo* info, bool& done)
{
  Channel& ch = channel(me, s.peer);
  const std::size_t bytes = total_bytes(s.pieces);
  const bool eager = bytes <= eager_;
  if (!eager && ch.offer.load(std::memory_order_relaxed) != idle) return false; // an earlier offer is open
  const std::uint64_t entry = header_bytes + (eager ? round64(bytes) : 0);
  const std::uint64_t head = ch.head;
  const std::uint64_t at = head & ring_mask_;
  const std::uint64_t skip = ring_bytes_ - at < entry ? ring_bytes_ - at : 0; // wrap to the start
  // Room for the entry and for the next entry's word, which is zeroed below.
  const std::uint64_t end = head + skip + entry;
  if (end + seq_bytes - ch.tail_seen > ring_bytes_) {
    ch.tail_seen = ch.tail.load(std::memory_order_acquire);
    if (end + seq_bytes - ch.tail_seen > ring_bytes_) return false; // full: the receiver lags
  }
  if (ch.ring.load(std::memory_order_relaxed) == nullptr) { // first message (only the sender writes it)
    auto* ring = static_cast<std::byte*>(::operator new(ring_bytes_, std::align_val_t{64}));
    std::memset(ring, 0, ring_bytes_);
    ch.ring.store(ring, std::memory_order_release);
  }
  Header h;
  h.bytes = bytes;
  if (info != nullptr) {
    h.call = info->call;
    h.step = static_cast<std::uint32_t>(info->step);
    h.steps = static_cast<std::uint32_t>(info->steps);
    h.collective = info->collective;
    h.algorithm = info->algorithm;
  }
  std::byte* e = entry_at(ch, head + skip);
  std::memcpy(e + seq_bytes, &h, sizeof h);
  if (eager) {
    std::byte* to = e + header_bytes;
    for (const auto& piece : s.pieces) {
      if (piece.size != 0) std::memcpy(to, piece.data, piece.size);
      to += piece.size;
    }
  } else {
    ch.pieces = s.pieces.data();
    ch.count = s.pieces.size();
    ch.offer.store(offered, std::memory_order_relaxed); // published by the entry's word
  }
  // Zeroed last: the line is likely still in the receiver's cache, and a store that waits
  // for it ahead of the header's copy (which reloads the header from the stack) would
  // serialise two cache-line transfers (measured: ~0.1 us a message).
  seq_word(entry_at(ch, end)).store(0, std::memory_order_relaxed); // published by the entry's word
  publish(e, head + skip);
  if (skip != 0) {
    // The receiver polls at head: the wrap goes out after the entry it leads to.
    Header w;
    w.bytes = wrap_bit | skip;
    std::byte* we = entry_at(ch, head);
    std::memcpy(we + seq_bytes, &w, sizeof w);
    publish(we, head);
  }
  ch.head = end;
  wake(s.peer);
  done = eager;
  return true;
}

/// Whether receive r combines into memory a send of this exchange that has not finished
/// still reads (an unposted send, or an offer the peer may be reading): an in-place
/// exchange such as recursive doubling's. Spans are compared, so this errs towards yes.
inline bool Team::overlaps_open_send(std::size_t me, const RecvRequest& r)
{
  if (r.combine == nullptr) return false;
  const std::byte *lo = nullptr, *hi = nullptr;
  for (const auto& piece : r.pieces)
    if (piece.size != 0) {
      lo = lo == nullptr ? piece.data : std::min(lo, static_cast<const std::byte*>(piece.data));
      hi = std::max(hi, static_cast<const std::byte*>(piece.data + piece.size));
    }
  if (lo == nullptr) return false;
  RankState& rs = ranks_[me];
  for (std::size_t i = 0; i < rs.sends.size(); ++i) {
    if (rs.send_state[i] == 2) continue;
    if (rs.send_state[i] == 1 && channel(me, rs.sends[i].peer).offer.load(std::memory_order_acquire) == copied)
      continue;
    for (const auto& piece : rs.sends[i].pieces)
      if (piece.size != 0 && piece.data < hi && lo < piece.data + piece.size) return true;
  }
  return false;
}

/// Room for `bytes` more staged bytes of this exchange (their offset in `offset`); the
/// staged bytes so far move with the buffer when it grows.
inline std::byte* Team::stage(std::size_t me, std::size_t bytes, std::size_t& offset)
{
  RankState& rs = ranks_[me];
  offset = rs.stage_used;
  const std::size_t need = offset + round64(bytes);
  if (need > rs.stage_capacity) {
    const std::size_t grown = std::max(need, 2 * rs.stage_capacity);
    auto* fresh = static_cast<std::byte*>(::operator new(grown, std::align_val_t{64}));
    if (rs.stage != nullptr) {
      if (offset != 0) std::memcpy(fresh, rs.stage, offset);
      ::operator delete(rs.stage, std::align_val_t{64});
    }
    rs.stage = fresh;
    rs.stage_capacity = grown;
  }
  rs.stage_used = need;
  return rs.stage + offset;
}

inline bool Team::try_receive(std::size_t me, std::size_t index, const StepInfo* info)
{
  RankState& rs = ranks_[me];
  const RecvRequest& r = rs.recvs[index];
  Channel& ch = channel(r.peer, me);
  std::uint64_t tail = ch.tail.load(std::memory_order_relaxed);
  const std::byte* e = published_at(ch, tail, std::memory_order_acquire);
  if (e == nullptr) return false;
  Header h = header_at(e);
  if ((h.bytes & wrap_bit) != 0) {
    tail += entry_bytes(h); // the sender published the entry before the wrap
    e = entry_at(ch, tail);
    h = header_at(e);
  }
  check_header(me, r, h, info);
  const std::size_t want = total_bytes(r.pieces);
  if (h.bytes != want)
    raise(me, std::length_error(detail::size_mismatch_text("collectives::threads", me, r.peer, want, h.bytes, info)));
  // Combining into memory this rank still sends from would change what its peer reads:
  // copy the message aside instead, and combine once every send has been taken.
  MutableBytes staged{};
  std::span<const MutableBytes> into = r.pieces;
  const ReceiveCombine* combine = r.combine;
  if (overlaps_open_send(me, r)) {
    staged.size = want;
    staged.data = stage(me, want, rs.staged_at[index]);
    into = std::span<const MutableBytes>(&staged, 1);
    combine = nullptr;
  }
  if (h.bytes <= eager_) {
    const ConstBytes payload{e + header_bytes, h.bytes};
    detail::transfer(&payload, 1, into, combine);
  } else {
    std::uint32_t expected = offered;
    // Claim before reading; failing means the sender left and took its offer back.
    if (!ch.offer.compare_exchange_strong(expected, claimed, std::memory_order_acq_rel, std::memory_order_acquire))
      throw_released(me, r.peer, info);
    receive_shared(ch, r.peer, into, combine, want);
  }
  ch.tail.store(tail + entry_bytes(h), std::memory_order_seq_cst);
  wake(r.peer);
  return true;
}

inline void Team::exchange(std::size_t me, std::span<const SendRequest> sends, std::span<const RecvRequest> recvs,
                           const StepInfo* info)
{
  for (const auto& s : sends)
    if (s.peer >= p_ || s.peer == me)
      throw std::invalid_argument("collectives::threads: rank " + std::to_string(me) + ", in " +
                                  detail::describe_step(info) + ", sends to invalid rank " + std::to_string(s.peer));
  for (const auto& r : recvs)
    if (r.peer >= p_ || r.peer == me)
      throw std::invalid_argument("collectives::threads: rank " + std::to_string(me) + ", in " +
                                  detail::describe_step(info) + ", receives from invalid rank " +
                                  std::to_string(r.peer));
  if (failed_.load(std::memory_order_acquire) || deadlocked_.load(std::memory_order_acquire))
    throw_released(me, p_, info); // (failed_rank_ is read only once failed_ is seen)

  // The state of this exchange lives in the rank's reusable vectors: no allocation once
  // the rank has seen a step this large.
  RankState& rs = ranks_[me];
  const std::size_t ns = sends.size(), nr = recvs.size();
  if (rs.send_state.size() < ns) {
    rs.send_state.resize(ns);
    rs.send_prev.resize(ns);
  }
  if (rs.recv_done.size() < nr) {
    rs.recv_done.resize(nr);
    rs.recv_prev.resize(nr);
    rs.staged_at.resize(nr);
  }
  if (rs.last.size() < p_) rs.last.assign(p_, npos);
  // Messages to (from) one peer go (are taken) in order: note each one's predecessor.
  for (std::size_t i = 0; i < ns; ++i) {
    rs.send_state[i] = 0;
    rs.send_prev[i] = std::exchange(rs.last[sends[i].peer], i);
  }
  for (const auto& s : sends) rs.last[s.peer] = npos;
  for (std::size_t i = 0; i < nr; ++i) {
    rs.recv_done[i] = 0;
    rs.staged_at[i] = npos;
    rs.recv_prev[i] = std::exchange(rs.last[recvs[i].peer], i);
  }
  for (const auto& r : recvs) rs.last[r.peer] = npos;
  rs.sends = sends;
  rs.recvs = recvs;
  rs.info = info;
  rs.stage_used = 0;

  std::size_t open = ns + nr;
  try {
    unsigned idle_polls = 0;
    while (true) {
      bool progress = false;
      for (std::size_t i = 0; i < ns; ++i) {
        std::uint8_t& st = rs.send_state[i];
        if (st == 2) continue;
        if (st == 0) {
          if (rs.send_prev[i] != npos && rs.send_state[rs.send_prev[i]] == 0) continue;
          bool done = false;
          if (!try_post(me, sends[i], info, done)) continue;
          st = done ? 2 : 1;
          open -= done;
          progress = true;
        } else {
          Channel& ch = channel(me, sends[i].peer);
          if (ch.offer.load(std::memory_order_acquire) == copied) {
            ch.offer.store(idle, std::memory_order_relaxed);
            st = 2;
            --open;
            progress = true;
          }
        }
      }
      for (std::size_t i = 0; i < nr; ++i) {
        if (rs.recv_done[i] || (rs.recv_prev[i] != npos && !rs.recv_done[rs.recv_prev[i]])) continue;
        if (try_receive(me, i, info)) {
          rs.recv_done[i] = 1;
          --open;
          progress = true;
        }
      }
      if (open == 0) {
        // Every send has been taken: the staged receives may now combine into place.
        for (std::size_t i = 0; i < nr; ++i)
          if (rs.staged_at[i] != npos) {
            const ConstBytes staged{rs.stage + rs.staged_at[i], total_bytes(recvs[i].pieces)};
            detail::transfer(&staged, 1, recvs[i].pieces, recvs[i].combine);
          }
        return;
      }
      if (progress) {
        idle_polls = 0;
        continue;
      }
      // Nothing else to do: help receivers copy this rank's shared offers. Only a rank
      // that receives nothing in this step helps: in an exchange both ways, each rank is
      // busy with its own receive, and a helper's writes into its peer's memory cost more
      // than they save (ring reduce-scatter, p = 2, 256 KiB: 8.2 -> 9.1-9.6 us).
      for (std::size_t i = 0; i < ns && nr == 0; ++i) {
        if (rs.send_state[i] != 1) continue;
        Channel& ch = channel(me, sends[i].peer);
        if (ch.offer.load(std::memory_order_acquire) != shared || !chunks_left(ch)) continue;
        if (std::exception_ptr e = move_chunks(ch, false)) std::rethrow_exception(e);
        progress = true;
      }
      if (progress) {
        idle_polls = 0;
        continue;
      }
      if (failed_.load(std::memory_order_acquire) || deadlocked_.load(std::memory_order_acquire))
        throw_released(me, p_, info); // (failed_rank_ is read only once failed_ is seen)
      if (++idle_polls < spin_limit_) {
        pause();
        continue;
      }
      if (idle_polls < spin_limit_ + yield_limit_) {
        std::this_thread::yield();
        continue;
      }
      block(me);
      idle_polls = 0;
    }
  } catch (...) {
    withdraw(me);
    throw;
  }
}

/// Whether rank me could go on now (seq_cst loads: see the top of this header).
inline bool Team::can_progress(std::size_t me)
{
  if (failed_.load(std::memory_order_seq_cst) || deadlocked_.load(std::memory_order_seq_cst)) return true;
  RankState& rs = ranks_[me];
  for (std::size_t i = 0; i < rs.sends.size(); ++i) {
    Channel& ch = channel(me, rs.sends[i].peer);
    // A peer that has returned since the last look: block() reports it.
    if (rs.send_state[i] != 2 && ranks_[rs.sends[i].peer].finished.load(std::memory_order_seq_cst)) return true;
    if (rs.send_state[i] == 1 && ch.offer.load(std::memory_order_seq_cst) == copied) return true;
    if (rs.send_state[i] == 1 && rs.recvs.empty() && ch.offer.load(std::memory_order_seq_cst) == shared &&
        chunks_left(ch))
      return true; // it can help
    if (rs.send_state[i] == 0 && (rs.send_prev[i] == npos || rs.send_state[rs.send_prev[i]] != 0) &&
        ch.tail.load(std::memory_order_seq_cst) != ch.tail_seen)
      return true; // room may have been made
    // An unposted offer may also wait for the previous offer, which a retire frees.
  }
  for (std::size_t i = 0; i < rs.recvs.size(); ++i) {
    if (rs.recv_done[i] || (rs.recv_prev[i] != npos && !rs.recv_done[rs.recv_prev[i]])) continue;
    Channel& ch = channel(rs.recvs[i].peer, me);
    if (published_at(ch, ch.tail.load(std::memory_order_relaxed), std::memory_order_seq_cst) != nullptr) return true;
    if (ranks_[rs.recvs[i].peer].finished.load(std::memory_order_seq_cst)) return true;
  }
  return false;
}

/// "waits for a message from rank 1; waits for rank 2 to take its 16000-byte message"
inline std::string Team::waits_text(std::size_t r)
{
  RankState& rs = ranks_[r];
  std::string s;
  auto add = [&](const std::string& what) { s += (s.empty() ? "" : "; ") + what; };
  for (std::size_t i = 0; i < rs.sends.size(); ++i) {
    const std::string bytes = std::to_string(total_bytes(rs.sends[i].pieces));
    const std::string peer = std::to_string(rs.sends[i].peer);
    if (rs.send_state[i] == 1) add("waits for rank " + peer + " to take its " + bytes + "-byte message");
    else if (rs.send_state[i] == 0) add("waits for room to send " + bytes + " bytes to rank " + peer);
  }
  for (std::size_t i = 0; i < rs.recvs.size(); ++i)
    if (!rs.recv_done[i])
      add("waits for a message of " + std::to_string(total_bytes(rs.recvs[i].pieces)) + " bytes from rank " +
          std::to_string(rs.recvs[i].peer));
  return s;
}

/// Sleeps until rung; declares a deadlock when this rank is the last live one to sleep.
inline void Team::block(std::size_t me)
{
  RankState& rs = ranks_[me];
  // A peer that has returned will never answer -- unless it took this rank's offer, or made
  // room in the ring, before it returned: its `copied` (tail) store precedes its `finished`
  // store, so reading finished first and then the channel sees it. Go on in that case.
  for (std::size_t i = 0; i < rs.sends.size(); ++i) {
    if (rs.send_state[i] == 2 || !ranks_[rs.sends[i].peer].finished.load(std::memory_order_acquire)) continue;
    const Channel& ch = channel(me, rs.sends[i].peer);
    if (rs.send_state[i] == 1 && ch.offer.load(std::memory_order_acquire) == copied) return;
    if (rs.send_state[i] == 0 && ch.tail.load(std::memory_order_acquire) != ch.tail_seen) return;
    throw_released(me, rs.sends[i].peer, rs.info);
  }
  for (std::size_t i = 0; i < rs.recvs.size(); ++i) {
    const std::size_t q = rs.recvs[i].peer;
    if (!rs.recv_done[i] && ranks_[q].finished.load(std::memory_order_acquire) &&
        published_at(channel(q, me), channel(q, me).tail.load(std::memory_order_relaxed), std::memory_order_acquire) ==
            nullptr)
      throw_released(me, q, rs.info);
  }
  std::unique_lock lock(sleep_mutex_);
  const std::uint32_t bell = rs.bell.load(std::memory_order_acquire);
  rs.sleeping.store(true, std::memory_order_seq_cst);
  ++asleep_;
  auto unregister = [&] {
    if (rs.sleeping.load(std::memory_order_relaxed)) {
      rs.sleeping.store(false, std::memory_order_relaxed);
      --asleep_;
    }
  };
  if (can_progress(me)) {
    unregister();
    return;
  }
  if (asleep_ == live_) {
    // Every live rank sleeps and none was rung since it last looked: nothing can move.
    std::string what = "collectives::threads: deadlock: every rank that has not returned waits and no message can move:";
    const char* sep = " ";
    for (std::size_t r = 0; r < p_; ++r)
      if (ranks_[r].sleeping.load(std::memory_order_relaxed)) {
        what += sep + ("rank " + std::to_string(r)) + ", in " + detail::describe_step(ranks_[r].info) + ", " +
                waits_text(r);
        sep = "; ";
      }
    deadlock_text_ = what + ". " + detail::mismatch_causes;
    deadlocked_.store(true, std::memory_order_seq_cst);
    unregister();
    lock.unlock();
    wake_all();
    throw Deadlock(deadlock_text_);
  }
  lock.unlock();
  rs.bell.wait(bell, std::memory_order_acquire);
  if (rs.sleeping.load(std::memory_order_acquire)) { // woken by no one (spurious)
    lock.lock();
    unregister();
  }
}

/// Whether a shared offer has chunks no one has taken.
inline bool Team::chunks_left(const Channel& ch)
{
  const std::uint64_t t = ch.taken.load(std::memory_order_relaxed);
  return (t & 0xFFFFFFFFu) + (t >> 32) < ch.chunks;
}

/// Takes chunks of a shared offer, from the front (the receiver) or the back (the sender),
/// and moves them until none is left. After a chunk throws, the rest are taken without
/// being moved, so that every chunk is still counted in `moved`; returns the exception.
inline std::exception_ptr Team::move_chunks(Channel& ch, bool front) noexcept
{
  std::exception_ptr error;
  while (true) {
    const std::uint64_t was = ch.taken.fetch_add(front ? 1 : std::uint64_t{1} << 32, std::memory_order_relaxed);
    const std::size_t from_front = was & 0xFFFFFFFFu, from_back = was >> 32;
    if (from_front + from_back >= ch.chunks) return error;
    const std::size_t k = front ? from_front : ch.chunks - 1 - from_back;
    if (error == nullptr && !ch.failed.load(std::memory_order_relaxed)) {
      try {
        detail::transfer(ch.pieces, ch.count, ch.into, ch.combine, k * ch.chunk,
                         std::min(ch.bytes, (k + 1) * ch.chunk));
      } catch (...) {
        error = std::current_exception();
        if (!ch.failed.exchange(true, std::memory_order_relaxed)) ch.error = error;
      }
    }
    ch.moved.fetch_add(1, std::memory_order_release);
  }
}

/// The receiver's side of a claimed single-copy offer: moves it alone, or shares it with
/// the sender (see the top of this header) and waits for the sender's chunks. Leaves the
/// offer copied, also when a chunk threw (then rethrown here), so the sender can go on.
inline void Team::receive_shared(Channel& ch, std::size_t peer, std::span<const MutableBytes> into,
                                 const ReceiveCombine* combine, std::size_t bytes)
{
  // Chunks of whole elements; a combine that may not run on two threads is not shared.
  std::size_t chunk = share_chunk_;
  if (combine != nullptr && chunk != std::size_t(-1))
    chunk = combine->grain == 0 ? std::size_t(-1) : std::max(chunk / combine->grain, std::size_t{1}) * combine->grain;
  const std::size_t chunks = chunk > bytes / 2 ? 1 : (bytes + chunk - 1) / chunk;
  // A sender asleep would not help before the receiver is done.
  if (chunks < 2 || chunks > 0xFFFFFFFFu || ranks_[peer].sleeping.load(std::memory_order_relaxed)) {
    try {
      detail::transfer(ch.pieces, ch.count, into, combine);
    } catch (...) {
      ch.offer.store(copied, std::memory_order_seq_cst);
      wake(peer);
      throw;
    }
    ch.offer.store(copied, std::memory_order_seq_cst);
    return;
  }
  ch.into = into;
  ch.combine = combine;
  ch.bytes = bytes;
  ch.chunk = chunk;
  ch.chunks = chunks;
  ch.error = nullptr;
  ch.failed.store(false, std::memory_order_relaxed);
  ch.moved.store(0, std::memory_order_relaxed);
  ch.taken.store(0, std::memory_order_relaxed);
  ch.offer.store(shared, std::memory_order_release);
  move_chunks(ch, true); // (a failure is in ch.failed and ch.error)
  // The sender may still be moving a chunk, into this rank's memory: wait for it.
  for (unsigned polls = 0; ch.moved.load(std::memory_order_acquire) != chunks; ++polls)
    if (polls < spin_limit_) pause();
    else std::this_thread::yield();
  std::exception_ptr error = ch.failed.load(std::memory_order_relaxed) ? ch.error : nullptr;
  ch.error = nullptr;
  ch.offer.store(copied, std::memory_order_seq_cst);
  if (error != nullptr) {
    wake(peer);
    std::rethrow_exception(error);
  }
}

/// Called by a sender leaving exchange() by an exception: every open offer is either taken
/// back, so no receiver reads it after the sender's buffers are gone, or, if a receiver has
/// claimed it, waited for until copied.
inline void Team::withdraw(std::size_t me) noexcept
{
  RankState& rs = ranks_[me];
  for (std::size_t i = 0; i < rs.sends.size(); ++i) {
    if (rs.send_state[i] != 1) continue;
    Channel& ch = channel(me, rs.sends[i].peer);
    while (true) {
      std::uint32_t expected = offered;
      if (ch.offer.compare_exchange_strong(expected, withdrawn, std::memory_order_acq_rel)) break;
      if (expected == copied) break;
      // Claimed: the receiver is copying (a bounded memcpy). Yield: it may need a core.
      std::this_thread::yield();
    }
    rs.send_state[i] = 2;
  }
  rs.sends = {};
  rs.recvs = {};
}

/// After a run without failure: a message still in a channel was never received.
inline void Team::check_all_received()
{
  for (std::size_t from = 0; from < p_; ++from)
    for (std::size_t to = 0; to < p_; ++to) {
      Channel& ch = channel(from, to);
      const std::uint64_t tail = ch.tail.load(std::memory_order_acquire);
      if (ch.head == tail) continue; // (every rank has joined)
      const std::byte* e = entry_at(ch, tail);
      if (const Header w = header_at(e); (w.bytes & wrap_bit) != 0) e = entry_at(ch, tail + entry_bytes(w));
      const Header h = header_at(e);
      const StepInfo theirs{h.collective, h.algorithm, h.call, h.step, h.steps};
      throw CallMismatch("collectives::threads: rank " + std::to_string(to) + " never received the " +
                         std::to_string(h.bytes) + "-byte message rank " + std::to_string(from) + " sent it in " +
                         detail::describe_step(&theirs) + "; results of that call may be wrong. " +
                         detail::mismatch_causes);
    }
}

} // namespace threads
} // namespace collectives
