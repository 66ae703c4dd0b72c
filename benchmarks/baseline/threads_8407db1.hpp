// The threads transport as it was at commit 8407db1 (before eager messages, combining on
// receipt and deadlock detection), renamed into namespace threads_8407db1: the baseline
// benchmarks/threads_transport.cpp compares the current transport with in the same run.
// Generated: git show 8407db1:include/collectives/transport/threads.hpp | sed (see
// benchmarks/threads_transport.cpp); not part of the library.
#pragma once

// The threads transport: a team of p threads in one process, one endpoint each.
//
// A message is copied once, by the receiver, straight from the sender's memory into its
// own (the sender publishes its gather list on a channel and waits until the receiver has
// taken it). Waiting spins briefly, then blocks on the waiter's own doorbell with
// std::atomic wait/notify, so 64 threads on 2 cores do not starve each other and 2 threads
// answer within the spin. A rank that throws fails the team: every waiting rank is woken
// and throws RankFailed8407db1 naming it, and Team::run rethrows the original exception.
//
// Because the receiver reads the sender's memory, an offer is claimed before it is read:
// the receiver sets the claim bit on the channel's sequence number, and a sender leaving
// exchange() by an exception takes back every offer not yet claimed, and waits for the
// claimed ones to be copied, before its buffers can go away.

#include <collectives/transport/concepts.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace collectives {

/// Thrown on a rank that was waiting for a rank that failed (or returned early).
class RankFailed8407db1 : public std::runtime_error {
public:
  RankFailed8407db1(std::size_t failed_rank, const std::string& what)
    : std::runtime_error(what), failed_rank_(failed_rank) {}
  /// The rank whose failure released this one.
  std::size_t failed_rank() const noexcept { return failed_rank_; }

private:
  std::size_t failed_rank_;
};

namespace threads_8407db1 {

class Team;

/// One rank's end of a Team; satisfies collectives::endpoint.
class Endpoint {
public:
  std::size_t rank() const noexcept { return rank_; }
  std::size_t size() const noexcept;
  /// Posts every send and receive of one step and returns when all have completed.
  void exchange(std::span<const SendRequest> sends, std::span<const RecvRequest> recvs);

private:
  friend class Team;
  Endpoint(Team& team, std::size_t rank) : team_(&team), rank_(rank) {}
  Team* team_;
  std::size_t rank_;
};

/// p threads, each running the same function with its own Endpoint.
/// collective: run() returns when every rank's function has returned.
class Team {
public:
  /// A team of p >= 1 ranks.
  explicit Team(std::size_t p) : p_(p)
  {
    if (p == 0) throw std::invalid_argument("collectives::threads::Team: the team needs at least one rank");
    // With more ranks than cores, a spinning rank holds the core the rank it waits for
    // needs: spin only briefly before blocking (a p = 1..64 alltoall sweep on 2 cores uses
    // about a quarter of the CPU time).
    const unsigned cores = std::thread::hardware_concurrency();
    spin_limit_ = cores != 0 && p > cores ? 8 : 256;
    reset();
  }
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;

  std::size_t size() const noexcept { return p_; }

