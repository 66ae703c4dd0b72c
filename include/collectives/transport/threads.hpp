#pragma once
// The threads transport: a team of p threads in one process, one endpoint each.
//
// Channels. Each ordered pair of ranks (a, b) has a channel: a ring of bytes that a writes
// and b reads (single producer, single consumer), allocated on its first message and kept
// for the team's life. Every message is an entry in the ring: a 64-byte header line (size,
// call, step, collective and algorithm names) and, for small messages, the payload. The
// header's first word publishes the entry: the receiver polls it where its next entry will
// start (no shared head index to read first), so a message costs the receiver one cache
// line more than its payload, and a message of 1 to 32 bytes, which travels in the header
// line in place of the algorithm's name and the rest of the sender's step (only error
// messages read them), one line in all.
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
// entry, a finished offer) is followed by a fence and a load of the sleeper's flag; a
// sleeper sets its flag, fences, then takes its last look. So either the waker sees the
// flag and rings, or the sleeper sees the change. The fences are asymmetric where the
// system allows (Linux's membarrier, Options::membarrier): the waker's, on every message,
// only keeps the compiler from moving the load above the store, and the sleeper's, on the
// rare way to sleep, makes every thread of the process fence. Otherwise both are full
// fences (seq_cst). A full fence on every message was ~10 % of an 8-128 B broadcast, reduce
// or scan at p = 2 (mpi_collectives, threads column).

#include <collectives/cost/model.hpp>
#include <collectives/detail/config.hpp>
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
#include <type_traits>
#include <utility>
#include <vector>

namespace collectives {

namespace detail {

/// Moves bytes [begin, end) of a gather list into the same bytes of a scatter list of the
/// same total size: copies, or combines with `combine` segment by segment (segments end
/// where a piece of either side ends, so at element boundaries when both sides' pieces,
/// and begin and end, are cut there).
COLLECTIVES_DECL void transfer(const ConstBytes* from, std::size_t nfrom, std::span<const MutableBytes> to,
                              const ReceiveCombine* combine, std::size_t begin, std::size_t end);

/// The whole of a gather list into a scatter list of the same total size.
COLLECTIVES_DECL void transfer(const ConstBytes* from, std::size_t nfrom, std::span<const MutableBytes> to,
                              const ReceiveCombine* combine);

} // namespace detail

namespace threads {

class Team;

/// Tuning of a Team. The defaults were measured on a 2-core x86 machine (see
/// benchmarks/threads_transport.cpp).
struct Options {
  /// Messages of at most this many bytes go eager (copied into the channel); larger ones
  /// are copied once, by the receiver, from the sender's memory. 0: default, 512 B when the
  /// team has a core per rank, 4 KiB (Open MPI's shared-memory eager limit) with more ranks
  /// than cores. When both ranks run, the receiver reading the sender's memory once beats
  /// the two copies of an eager message from 1 KiB: at 4 KiB every collective took about
  /// half the time with 512 (mpi_collectives p = 2, threads column: 0.20-0.36x Open MPI
  /// against 0.45-0.72x with 4 KiB), and at 8 KiB single copy was 2-3x faster. With more
  /// ranks than cores, eager spares a sender whose partner waits for a CPU the whole wait.
  /// 64 KiB was 2-4x slower at 16-64 KiB.
  std::size_t eager_bytes = 0;
  /// Bytes of each channel's ring (rounded up to a power of two, so that a position's
  /// place in the ring is a mask, not a division; at least 2 (eager_bytes rounded up to 64,
  /// + 64) + 64, so an eager message always fits an empty ring). 0: default, that least size rounded up:
  /// with the default eager limits, 2 KiB per channel with a core per rank and 16 KiB with
  /// more ranks than cores, allocated on a channel's first message (a team of p ranks holds
  /// at most p (p - 1) of them: 16 KiB each is about 0.9 MiB at p = 8, 15.5 MiB at p = 32).
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
  /// Whether a rank about to sleep may make every thread of the process fence (Linux's
  /// membarrier, where the kernel offers it), so that the ranks that would wake it need no
  /// fence of their own on every message (see the top of this header). false: every
  /// waker fences (std::atomic_thread_fence, seq_cst), as on systems without membarrier.
  bool membarrier = true;
  /// Whether run() gives each rank a CPU of its own when p >= 2 and the calling thread's
  /// affinity mask has at least p CPUs (Linux): rank 0 stays on the CPU the caller runs on,
  /// the others take a core each before any core's second hardware thread (SMT), in the
  /// order of the mask, and each rank's thread is pinned there (the caller's mask is
  /// restored when run() returns; the other ranks' threads, which the team keeps between
  /// runs, stay pinned, and every run puts them where it places them). A thread starts on
  /// the CPU of the thread that creates it, and a scheduler may leave two ranks on one CPU
  /// while another idles, where every hand-off between them waits for a context switch: an
  /// all-reduce of 8 KiB at p = 2 then took about 70 us a call instead of 0.7, for the
  /// first 20-60 ms of every run() on a 2-vCPU VM, and a rank that slept and was woken
  /// could be moved back onto its waker's CPU. Placing costs the first run about 35 us
  /// (moving the new threads), a later run about 5 us (pinning the caller's thread and
  /// giving it its mask back: an empty run at p = 2 took 9 us pinned, 2-6 not). false: the
  /// ranks run wherever the system puts them, on the caller's mask.
  /// Never with more ranks than the mask's CPUs: pinning several ranks to a CPU only keeps
  /// the scheduler from balancing them. (Inside run() a rank's thread sees its one CPU: a
  /// Team created there counts one core.)
  bool pin = true;
};

/// One rank's end of a Team; satisfies collectives::endpoint, takes the step's identity,
/// numbers collective calls and combines on receipt.
class Endpoint {
public:
  /// This endpoint honours RecvRequest::combine.
  static constexpr bool combines_on_receive = true;
  /// ... also into memory its open sends read: such a message is copied aside until the
  /// send has been taken (Team::overlaps_open_send), an eager send's at once.
  static constexpr bool combines_into_sends = true;

