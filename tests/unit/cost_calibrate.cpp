// calibrate(): the fit, the collective contract (every rank gets the same model), the
// three exchange patterns, bad options. The numbers themselves depend on the machine;
// benchmarks/calibration.cpp measures how well they predict.

#include <catch2/catch.hpp>

#include <collectives/algorithm/shift/ring.hpp>
#include <collectives/cost/schedule_cost.hpp>
#include <collectives/topology/grid.hpp>
#include <collectives/tuning/calibrate.hpp>
#include <collectives/transport/threads.hpp>

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <thread>
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

TEST_CASE("calibrate: the helpers compiled once (clock, batch, fit error, median)", "[cost][calibrate]")
{
  // The clock is monotonic and counts nanoseconds.
  const std::int64_t t0 = detail::monotonic_nanoseconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const double slept = detail::seconds_since(t0);
  CHECK(slept >= 2e-3);
  CHECK(slept < 10.0);
  // Enough operations for a sample of min_sample_seconds, capped; 64 when nothing was seen.
  CHECK(detail::batch_for(2e-4, 1e-5) == 21);
  CHECK(detail::batch_for(2e-4, 2e-4) == 2);
  CHECK(detail::batch_for(1.0, 1e-9) == 4096);
  CHECK(detail::batch_for(2e-4, 0) == 64);
  // The largest relative distance of the points from the line a + b w.
  const std::vector<CalibrationPoint> pts{{1, 1.0}, {2, 4.0}, {3, 0}};
  CHECK(detail::worst_relative_error(pts, 1, 1) == Approx(1.0)); // (1, 1): |2 - 1| / 1
  CHECK(detail::worst_relative_error(pts, 0, 1) == Approx(0.5));
  CHECK(detail::worst_relative_error({}, 1, 1) == 0);
  CHECK(detail::median({3, 1, 2}) == 2);
  CHECK(detail::median({}) == 0);
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
        CHECK(c.model.t_sync == got[0].model.t_sync);
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

TEST_CASE("calibrate: the model keeps the endpoint's terms and prices the pattern as measured", "[cost][calibrate]")
{
  // p = 4 and 8 are more ranks than cores on a 2-core machine: the team suggests lanes and
  // t_sync there; on any machine it suggests half_duplex and crossbar.
  for (std::size_t p : {2, 3, 4, 8}) {
    CalibrationOptions options;
    options.max_words = 256;
    options.samples = 3;
    options.min_sample_seconds = 0;
    threads::Team team{p};
    const CostModel suggested = team.cost_model();
    std::vector<Calibration> got(p);
    team.run([&](threads::Endpoint& ep) { got[ep.rank()] = calibrate_detailed(ep, options); });
    const Calibration& c = got[0];
    CAPTURE(p, c.model.t_s, c.model.t_w, c.model.t_sync);
    CHECK_NOTHROW(c.model.validated());
    CHECK(c.model.half_duplex == suggested.half_duplex);
    CHECK(c.model.lanes == suggested.lanes);
    CHECK(c.model.crossbar == suggested.crossbar);
    CHECK(c.model.t_h == suggested.t_h);
    // The step's start-up is divided as the team suggests.
    if (suggested.t_sync > 0 && c.model.t_s + c.model.t_sync > 0)
      CHECK(c.model.t_sync / (c.model.t_s + c.model.t_sync) ==
            Approx(suggested.t_sync / (suggested.t_s + suggested.t_sync)).epsilon(1e-12));
    else
      CHECK(c.model.t_sync == 0);
    // The pattern (shift by one: every rank sends to r + 1, receives from r - 1, one step) is
    // the shift collective's ring schedule: its estimate under the model returned is the
    // line fitted to the measurements.
    const auto [a, b] = detail::fit_relative(c.messages);
    REQUIRE(c.messages.size() == 5);
    for (const CalibrationPoint& x : c.messages) {
      const double predicted = estimate(ShiftRingSchedule(p, 1), Ring<>{p}, c.model, x.words).time;
      CHECK(predicted == Approx(a + b * x.words).epsilon(1e-9));
    }
  }
}

TEST_CASE("calibrate: calibration_scale is the model's price of one message of each pattern", "[cost][calibrate]")
{
  constexpr CostModel plain{.t_s = 1, .t_w = 1};
  static_assert(calibration_scale(plain, CalibrationPattern::shift, 8).share == 1);
  static_assert(calibration_scale(plain, CalibrationPattern::shift, 8).words == 1);
  constexpr CostModel node{.t_s = 1, .t_w = 1, .half_duplex = true, .lanes = 2};
  // shift: 8 ranks on 2 lanes, each sending and receiving.
  static_assert(calibration_scale(node, CalibrationPattern::shift, 8).share == 4);
  static_assert(calibration_scale(node, CalibrationPattern::shift, 8).words == 8);
  // pairs: 6 of 7 ranks take part, one message each way per step.
  static_assert(calibration_scale(node, CalibrationPattern::pairs, 7).share == 3);
  static_assert(calibration_scale(node, CalibrationPattern::pairs, 7).words == 3);
  // ping_pong: two ranks fit two lanes.
  static_assert(calibration_scale(node, CalibrationPattern::ping_pong, 8).share == 1);
  static_assert(calibration_scale(node, CalibrationPattern::ping_pong, 8).words == 1);
  // With as many lanes as ranks, nothing is shared.
  static_assert(calibration_scale(node, CalibrationPattern::shift, 2).share == 1);
}