  /// Runs f(endpoint) on p threads (rank 0 on the calling thread) and waits for all.
  /// If any rank throws, the others are released (a rank waiting for a failed rank throws
  /// RankFailed8407db1 naming it) and the first exception is rethrown. Every rank's f runs, even
  /// when another rank has failed before it starts, unless the threads cannot be started.
  template <class F>
  void run(F&& f)
  {
    reset();
    auto body = [&](std::size_t r) {
      Endpoint ep(*this, r);
      try {
        f(ep);
        finish(r);
      } catch (const RankFailed8407db1& e) {
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
  }

private:
  friend class Endpoint;

  /// Set in Channel::posted while the receiver reads the offer; the sender cannot take
  /// a claimed offer back.
  static constexpr std::uint64_t claimed = std::uint64_t{1} << 63;

  struct alignas(64) Channel {
    std::atomic<std::uint64_t> posted{0}; // sequence number of the latest offer, | claimed
    std::atomic<std::uint64_t> taken{0};  // sequence number of the latest message consumed
    const ConstBytes* pieces = nullptr;   // the offered message's gather list
    std::size_t count = 0;
    std::uint64_t sent = 0;     // sender-side count
    std::uint64_t received = 0; // receiver-side count

    /// True when an offer the receiver has not taken is up (read by the receiver only).
    bool offer_waiting() const { return (posted.load(std::memory_order_acquire) & ~claimed) > received; }
  };
  struct alignas(64) Doorbell {
    std::atomic<std::uint32_t> value{0};
  };

  Channel& channel(std::size_t from, std::size_t to) { return channels_[from * p_ + to]; }

  void reset()
  {
    channels_ = std::make_unique<Channel[]>(p_ * p_);
    bells_ = std::make_unique<Doorbell[]>(p_);
    finished_ = std::make_unique<std::atomic<bool>[]>(p_);
    for (std::size_t r = 0; r < p_; ++r) finished_[r].store(false);
    failed_.store(false);
    failed_rank_ = 0;
    failure_ = nullptr;
  }

  void ring(std::size_t r)
  {
    bells_[r].value.fetch_add(1, std::memory_order_release);
    bells_[r].value.notify_all();
  }
  void ring_all()
  {
    for (std::size_t r = 0; r < p_; ++r) ring(r);
  }

  void finish(std::size_t r)
  {
    finished_[r].store(true, std::memory_order_release);
    ring_all();
  }

  /// Rank r leaves with exception e; `culprit` is the rank to blame (r itself, or the rank
  /// a RankFailed8407db1 from r names).
  void fail(std::size_t r, std::size_t culprit, std::exception_ptr e)
  {
    {
      std::lock_guard lock(failure_mutex_);
      if (!failed_.load(std::memory_order_relaxed)) {
        failed_rank_ = culprit;
        failure_ = e;
        failed_.store(true, std::memory_order_release);
      }
    }
    finished_[r].store(true, std::memory_order_release);
    ring_all();
  }

  [[noreturn]] void throw_released(std::size_t me, std::size_t peer)
  {
    if (failed_.load(std::memory_order_acquire))
      throw RankFailed8407db1(failed_rank_, "collectives::threads: rank " + std::to_string(me) + " released because rank " +
                                         std::to_string(failed_rank_) + " failed");
    throw RankFailed8407db1(peer, "collectives::threads: rank " + std::to_string(me) + " waits for rank " +
                               std::to_string(peer) + ", which has already returned (mismatched collective calls)");
  }

  static void pause()
  {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#else
    std::this_thread::yield();
#endif
  }

  void exchange(std::size_t me, std::span<const SendRequest> sends, std::span<const RecvRequest> recvs);

  /// Called by a sender leaving exchange() by an exception: every offer in `seq` (0 and
  /// not_posted mark none) is either taken back, so no receiver reads it after the
  /// sender's buffers are gone, or, if a receiver has claimed it, waited for until copied.
  void withdraw(std::size_t me, std::span<const SendRequest> sends, const std::vector<std::uint64_t>& seq,
                std::uint64_t not_posted) noexcept
  {
    for (std::size_t i = 0; i < sends.size(); ++i) {
      if (seq[i] == 0 || seq[i] == not_posted) continue;
      Channel& ch = channel(me, sends[i].peer);
      while (ch.taken.load(std::memory_order_acquire) < seq[i]) {
        std::uint64_t offer = seq[i];
        if (ch.posted.compare_exchange_strong(offer, seq[i] - 1, std::memory_order_acq_rel,
                                              std::memory_order_acquire)) {
          --ch.sent;
          break;
        }
        // Claimed: the receiver is copying (a bounded memcpy), or is about to hand the
        // claim back after finding a size mismatch. Yield: it may be waiting for a core.
        std::this_thread::yield();
      }
    }
  }

  std::size_t p_;
  unsigned spin_limit_ = 256; // pause()s before blocking on the doorbell
  std::unique_ptr<Channel[]> channels_;
  std::unique_ptr<Doorbell[]> bells_;
  std::unique_ptr<std::atomic<bool>[]> finished_;
  std::atomic<bool> failed_{false};
  std::mutex failure_mutex_;
  std::size_t failed_rank_ = 0; // written before failed_ is set (release), read after it (acquire)
  std::exception_ptr failure_;
};

inline std::size_t Endpoint::size() const noexcept { return team_->size(); }

inline void Endpoint::exchange(std::span<const SendRequest> sends, std::span<const RecvRequest> recvs)
{
  team_->exchange(rank_, sends, recvs);
}

namespace detail {
/// Copies a gather list into a scatter list of the same total size.
inline void copy_pieces(const ConstBytes* from, std::size_t nfrom, std::span<const MutableBytes> to)
{
  std::size_t fi = 0, fo = 0;
  for (const auto& dst : to) {
    std::size_t done = 0;
    while (done < dst.size) {
      while (from[fi].size == fo) {
        ++fi;
        fo = 0;
      }
      const std::size_t n = std::min(dst.size - done, from[fi].size - fo);
      std::memcpy(dst.data + done, from[fi].data + fo, n);
      done += n;
      fo += n;
    }
  }
  (void)nfrom;
}
} // namespace detail

inline void Team::exchange(std::size_t me, std::span<const SendRequest> sends, std::span<const RecvRequest> recvs)
{
  for (const auto& s : sends)
    if (s.peer >= p_ || s.peer == me)
      throw std::invalid_argument("collectives::threads: rank " + std::to_string(me) + " sends to invalid rank " +
                                  std::to_string(s.peer));
  for (const auto& r : recvs)
    if (r.peer >= p_ || r.peer == me)
      throw std::invalid_argument("collectives::threads: rank " + std::to_string(me) + " receives from invalid rank " +
                                  std::to_string(r.peer));

  // Sends: offer the first message on each channel; later ones on the same channel wait
  // until the one before is taken (a channel holds one offer at a time).
  constexpr std::uint64_t not_posted = ~std::uint64_t{0};
  std::vector<std::uint64_t> seq(sends.size(), not_posted);
  std::vector<char> recv_done(recvs.size(), 0);
  auto blocked_by_earlier = [&](std::size_t i) {
    for (std::size_t j = 0; j < i; ++j)
      if (sends[j].peer == sends[i].peer && seq[j] != 0) return true;
    return false;
  };
  auto post = [&](std::size_t i) {
    Channel& ch = channel(me, sends[i].peer);
    ch.pieces = sends[i].pieces.data();
    ch.count = sends[i].pieces.size();
    seq[i] = ++ch.sent;
    ch.posted.store(seq[i], std::memory_order_release);
    ring(sends[i].peer);
  };
  std::size_t open_sends = sends.size();
  std::size_t open_recvs = recvs.size();

  try {
    unsigned spins = 0;
    while (true) {
      bool progress = false;
      // Offer what may be offered; retire what was taken.
      for (std::size_t i = 0; i < sends.size(); ++i) {
        if (seq[i] == not_posted) {
          if (!blocked_by_earlier(i)) {
            post(i);
            progress = true;
          }
        } else if (seq[i] != 0) {
          Channel& ch = channel(me, sends[i].peer);
          if (ch.taken.load(std::memory_order_acquire) >= seq[i]) {
            seq[i] = 0;
            --open_sends;
            progress = true;
          }
        }
      }
      // Take every message that has arrived, in order per peer.
      for (std::size_t i = 0; i < recvs.size(); ++i) {
        if (recv_done[i]) continue;
        bool earlier_open = false;
        for (std::size_t j = 0; j < i && !earlier_open; ++j)
          earlier_open = !recv_done[j] && recvs[j].peer == recvs[i].peer;
        if (earlier_open) continue;
        Channel& ch = channel(recvs[i].peer, me);
        std::uint64_t offer = ch.posted.load(std::memory_order_acquire);
        if ((offer & ~claimed) > ch.received) {
          // A new offer is never claimed yet. Claim it before reading it; failing means the
          // sender took it back.
          if (!ch.posted.compare_exchange_strong(offer, offer | claimed, std::memory_order_acq_rel,
                                                 std::memory_order_acquire))
            continue;
          const std::size_t want = total_bytes(recvs[i].pieces);
          std::size_t have = 0;
          for (std::size_t k = 0; k < ch.count; ++k) have += ch.pieces[k].size;
          if (have != want) {
            ch.posted.store(offer, std::memory_order_release); // hand the claim back
            throw std::length_error("collectives::threads: rank " + std::to_string(me) + " expects " +
                                    std::to_string(want) + " bytes from rank " + std::to_string(recvs[i].peer) +
                                    ", which sends " + std::to_string(have));
          }
          detail::copy_pieces(ch.pieces, ch.count, recvs[i].pieces);
          ++ch.received;
          ch.taken.store(ch.received, std::memory_order_release);
          ring(recvs[i].peer);
          recv_done[i] = 1;
          --open_recvs;
          progress = true;
        }
      }
      if (open_sends == 0 && open_recvs == 0) return;
      if (progress) {
        spins = 0;
        continue;
      }
      if (failed_.load(std::memory_order_acquire)) throw_released(me, failed_rank_);
      if (++spins < spin_limit_) {
        pause();
        continue;
      }
      // Block until someone rings this rank's doorbell, re-checking after reading it so a
      // ring between the check and the wait is not lost.
      const std::uint32_t bell = bells_[me].value.load(std::memory_order_acquire);
      bool ready = failed_.load(std::memory_order_acquire);
      for (std::size_t i = 0; i < sends.size() && !ready; ++i)
        ready = seq[i] != 0 && seq[i] != not_posted &&
                channel(me, sends[i].peer).taken.load(std::memory_order_acquire) >= seq[i];
      for (std::size_t i = 0; i < recvs.size() && !ready; ++i)
        ready = !recv_done[i] && channel(recvs[i].peer, me).offer_waiting();
      if (ready) continue;
      // A peer that has returned will never answer.
      for (std::size_t i = 0; i < sends.size(); ++i)
        if (seq[i] != 0 && seq[i] != not_posted && finished_[sends[i].peer].load(std::memory_order_acquire) &&
            channel(me, sends[i].peer).taken.load(std::memory_order_acquire) < seq[i])
          throw_released(me, sends[i].peer);
      for (std::size_t i = 0; i < recvs.size(); ++i)
        if (!recv_done[i] && finished_[recvs[i].peer].load(std::memory_order_acquire) &&
            !channel(recvs[i].peer, me).offer_waiting())
          throw_released(me, recvs[i].peer);
      bells_[me].value.wait(bell, std::memory_order_acquire);
    }
  } catch (...) {
    withdraw(me, sends, seq, not_posted);
    throw;
  }
}

} // namespace threads_8407db1
} // namespace collectives