  std::size_t rank() const noexcept { return rank_; }
  std::size_t size() const noexcept;
  /// Posts every send and receive of one step and returns when all have completed (an
  /// eager send completes when copied). Throws std::invalid_argument for a bad peer,
  /// std::length_error for a size mismatch, CallMismatch for a message of another call or
  /// step, Deadlock when no rank can move, RankFailed when a peer failed or returned.
  void exchange(std::span<const SendRequest> sends, std::span<const RecvRequest> recvs);
  /// The same, for the collective call and step `info` (checked against the peers').
  void exchange(std::span<const SendRequest> sends, std::span<const RecvRequest> recvs, const StepInfo& info);
  /// The same, running `work` once the sends are posted, when this rank would first wait
  /// (or before returning, if it never does): before helping a receiver take its offer.
  void exchange(std::span<const SendRequest> sends, std::span<const RecvRequest> recvs, const StepInfo& info,
                const StepWork& work);
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

/// p threads, each running the same function with its own Endpoint: rank 0 on the thread
/// calling run(), ranks 1 to p - 1 on threads the team starts at its first run() and keeps,
/// asleep between runs, until it is destroyed (a run costs waking them, not starting them;
/// a rank's thread_local state lasts from run to run; a child process made by fork() has
/// none of them: it needs teams of its own).
/// collective: run() returns when every rank's function has returned. "More ranks than
/// cores" (the defaults below) counts the CPUs the constructing thread may run on (its
/// affinity mask on Linux); unpinned ranks run on the mask of the thread calling run().
class Team {
public:
  /// A team of p >= 1 ranks.
  explicit Team(std::size_t p, Options options = {});
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;
  ~Team();

