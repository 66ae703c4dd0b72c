// calibrate(): the fit, the collective contract (every rank gets the same model), the
// three exchange patterns, bad options. The numbers themselves depend on the machine;
// benchmarks/calibration.cpp measures how well they predict.

#include <catch2/catch.hpp>

#include <collectives/tuning/calibrate.hpp>
#include <collectives/transport/threads.hpp>

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <vector>

using namespace collectives;

TEST_CASE("calibrate: the weighted least-squares fit recovers a line", "[cost][calibrate]")
{
  std::vector<CalibrationPoint> pts;
  for (double w : {1.0, 4.0, 16.0, 64.0, 256.0, 1024.0}) pts.push_back({w, 2e-6 + 3e-9 * w});
  const auto [a, b] = detail::fit_relative(pts);
  CHECK(a == Approx(2e-6).epsilon(1e-9));
  CHECK(b == Approx(3e-9).epsilon(1e-9));
  // A flat cloud has no per-word cost; negative intercepts are clamped.
  const auto flat = detail::fit_relative({{1, 5e-6}, {1000, 4e-6}});
  CHECK(flat[1] == 0);
  CHECK(flat[0] > 0);
  const auto origin = detail::fit_relative({{1, 1e-9}, {1000, 2e-6}});
  CHECK(origin[0] >= 0);
  CHECK(origin[1] > 0);
}

TEST_CASE("calibrate: every rank gets the same valid model", "[cost][calibrate]")
{
  for (std::size_t p : {1, 2, 3, 4}) {
    for (CalibrationPattern pattern : {CalibrationPattern::ping_pong, CalibrationPattern::pairs, CalibrationPattern::shift}) {
      CalibrationOptions options;
      options.max_words = 64;
      options.samples = 3;
      options.min_sample_seconds = 0;
      options.pattern = pattern;
      options.ports = Ports::all;
      std::vector<Calibration> got(p);
      threads::Team team{p};
      team.run([&](threads::Endpoint& ep) { got[ep.rank()] = calibrate_detailed(ep, options); });
      for (const auto& c : got) {
        CHECK_NOTHROW(c.model.validated());
        CHECK(c.model.t_s == got[0].model.t_s);
        CHECK(c.model.t_w == got[0].model.t_w);
        CHECK(c.model.t_r == got[0].model.t_r);
        CHECK(c.model.t_h == 0);
        CHECK(c.model.ports == Ports::all);
      }
      // Rank 0 keeps its measurements: one point per size (1, 4, 16, 64 words).
      CHECK(got[0].copies.size() == 4);
      CHECK(got[0].messages.size() == (p >= 2 ? 4u : 0u));
      if (p == 1) CHECK(got[0].model.t_s == 0);
    }
  }
}

TEST_CASE("calibrate: bad options throw on every rank", "[cost][calibrate]")
{
  CalibrationOptions bad;
  bad.min_words = 0;
  threads::Team team{2};
  CHECK_THROWS_AS(team.run([&](threads::Endpoint& ep) { calibrate(ep, bad); }), std::invalid_argument);
  bad.min_words = 8;
  bad.max_words = 4;
  CHECK_THROWS_AS(team.run([&](threads::Endpoint& ep) { calibrate(ep, bad); }), std::invalid_argument);
}
