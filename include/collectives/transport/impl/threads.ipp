#pragma once
// The threads transport's non-template code (transport/threads.hpp declares it): included
// by that header, or compiled once with COLLECTIVES_SEPARATE_COMPILATION
// (collectives/separate_compilation.hpp).

#include <collectives/detail/cpus.hpp>
#include <collectives/transport/threads.hpp>

#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif
#if defined(__linux__) && defined(SYS_membarrier)
#define COLLECTIVES_DETAIL_MEMBARRIER 1
#else
#define COLLECTIVES_DETAIL_MEMBARRIER 0
#endif

namespace collectives {

namespace detail {

// membarrier's commands (linux/membarrier.h, Linux 4.14), stated here so that older kernel
// headers, which lack the expedited ones, still build.
inline constexpr int membarrier_query = 0;
inline constexpr int membarrier_private_expedited = 1 << 3;
inline constexpr int membarrier_register_private_expedited = 1 << 4;

COLLECTIVES_DECL void transfer(const ConstBytes* from, std::size_t nfrom, std::span<const MutableBytes> to,
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

COLLECTIVES_DECL void transfer(const ConstBytes* from, std::size_t nfrom, std::span<const MutableBytes> to,
                              const ReceiveCombine* combine)
{
  transfer(from, nfrom, to, combine, 0, total_bytes(std::span<const ConstBytes>(from, nfrom)));
}

/// Holds a team's running flag for the length of a run() or a release_memory(); throws
/// std::logic_error (`what`) when another holds it.
struct TeamClaim {
  std::atomic<bool>& flag;
  TeamClaim(std::atomic<bool>& f, const char* what) : flag(f)
  {
    if (flag.exchange(true, std::memory_order_acquire)) throw std::logic_error(what);
  }
  TeamClaim(const TeamClaim&) = delete;
  TeamClaim& operator=(const TeamClaim&) = delete;
  ~TeamClaim() { flag.store(false, std::memory_order_release); }
};
} // namespace detail

namespace threads {

struct Team::Workers {
  std::vector<std::thread> threads; // rank r's is threads[r - 1]
  // A run's hand-off: written by run() before it bumps `job`, read by the workers after
  // they see the bump, and left alone until `done` counts every worker through.
  std::atomic<std::uint32_t> job{0};  // bumped once a run (and once to stop)
  std::atomic<std::uint32_t> done{0}; // workers through the current run
  bool stopping = false;
  void (*fn)(void*, Endpoint&) = nullptr;
  void* f = nullptr;
  std::vector<std::size_t> cpus; // a CPU for each rank, or empty: not pinned
  detail::CpuMask mask{};        // the caller's: where an unpinned rank runs
};

COLLECTIVES_DECL Team::Team(std::size_t p, Options options) : p_(p)
{
  if (p == 0) throw std::invalid_argument("collectives::threads::Team: the team needs at least one rank");
  // With more ranks than cores, a spinning rank holds the core the rank it waits for
  // needs: poll only briefly before blocking. The cores: those the creating thread may run
  // on (its affinity mask: taskset, a cpuset, a batch job's share), which the ranks'
  // threads inherit, not every core of the machine.
  const std::size_t cores = detail::cpu_count(detail::allowed_cpus());
  cores_ = static_cast<unsigned>(cores);
  oversubscribed_ = p > cores;
  eager_ = options.eager_bytes != 0 ? options.eager_bytes : oversubscribed_ ? 4096 : 512;
  // An eager message, a wrap before it and the next entry's word fit an empty ring.
  const std::size_t least = 2 * (round64(eager_) + header_bytes) + 64;
  ring_bytes_ = std::bit_ceil(std::max(options.channel_bytes, least));
  ring_mask_ = ring_bytes_ - 1;
  asymmetric_ = options.membarrier && membarrier_registered();
  pin_ = options.pin;
  // Spinning only pays when the partner is running on another core: a short spin, a few
  // yields (which hand the core to a runnable partner), then block. Measured with
  // benchmarks/threads_transport.cpp on 2 shared cores: long spins (4096 polls and more)
  // cost a scheduler time slice per step whenever other processes load the machine.
  spin_limit_ = options.spin != 0 ? options.spin : oversubscribed_ ? 32 : 1024;
  yield_limit_ = options.yields != 0 ? options.yields : oversubscribed_ ? 4 : 16;
  share_chunk_ = options.share_chunk != 0 ? options.share_chunk : oversubscribed_ ? std::size_t(-1) : 64 * 1024;
  channels_ = std::make_unique<Channel[]>(p_ * p_);
  ranks_ = std::make_unique<RankState[]>(p_);
  workers_ = std::make_unique<Workers>();
  reset();
}

COLLECTIVES_DECL Team::~Team()
{
  Workers& w = *workers_;
  if (!w.threads.empty()) {
    w.stopping = true;
    w.job.fetch_add(1, std::memory_order_release);
    w.job.notify_all();
    for (std::thread& t : w.threads) t.join();
  }
  for (std::size_t i = 0; i < p_ * p_; ++i)
    if (std::byte* ring = channels_[i].ring.load(); ring != nullptr) ::operator delete(ring, std::align_val_t{64});
}

COLLECTIVES_DECL void Team::reset()
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
  failure_original_ = false;
}

COLLECTIVES_DECL std::size_t Team::bytes_held() const
{
  if (running_.load(std::memory_order_acquire))
    throw std::logic_error("collectives::threads::Team::bytes_held: the team is running");
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < p_ * p_; ++i)
    if (channels_[i].ring.load(std::memory_order_relaxed) != nullptr) bytes += ring_bytes_;
  for (std::size_t r = 0; r < p_; ++r) bytes += ranks_[r].stage_capacity;
  return bytes;
}

COLLECTIVES_DECL void Team::release_memory()
{
  const detail::TeamClaim claim(running_, "collectives::threads::Team::release_memory: the team is running");
  // Positions go on (see Channel): a fresh ring, zeroed, holds no word a later position
  // could take for its entry's. A message a failed run left behind goes with its ring; the
  // next run's reset() moves every tail past it, as it does after any run.
  for (std::size_t i = 0; i < p_ * p_; ++i)
    if (std::byte* ring = channels_[i].ring.exchange(nullptr, std::memory_order_relaxed); ring != nullptr)
      ::operator delete(ring, std::align_val_t{64});
  for (std::size_t r = 0; r < p_; ++r) {
    RankState& rs = ranks_[r];
    if (rs.stage != nullptr) ::operator delete(rs.stage, std::align_val_t{64});
    rs.stage = nullptr;
    rs.stage_capacity = 0;
    rs.stage_used = 0;
  }
}

COLLECTIVES_DECL void Team::run_each(void (*fn)(void*, Endpoint&), void* f)
{
  const detail::TeamClaim running(running_, "collectives::threads::Team::run: the team is already running (run() "
                                            "called from one of its own ranks, or from two threads at once)");
  reset();
  Workers& w = *workers_;
  // A CPU for each rank (Options::pin), from the mask of the thread calling run(); none
  // with more ranks than its CPUs, nor for a rank alone (no partner to be kept apart from).
  w.mask = detail::allowed_cpus();
  if (pin_ && p_ > 1) w.cpus = detail::rank_cpus(p_, w.mask);
  else w.cpus.clear();
  w.fn = fn;
  w.f = f;
  w.done.store(0, std::memory_order_relaxed);
  // The first run starts the workers (a run after one that could not start them all
  // tries again); a thread started now waits for the bump below.
  bool started = true;
  try {
    w.threads.reserve(p_ - 1);
    const std::uint32_t before = w.job.load(std::memory_order_relaxed);
    while (w.threads.size() < p_ - 1)
      w.threads.emplace_back([this, r = w.threads.size() + 1, before] { serve(r, before); });
  } catch (...) {
    started = false;
    fail(0, 0, std::current_exception(), true);
  }
  w.job.fetch_add(1, std::memory_order_release);
  w.job.notify_all();
  // Rank 0 runs even when a worker could not be started: it is released at its first
  // wait like every other rank, instead of silently never running.
  if (started) run_rank(0);
  else finish(0);
  const auto workers = static_cast<std::uint32_t>(w.threads.size());
  for (std::uint32_t d; (d = w.done.load(std::memory_order_acquire)) != workers;) await_change(w.done, d);
  if (failure_) std::rethrow_exception(failure_);
  check_all_received();
}

COLLECTIVES_DECL void Team::run_rank(std::size_t r)
{
  // Rank 0 runs on the caller's thread, whose mask (read by run_each) comes back when the
  // rank is done.
  const detail::PinnedThread placed(r == 0 && !workers_->cpus.empty() ? workers_->cpus[0] : SIZE_MAX,
                                    workers_->mask);
  Endpoint ep(*this, r);
  try {
    workers_->fn(workers_->f, ep);
    finish(r);
  } catch (const RankFailed& e) {
    // Released by another rank's failure: pass the name of the rank at the root on, so
    // every rank released later names the same one.
    fail(r, e.failed_rank(), std::current_exception(), false);
  } catch (...) {
    fail(r, r, std::current_exception(), true);
  }
}

COLLECTIVES_DECL void Team::await_change(const std::atomic<std::uint32_t>& word, std::uint32_t old) const
{
  // As a rank waits for a message: a run that follows soon (a loop of runs) or a worker
  // about to finish is seen without a sleep and a wake-up, which on a VM's idle CPU took
  // 30-40 us.
  for (unsigned polls = 0; polls < spin_limit_ + yield_limit_; ++polls) {
    if (word.load(std::memory_order_acquire) != old) return;
    if (polls < spin_limit_) pause();
    else std::this_thread::yield();
  }
  word.wait(old, std::memory_order_acquire);
}

COLLECTIVES_DECL void Team::serve(std::size_t r, std::uint32_t seen)
{
  Workers& w = *workers_;
  for (;;) {
    std::uint32_t now;
    while ((now = w.job.load(std::memory_order_acquire)) == seen) await_change(w.job, seen);
    seen = now;
    if (w.stopping) return;
    // This run's place: a CPU of its own, or the caller's mask. Read, not remembered: the
    // last run's function may have moved this thread itself. Set only when it differs (the
    // first run, a caller on another CPU or mask): setting costs 1-4 us, reading 0.4.
    const detail::CpuMask want = w.cpus.empty() ? w.mask : detail::one_cpu(w.cpus[r]);
    if (detail::allowed_cpus() != want) (void)detail::set_allowed_cpus(want);
    run_rank(r);
    w.done.fetch_add(1, std::memory_order_release);
    w.done.notify_one();
  }
}

COLLECTIVES_DECL bool Team::membarrier_registered() noexcept
{
#if COLLECTIVES_DETAIL_MEMBARRIER
  // Registration is per process and idempotent; a kernel without the command (before
  // 4.14) or a sandbox that forbids it answers -1.
  static const bool registered = [] {
    const long commands = syscall(SYS_membarrier, detail::membarrier_query, 0, 0);
    return commands > 0 && (commands & detail::membarrier_private_expedited) != 0 &&
           syscall(SYS_membarrier, detail::membarrier_register_private_expedited, 0, 0) == 0;
  }();
  return registered;
#else
  return false;
#endif
}

COLLECTIVES_DECL void Team::waker_fence() const noexcept
{
  if (asymmetric_) std::atomic_signal_fence(std::memory_order_seq_cst);
  else std::atomic_thread_fence(std::memory_order_seq_cst);
}

COLLECTIVES_DECL void Team::sleeper_fence() const noexcept
{
#if COLLECTIVES_DETAIL_MEMBARRIER
  // Every running thread of the process passes a full fence before this returns (a
  // descheduled one did when it left its core): a waker's store before its fence is seen
  // by the look that follows, or its look after the fence sees this rank's flag.
  // (Once registered, the command cannot fail: the kernel promises it. Were it to, the full
  // fence below would not make up for the wakers' missing ones.)
  if (asymmetric_ && syscall(SYS_membarrier, detail::membarrier_private_expedited, 0, 0) == 0) return;
#endif
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

COLLECTIVES_DECL void Team::wake(std::size_t q)
{
  RankState& rs = ranks_[q];
  waker_fence();
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

COLLECTIVES_DECL void Team::wake_all()
{
  for (std::size_t r = 0; r < p_; ++r) wake(r);
}

COLLECTIVES_DECL void Team::finish(std::size_t r)
{
  {
    std::lock_guard lock(sleep_mutex_);
    --live_;
  }
  ranks_[r].finished.store(true, std::memory_order_seq_cst);
  wake_all();
}

COLLECTIVES_DECL void Team::fail(std::size_t r, std::size_t culprit, std::exception_ptr e, bool original)
{
  poison(culprit, e, original);
  finish(r);
}

COLLECTIVES_DECL void Team::poison(std::size_t culprit, std::exception_ptr e, bool original)
{
  {
    std::lock_guard lock(failure_mutex_);
    if (!failed_.load(std::memory_order_relaxed)) {
      failed_rank_ = culprit;
      failure_ = e;
      failure_original_ = original;
      failed_.store(true, std::memory_order_seq_cst);
    } else if (original && !failure_original_) {
      // Only what run() rethrows changes: the peers may already have read failed_rank_.
      failure_ = e;
      failure_original_ = true;
    }
  }
  wake_all();
}

COLLECTIVES_DECL void Team::throw_released(std::size_t me, std::size_t peer, const StepInfo* info)
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

COLLECTIVES_DECL void Team::check_header(std::size_t me, const RecvRequest& r, const std::byte* e, const Header& h,
                                         const StepInfo* info)
{
  // Both name their calls (same_step): another address of the collective's name is
  // compared by its characters (the Names, in the entry's other line).
  const StepInfo theirs = step_info_at(e, h);
  if (theirs.call == info->call && theirs.step == info->step && theirs.collective == info->collective) return;
  std::string what = "collectives::threads: rank " + std::to_string(me) + ", in " + detail::describe_step(info) +
                     ", expects a message from rank " + std::to_string(r.peer) + " but finds one of " +
                     detail::describe_step(&theirs) + " (" + std::to_string(h.bytes) + " bytes)";
  if (theirs.call < info->call) what += ", left over from an earlier call that never received it";
  else if (theirs.call > info->call) what += ": rank " + std::to_string(r.peer) + " has gone on to a later call";
  raise(me, CallMismatch(what + ". " + detail::mismatch_causes));
}

COLLECTIVES_DECL bool Team::try_post(std::size_t me, const SendRequest& s, const StepInfo* info, bool& done)
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
  Names n;
  if (info != nullptr) {
    h.call = static_cast<std::uint32_t>(info->call);
    h.step = static_cast<std::uint32_t>(info->step);
    h.collective = info->collective.data();
    n.algorithm = info->algorithm;
    n.call = info->call;
    n.collective_size = static_cast<std::uint32_t>(info->collective.size());
    n.steps = static_cast<std::uint32_t>(info->steps);
  }
  std::byte* e = entry_at(ch, head + skip);
  std::memcpy(e + seq_bytes, &h, sizeof h);
  std::memcpy(e + name_at(bytes), &n, sizeof n);
  if (eager) {
    std::byte* to = e + payload_at(bytes);
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
COLLECTIVES_DECL bool Team::overlaps_open_send(std::size_t me, const RecvRequest& r)
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
COLLECTIVES_DECL std::byte* Team::stage(std::size_t me, std::size_t bytes, std::size_t& offset)
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

COLLECTIVES_DECL bool Team::try_receive(std::size_t me, std::size_t index, const StepInfo* info)
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
  if (!same_step(h, info)) check_header(me, r, e, h, info);
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
    const ConstBytes payload{e + payload_at(h.bytes), h.bytes};
    detail::transfer(&payload, 1, into, combine);
  } else {
    std::uint32_t expected = offered;
    // Claim before reading; failing means the sender left and took its offer back.
    if (!ch.offer.compare_exchange_strong(expected, claimed, std::memory_order_acq_rel, std::memory_order_acquire))
      throw_released(me, r.peer, info);
    receive_shared(ch, r.peer, into, combine, want);
  }
  ch.tail.store(tail + entry_bytes(h), std::memory_order_release);
  wake(r.peer);
  return true;
}

COLLECTIVES_DECL void Team::exchange(std::size_t me, std::span<const SendRequest> sends,
                                     std::span<const RecvRequest> recvs, const StepInfo* info, const StepWork* work)
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
        if (work != nullptr) (*std::exchange(work, nullptr))();
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
      // Nothing to do until a peer moves: the step's own work first (a sender whose
      // receiver pulls its offer copies its own block meanwhile).
      if (work != nullptr) {
        (*std::exchange(work, nullptr))();
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
COLLECTIVES_DECL bool Team::can_progress(std::size_t me)
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
COLLECTIVES_DECL std::string Team::waits_text(std::size_t r)
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
COLLECTIVES_DECL void Team::block(std::size_t me)
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
  sleeper_fence();
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
COLLECTIVES_DECL bool Team::chunks_left(const Channel& ch)
{
  const std::uint64_t t = ch.taken.load(std::memory_order_relaxed);
  return (t & 0xFFFFFFFFu) + (t >> 32) < ch.chunks;
}

/// Takes chunks of a shared offer, from the front (the receiver) or the back (the sender),
/// and moves them until none is left. After a chunk throws, the rest are taken without
/// being moved, so that every chunk is still counted in `moved`; returns the exception.
COLLECTIVES_DECL std::exception_ptr Team::move_chunks(Channel& ch, bool front) noexcept
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
COLLECTIVES_DECL void Team::receive_shared(Channel& ch, std::size_t peer, std::span<const MutableBytes> into,
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
      ch.offer.store(copied, std::memory_order_release);
      wake(peer);
      throw;
    }
    ch.offer.store(copied, std::memory_order_release);
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
  ch.offer.store(copied, std::memory_order_release);
  if (error != nullptr) {
    wake(peer);
    std::rethrow_exception(error);
  }
}

/// Called by a sender leaving exchange() by an exception: every open offer is either taken
/// back, so no receiver reads it after the sender's buffers are gone, or, if a receiver has
/// claimed it, waited for until copied.
COLLECTIVES_DECL void Team::withdraw(std::size_t me) noexcept
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
COLLECTIVES_DECL void Team::check_all_received()
{
  for (std::size_t from = 0; from < p_; ++from)
    for (std::size_t to = 0; to < p_; ++to) {
      Channel& ch = channel(from, to);
      const std::uint64_t tail = ch.tail.load(std::memory_order_acquire);
      if (ch.head == tail) continue; // (every rank has joined)
      const std::byte* e = entry_at(ch, tail);
      if (const Header w = header_at(e); (w.bytes & wrap_bit) != 0) e = entry_at(ch, tail + entry_bytes(w));
      const Header h = header_at(e);
      const StepInfo theirs = step_info_at(e, h);
      throw CallMismatch("collectives::threads: rank " + std::to_string(to) + " never received the " +
                         std::to_string(h.bytes) + "-byte message rank " + std::to_string(from) + " sent it in " +
                         detail::describe_step(&theirs) + "; results of that call may be wrong. " +
                         detail::mismatch_causes);
    }
}

} // namespace threads
} // namespace collectives