  std::size_t size() const noexcept { return p_; }
  /// The cost model of this team's exchanges, for choosing algorithms: one node's shared
  /// memory (a message's start-up is a cache-line handshake, a word moves at memory
  /// speed; a rank's receive and its peer's receive of what it sends share one memory
  /// system, so a step's words in both directions add up: half_duplex; any rank reaches
  /// any other directly: crossbar), and, with more ranks than cores, ranks time-sharing
  /// the cores (lanes) and a wait per step that grows with the ranks per core (t_sync):
  /// every step then waits for its partners to be scheduled, so algorithms with fewer
  /// steps win (measured with benchmarks/bench_collectives and mpi_collectives). With a
  /// core per rank, a receiver copies a word its sender wrote during the collective from
  /// the other core's cache, at twice a word's time (t_fresh = t_w; bench_collectives,
  /// p = 2: the ring all-reduce, whose all-gather half forwards what was just combined,
  /// 1.25-2.6x recursive doubling's time, which reads only inputs, from 32 KiB to 1 MiB;
  /// at 1 MiB on a later VM 0.82x in some runs and 2.9x in others minutes apart,
  /// while recursive doubling's stayed put: no size limit on the term, the robust pick);
  /// with more ranks than cores the writer has often left the core, and the picks measured
  /// there were made without it.
  /// Depends only on p and the machine, so every rank computes the same.
  CostModel cost_model() const noexcept
  {
    const double per_core = static_cast<double>(p_) / static_cast<double>(cores_);
    constexpr double t_w = 0.5e-9;
    return CostModel{.t_s = 0.5e-6, .t_w = t_w, .t_h = 0, .t_r = 0.25e-9, .half_duplex = true,
                     .lanes = oversubscribed_ ? std::size_t{cores_} : 0,
                     .t_sync = oversubscribed_ ? 1.5e-6 * per_core - 0.5e-6 : 0, .crossbar = true,
                     .t_fresh = oversubscribed_ ? 0 : t_w};
  }
  /// Messages of at most this many bytes go eager.
  std::size_t eager_bytes() const noexcept { return eager_; }
  /// Whether a rank about to sleep fences with membarrier, sparing the wakers' fences
  /// (Options::membarrier, where the system offers it; see the top of this header).
  bool uses_membarrier() const noexcept { return asymmetric_; }

  /// Bytes the team holds for messages between runs: its channels' rings (each allocated
  /// at the channel's first message, Options::channel_bytes) and its ranks' staging for
  /// combining receives. Throws std::logic_error while the team is running.
  std::size_t bytes_held() const;
  /// Gives that memory back and keeps the threads: a later run allocates again the rings
  /// and staging it uses (a team of 512 ranks held 4.3 GB after one pairwise all-to-all). For a
  /// large team kept for its threads through phases that use few of its channels. Throws
  /// std::logic_error, freeing nothing, while the team is running.
  void release_memory();

  /// Runs f(endpoint) on p threads (rank 0 on the calling thread) and waits for all, each
  /// pinned to a CPU of its own when p >= 2 and the caller may use p CPUs (Options::pin;
  /// the caller's mask is restored before run() returns). If any rank throws, the others
  /// are released (a rank waiting for a failed rank throws RankFailed naming it) and the
  /// first exception is rethrown, preferring one that is not a RankFailed (the original: a
  /// rank may be released before the rank it waits for has failed the team). Every rank's
  /// f runs, even when another rank has failed before it starts, unless the threads cannot
  /// be started. Throws std::logic_error, running nothing, when the team is already running
  /// (run() from one of its own ranks, or from two threads at once).
  /// A message sent but never received makes run() throw CallMismatch naming it.
  template <class F>
  void run(F&& f)
  {
    // Only this thunk is per F: the threads, their vector and the failure handling are
    // compiled once (run_each), not for every lambda a program runs.
    run_each([](void* fn, Endpoint& ep) { (*static_cast<std::remove_reference_t<F>*>(fn))(ep); },
             const_cast<void*>(static_cast<const volatile void*>(std::addressof(f))));
  }

private:
  friend class Endpoint;

  /// run(f) with f type-erased: fn(f, endpoint) on every rank.
  void run_each(void (*fn)(void*, Endpoint&), void* f);
  /// Rank r's part of a run: the run's function, then finish or fail.
  void run_rank(std::size_t r);
  /// Rank r's thread (r >= 1): sleeps until each run, takes its place, runs rank r. `seen`:
  /// the run counter when the thread was started.
  void serve(std::size_t r, std::uint32_t seen);
  /// Returns once `word` may no longer hold `old`: polls as a waiting rank does (spin,
  /// yields), then sleeps on it (its changer notifies).
  void await_change(const std::atomic<std::uint32_t>& word, std::uint32_t old) const;
  /// The threads of ranks 1 to p - 1 and what a run hands them (transport/impl/threads.ipp).
  struct Workers;

  static constexpr std::size_t header_bytes = 64;
  static constexpr std::size_t round64(std::size_t n) { return (n + 63) / 64 * 64; }

