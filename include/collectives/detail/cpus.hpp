#pragma once
// The CPUs a thread may run on: on Linux its affinity mask, which taskset, cgroup cpusets,
// containers and batch systems (Slurm's --cpus-per-task) narrow; elsewhere, or when the
// system does not say, every CPU std::thread::hardware_concurrency() counts. The
// transports decide from it whether their ranks outnumber the cores they share, and the
// threads transport places its ranks on CPUs of it, a core each first (rank_cpus,
// spread_cpus, core_of, set_allowed_cpus, PinnedThread).

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#include <unistd.h>
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

/// The core CPU `cpu` belongs to: CPUs with the same key are hardware threads of one core
/// (SMT). On Linux the physical package and core id of /sys/devices/system/cpu/cpuN/topology,
/// read once per process for every configured CPU; a CPU the system says nothing of is a
/// core of its own.
inline std::uint64_t core_of(std::size_t cpu)
{
  constexpr std::uint64_t alone = std::uint64_t{1} << 63; // | cpu: a core of its own
  static const std::vector<std::uint64_t> keys = [] {
    std::vector<std::uint64_t> k;
#if defined(__linux__)
    const long configured = sysconf(_SC_NPROCESSORS_CONF);
    const std::size_t n = configured > 0 ? std::min<std::size_t>(static_cast<std::size_t>(configured), 4096) : 0;
    auto read = [](std::size_t c, const char* what, unsigned long& v) {
      char path[96];
      std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%zu/topology/%s", c, what);
      std::FILE* f = std::fopen(path, "r");
      if (f == nullptr) return false;
      const bool ok = std::fscanf(f, "%lu", &v) == 1;
      std::fclose(f);
      return ok;
    };
    k.resize(n);
    for (std::size_t c = 0; c < n; ++c) {
      unsigned long package = 0, core = 0;
      k[c] = read(c, "physical_package_id", package) && read(c, "core_id", core) && package < (1ul << 31)
               ? (std::uint64_t{package} << 32) | core
               : alone | c;
    }
#endif
    return k;
  }();
  return cpu < keys.size() ? keys[cpu] : alone | cpu;
}

/// p CPUs out of `allowed` (ascending), one for each rank: `here` first (rank 0, the
/// calling thread, stays where it runs), then one CPU of every core that has none yet, in
/// the order of `allowed`, and only then the cores' other hardware threads (two ranks on
/// one core share its execution units while another core idles). `core(c)` names c's
/// core (core_of). Empty when `allowed` has fewer than p CPUs or lacks `here`.
template <class Core>
std::vector<std::size_t> spread_cpus(const std::vector<std::size_t>& allowed, std::size_t here, std::size_t p,
                                     Core core)
{
  std::vector<std::size_t> cpus;
  if (p == 0 || allowed.size() < p || std::find(allowed.begin(), allowed.end(), here) == allowed.end()) return cpus;
  cpus.reserve(p);
  cpus.push_back(here);
  std::vector<std::uint64_t> taken{core(here)};
  for (const std::size_t c : allowed) {
    if (cpus.size() == p) break;
    const std::uint64_t k = core(c);
    if (c != here && std::find(taken.begin(), taken.end(), k) == taken.end()) {
      cpus.push_back(c);
      taken.push_back(k);
    }
  }
  for (const std::size_t c : allowed) {
    if (cpus.size() == p) break;
    if (std::find(cpus.begin(), cpus.end(), c) == cpus.end()) cpus.push_back(c);
  }
  return cpus;
}

/// A CPU for each of p ranks, all different, from `mask` (the calling thread's,
/// allowed_cpus()) (spread_cpus: rank 0 keeps the CPU the calling thread runs on, the
/// others a core each before any core's second hardware thread). Empty where the mask has fewer than
/// p CPUs, or where the system cannot pin threads (not Linux, or the CPU it runs on is not
/// known).
inline std::vector<std::size_t> rank_cpus(std::size_t p, const CpuMask& mask)
{
#if defined(__linux__)
  const int running_on = sched_getcpu();
  if (p == 0 || running_on < 0) return {};
  std::vector<std::size_t> allowed;
  for (std::size_t c = 0; c < 64 * mask.size(); ++c)
    if ((mask[c / 64] >> (c % 64)) & 1) allowed.push_back(c);
  return spread_cpus(allowed, static_cast<std::size_t>(running_on), p, core_of);
#else
  (void)p, (void)mask;
  return {};
#endif
}

/// The mask of CPU `cpu` alone.
inline CpuMask one_cpu(std::size_t cpu)
{
  CpuMask mask{};
  if (cpu < 64 * mask.size()) mask[cpu / 64] |= std::uint64_t{1} << (cpu % 64);
  return mask;
}

/// Lets the calling thread run on the CPUs of `mask` only. false where the system refuses
/// (or cannot pin threads): the thread is left as it was.
inline bool set_allowed_cpus(const CpuMask& mask)
{
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  for (std::size_t c = 0; c < CPU_SETSIZE && c < 64 * mask.size(); ++c)
    if ((mask[c / 64] >> (c % 64)) & 1) CPU_SET(c, &set);
  return CPU_COUNT(&set) > 0 && sched_setaffinity(0, sizeof set, &set) == 0;
#else
  (void)mask;
  return false;
#endif
}

/// Pins the calling thread to one CPU until the object goes, then gives it `restore`, its
/// mask as the caller read it (allowed_cpus()): the thread calling Team::run, which runs
/// rank 0. A CPU of SIZE_MAX, or a system that refuses, leaves the thread as it was.
class PinnedThread {
public:
  PinnedThread(std::size_t cpu, const CpuMask& restore)
    : restore_(cpu != SIZE_MAX && set_allowed_cpus(one_cpu(cpu)) ? &restore : nullptr)
  {
  }
  PinnedThread(const PinnedThread&) = delete;
  PinnedThread& operator=(const PinnedThread&) = delete;
  ~PinnedThread()
  {
    if (restore_ != nullptr) (void)set_allowed_cpus(*restore_);
  }

private:
  const CpuMask* restore_;
};

} // namespace collectives::detail
