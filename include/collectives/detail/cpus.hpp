#pragma once
// The CPUs a thread may run on: on Linux its affinity mask, which taskset, cgroup cpusets,
// containers and batch systems (Slurm's --cpus-per-task) narrow; elsewhere, or when the
// system does not say, every CPU std::thread::hardware_concurrency() counts. The
// transports decide from it whether their ranks outnumber the cores they share, and the
// threads transport places its ranks on CPUs of it (rank_cpus, PinnedThread).

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif

namespace collectives::detail {

/// A set of CPUs: bit c % 64 of word c / 64 is CPU c (1024 CPUs, glibc's CPU_SETSIZE).
using CpuMask = std::array<std::uint64_t, 16>;

/// The CPUs the calling thread may run on (a team counts them when it is constructed; its
/// threads, started by run(), inherit the mask of the thread that calls it).
inline CpuMask allowed_cpus()
{
  CpuMask mask{};
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) {
    for (std::size_t c = 0; c < CPU_SETSIZE && c < 64 * mask.size(); ++c)
      if (CPU_ISSET(c, &set)) mask[c / 64] |= std::uint64_t{1} << (c % 64);
    return mask;
  }
#endif
  // Not known at all: as many as the mask holds, so that nothing is taken for
  // oversubscribed on a guess.
  const std::size_t known = std::thread::hardware_concurrency();
  const std::size_t n = known != 0 ? known : 64 * mask.size();
  for (std::size_t c = 0; c < n && c < 64 * mask.size(); ++c) mask[c / 64] |= std::uint64_t{1} << (c % 64);
  return mask;
}

/// How many CPUs `mask` holds (at least 1).
inline std::size_t cpu_count(const CpuMask& mask)
{
  std::size_t n = 0;
  for (std::uint64_t w : mask) n += static_cast<std::size_t>(std::popcount(w));
  return n != 0 ? n : 1;
}

/// A CPU for each of p ranks, all different, from the calling thread's mask: rank 0 (the
/// calling thread) keeps the CPU it runs on, the others take the rest in order. Empty
/// where the mask has fewer than p CPUs, or where the system cannot pin threads (not
/// Linux, or the CPU it runs on is not known).
inline std::vector<std::size_t> rank_cpus(std::size_t p)
{
  std::vector<std::size_t> cpus;
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  const int running_on = sched_getcpu();
  if (p == 0 || running_on < 0 || sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  const auto here = static_cast<std::size_t>(running_on);
  if (here >= CPU_SETSIZE || !CPU_ISSET(here, &set) || static_cast<std::size_t>(CPU_COUNT(&set)) < p) return cpus;
  cpus.reserve(p);
  cpus.push_back(here);
  for (std::size_t c = 0; c < CPU_SETSIZE && cpus.size() < p; ++c)
    if (c != here && CPU_ISSET(c, &set)) cpus.push_back(c);
#else
  (void)p;
#endif
  return cpus;
}

/// Pins the calling thread to one CPU for its lifetime (a rank's own thread), or, with
/// `restore`, until the object goes (the caller's thread, whose mask comes back). A CPU of
/// SIZE_MAX, or a system that refuses, leaves the thread as it was.
class PinnedThread {
public:
  PinnedThread(std::size_t cpu, bool restore)
  {
#if defined(__linux__)
    if (cpu == SIZE_MAX || cpu >= CPU_SETSIZE) return;
    CPU_ZERO(&saved_);
    if (restore && sched_getaffinity(0, sizeof saved_, &saved_) != 0) return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    restore_ = sched_setaffinity(0, sizeof one, &one) == 0 && restore;
#else
    (void)cpu, (void)restore;
#endif
  }
  PinnedThread(const PinnedThread&) = delete;
  PinnedThread& operator=(const PinnedThread&) = delete;
  ~PinnedThread()
  {
#if defined(__linux__)
    if (restore_) (void)sched_setaffinity(0, sizeof saved_, &saved_);
#endif
  }

private:
#if defined(__linux__)
  cpu_set_t saved_;
#endif
  bool restore_ = false;
};

} // namespace collectives::detail