  /// The head of every ring entry, after its publication word (see publish()): what the
  /// receiver checks on every message. Whether the entry is eager, an offer or a wrap
  /// follows from `bytes`. The header line's last 32 bytes (at `slot_at`) hold the entry's
  /// Names, which only an error message or a name compared by its characters reads, or,
  /// for a message of 1 to `inline_bytes` bytes, the payload itself: such a message costs
  /// its receiver one cache line (the Names move to the entry's second line, where the
  /// payload would have been).
  struct Header {
    std::uint64_t bytes = 0;          // the message's size; a wrap: wrap_bit | the bytes skipped
    std::uint32_t call = 0;           // the sender's call number mod 2^32 (0: not compared)
    std::uint32_t step = 0;
    const char* collective = nullptr; // the collective's name (its size: Names)
  };
  /// The rest of the sender's StepInfo.
  struct Names {
    std::string_view algorithm{};
    std::uint64_t call = 0; // the whole call number
    std::uint32_t collective_size = 0;
    std::uint32_t steps = 0;
  };
  static constexpr std::size_t seq_bytes = sizeof(std::uint64_t);
  static constexpr std::size_t slot_at = seq_bytes + sizeof(Header);
  static constexpr std::size_t inline_bytes = header_bytes - slot_at;
  static_assert(inline_bytes == sizeof(Names) && slot_at % 16 == 0);
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
  /// at + 1 (a release store; wake() fences: see the top of this header). The receiver
  /// waits for exactly that value at its tail, so the word must never hold it before: every
  /// publication first zeroes the word where the next entry will start (payload of an
  /// earlier lap may lie there, and a payload could hold any value), and a fresh ring is
  /// zeroed.
  static void publish(std::byte* e, std::uint64_t at) { seq_word(e).store(at + 1, std::memory_order_release); }
  /// The entry at the receiver's position `tail` when it has been published, else null.
  const std::byte* published_at(const Channel& ch, std::uint64_t tail, std::memory_order order) const
  {
    const std::byte* ring = ch.ring.load(std::memory_order_acquire);
    if (ring == nullptr) return nullptr;
    const std::byte* e = ring + (tail & ring_mask_);
    return seq_word(e).load(order) == tail + 1 ? e : nullptr;
  }
  /// Bytes of the entry with this header in the ring (an inline message's entry has two
  /// lines too: the second holds the algorithm's name).
  std::uint64_t entry_bytes(const Header& h) const
  {
    if ((h.bytes & wrap_bit) != 0) return h.bytes & ~wrap_bit;
    return header_bytes + (h.bytes <= eager_ ? round64(h.bytes) : 0);
  }
  /// Whether a message of `bytes` travels in its header line (eager and 1..inline_bytes).
  bool is_inline(std::uint64_t bytes) const { return bytes != 0 && bytes <= inline_bytes && bytes <= eager_; }
  /// Where, from an entry's start, its payload (eager) and its algorithm's name are: they
  /// swap places for an inline message.
  std::size_t payload_at(std::uint64_t bytes) const { return is_inline(bytes) ? slot_at : header_bytes; }
  std::size_t name_at(std::uint64_t bytes) const { return is_inline(bytes) ? header_bytes : slot_at; }
  Names names_at(const std::byte* e, const Header& h) const
  {
    Names n;
    std::memcpy(&n, e + name_at(h.bytes), sizeof n);
    return n;
  }
  /// The sender's StepInfo, from its entry (the names refer to the sender's strings).
  StepInfo step_info_at(const std::byte* e, const Header& h) const
  {
    const Names n = names_at(e, h);
    return {{h.collective, n.collective_size}, n.algorithm, n.call, h.step, n.steps};
  }

  void reset();

  // --- sleeping and waking -------------------------------------------------------------

  /// Rank q may be able to go on: wake it if it sleeps. Called after a store of what q
  /// waits for; fences first (waker_fence; see the top of this header).
  void wake(std::size_t q);
  /// The waker's fence between its store and its look at a sleeper's flag, and the
  /// sleeper's between setting its flag and its last look (asymmetric_: a compiler fence
  /// and membarrier; else two full fences).
  void waker_fence() const noexcept;
  void sleeper_fence() const noexcept;
  /// Whether this process can use membarrier's private expedited fences (registers once).
  static bool membarrier_registered() noexcept;
  void wake_all();

