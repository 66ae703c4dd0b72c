#pragma once
// calibrate()'s non-template helpers (tuning/calibrate.hpp declares them): included by that
// header, or compiled once with COLLECTIVES_SEPARATE_COMPILATION
// (collectives/separate_compilation.hpp).

#include <collectives/tuning/calibrate.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

// POSIX's clock where there is one: libstdc++ 12's <chrono> brings <sstream> and the
// locales with it, about a tenth of a second in a header-only TU that does not include
// them itself (none in one that includes <iostream>).
#if defined(__unix__) || defined(__APPLE__)
#include <time.h>
#define COLLECTIVES_DETAIL_POSIX_CLOCK 1
#else
#include <chrono>
#define COLLECTIVES_DETAIL_POSIX_CLOCK 0
#endif

namespace collectives::detail {

COLLECTIVES_DECL std::int64_t monotonic_nanoseconds()
{
#if COLLECTIVES_DETAIL_POSIX_CLOCK
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return std::int64_t{now.tv_sec} * 1000000000 + std::int64_t{now.tv_nsec};
#else
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
    .count();
#endif
}

COLLECTIVES_DECL std::array<double, 2> fit_relative(const std::vector<CalibrationPoint>& pts)
{
  double s0 = 0, s1 = 0, s2 = 0, r0 = 0, r1 = 0;
  for (const auto& x : pts) {
    if (x.seconds <= 0) continue;
    const double w = 1 / (x.seconds * x.seconds);
    s0 += w;
    s1 += w * x.words;
    s2 += w * x.words * x.words;
    r0 += w * x.seconds;
    r1 += w * x.words * x.seconds;
  }
  if (s0 == 0) return {0, 0};
  const double det = s0 * s2 - s1 * s1;
  if (det <= 0) return {r0 / s0, 0};
  double a = (r0 * s2 - r1 * s1) / det;
  double b = (s0 * r1 - s1 * r0) / det;
  if (b < 0) { // no measurable cost per word: the weighted mean is the start-up
    b = 0;
    a = r0 / s0;
  }
  if (a < 0) { // through the origin
    a = 0;
    b = r1 / s2;
  }
  return {a, b};
}

COLLECTIVES_DECL double worst_relative_error(const std::vector<CalibrationPoint>& pts, double a, double b)
{
  double worst = 0;
  for (const auto& x : pts)
    if (x.seconds > 0) {
      const double error = a + b * x.words - x.seconds; // (no <cmath> for std::abs: 0.05-0.1 s a TU)
      worst = std::max(worst, (error < 0 ? -error : error) / x.seconds);
    }
  return worst;
}

COLLECTIVES_DECL double batch_for(double min_sample_seconds, double once)
{
  if (!(once > 0)) return 64;
  const double batches = min_sample_seconds / once;
  // floor(batches) + 1, at most 4096 (batches >= 0: calibrate() checks min_sample_seconds;
  // the cast truncates, which is floor for these)
  if (!(batches < 4095)) return 4096.0;
  return static_cast<double>(static_cast<std::uint32_t>(batches)) + 1;
}

COLLECTIVES_DECL double median(std::vector<double> v)
{
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

} // namespace collectives::detail
