#pragma once
// The CPUs a thread may run on: on Linux its affinity mask, which taskset, cgroup cpusets,
// containers and batch systems (Slurm's --cpus-per-task) narrow; elsewhere, or when the
// system does not say, every CPU std::thread::hardware_concurrency() counts. The
// transports decide from it whether their ranks outnumber the cores they share.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <thread>

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

} // namespace collectives::detail