  void finish(std::size_t r);

  /// Rank r leaves with exception e; `culprit` is the rank to blame (r itself, or the rank
  /// a RankFailed from r names). `original`: e is not a RankFailed (see poison).
  void fail(std::size_t r, std::size_t culprit, std::exception_ptr e, bool original);

  /// Fails the team (the first failure wins) and wakes every rank. What run() rethrows is
  /// the first original exception, if any: a RankFailed (not original) can come first when
  /// the rank it names has left the step but not yet failed the team, e.g. a sender whose
  /// operator threw and took its offer back.
  void poison(std::size_t culprit, std::exception_ptr e, bool original = true);

  /// Throws e after failing the team with it, so the peers are released at once even if
  /// the caller catches e and carries on.
  template <class E>
  [[noreturn]] void raise(std::size_t me, E e)
  {
    std::exception_ptr ptr = std::make_exception_ptr(std::move(e));
    poison(me, ptr, !std::is_base_of_v<RankFailed, E>);
    std::rethrow_exception(ptr);
  }

  [[noreturn]] COLLECTIVES_COLD void throw_released(std::size_t me, std::size_t peer, const StepInfo* info);

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
                const StepInfo* info, const StepWork* work = nullptr);
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
  COLLECTIVES_COLD std::string waits_text(std::size_t r);
  /// Whether a message's header shows the receiver's own call and step: either side has
  /// no call to compare (no StepInfo, or a sender's call number that is 0 mod 2^32), or
  /// both have the same call number mod 2^32, step and collective, whose names are usually
  /// the same string literal (compared by address; check_header compares other addresses'
  /// names by their characters). A message of a call 2^32 calls away would pass, but a
  /// stale message is found by the next receive on its channel.
  static bool same_step(const Header& h, const StepInfo* info)
  {
    return info == nullptr || info->call == 0 || h.call == 0 ||
           (h.call == static_cast<std::uint32_t>(info->call) && h.step == info->step &&
            h.collective == info->collective.data());
  }
  /// A message that is not same_step(): returns if its names' characters match after all,
  /// else throws CallMismatch naming both steps.
  COLLECTIVES_COLD void check_header(std::size_t me, const RecvRequest& r, const std::byte* e, const Header& h,
                                     const StepInfo* info);
  void check_all_received();

  std::size_t p_;
  std::size_t eager_ = 4096;
  std::size_t ring_bytes_ = 0; // a power of two
  std::size_t ring_mask_ = 0;
  bool oversubscribed_ = false;
  bool asymmetric_ = false; // the sleeper's fence is membarrier (see the top of this header)
  unsigned cores_ = 1;
  bool pin_ = true; // Options::pin
  unsigned spin_limit_ = 1024; // polls (with pause) before yielding
  unsigned yield_limit_ = 16;  // polls (with yield) before blocking on the doorbell
  std::size_t share_chunk_ = std::size_t(-1); // bytes (Options::share_chunk)
  std::unique_ptr<Channel[]> channels_;
  std::unique_ptr<RankState[]> ranks_;
  std::unique_ptr<Workers> workers_;
  std::atomic<bool> running_{false};

  std::mutex sleep_mutex_; // guards asleep_, live_, deadlock_text_ and the sleeping flags
  std::size_t asleep_ = 0;
  std::size_t live_ = 0;
  std::string deadlock_text_;
  std::atomic<bool> deadlocked_{false};

  std::atomic<bool> failed_{false};
  std::mutex failure_mutex_;
  std::size_t failed_rank_ = 0; // written before failed_ is set (seq_cst), read after it
  std::exception_ptr failure_;
  bool failure_original_ = false; // failure_ is not a RankFailed (under failure_mutex_)
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

inline void Endpoint::exchange(std::span<const SendRequest> sends, std::span<const RecvRequest> recvs,
                               const StepInfo& info, const StepWork& work)
{
  team_->exchange(rank_, sends, recvs, &info, &work);
}


} // namespace threads
} // namespace collectives

#if !COLLECTIVES_DETAIL_CORE_APART
#include <collectives/transport/impl/threads.ipp>
#endif
