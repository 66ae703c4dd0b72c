#pragma once
// Measuring a transport's cost model. Rank 0 times message exchanges with a partner over
// a range of sizes w and fits t_s + t_w w to them by least squares, weighted by 1/t^2 so
// that short and long messages count alike (by relative error); t_r is the slope of the
// executor's own local work (a local op combining w words, timed through execute(), as
// estimate() charges t_r for local copies and for combining received words). Rank 0
// then sends the parameters to every rank, so all return the same model.
//
// The terms calibrate() does not measure come from the model the endpoint suggests
// (cost_model(), else default_cost_model): t_h (a transport has no notion of hops; take it
// from the network's data sheet if you need it), half_duplex, lanes, crossbar, t_fresh
// (the pattern sends no data written during a collective), and how a step's start-up
// divides between t_s and t_sync. The fitted line is divided by what those
// terms make of one message of the pattern (calibration_scale), so the model returned
// prices the pattern it was measured on as measured: with half_duplex a shift's rank sends
// and receives, so its word time counts twice; with fewer lanes than ranks taking part,
// the ranks share them.
//
// Three exchange patterns (CalibrationOptions::pattern):
//  - ping_pong: ranks 0 and 1 alone, half a round trip per message (the classic);
//  - pairs: every rank r ping-pongs with r XOR 1 at the same time, rank 0's pair timed:
//    the transport as busy as in a collective;
//  - shift (the default): every rank sends to r + 1 and receives from r - 1 in one
//    exchange, i.e. one step of a collective as schedule_cost.hpp charges it (one message
//    time per step, send and receive overlapping). On a transport whose cost depends on
//    how many ranks run at once (threads on fewer cores than ranks) this is the pattern
//    that predicts collectives best; benchmarks/calibration.cpp compares them.

#include <collectives/cost/model.hpp>
#include <collectives/detail/config.hpp>
#include <collectives/detail/dependent.hpp>
#include <collectives/detail/require.hpp>
#include <collectives/execution/communicator.hpp>
#include <collectives/execution/executor.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/transport/concepts.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace collectives {

// (g++ 12's -Wshadow takes the scoped enumerator `shift` for a shadow of collectives::shift.)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
#endif
/// How calibrate() exchanges its messages (see the top of this header).
enum class CalibrationPattern : unsigned char { ping_pong, pairs, shift };
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/// What calibrate() measures and how often.
struct CalibrationOptions {
  std::size_t word_bytes = 8;       ///< the model's word, in bytes (8: a double)
  std::size_t min_words = 1;        ///< smallest message
  std::size_t max_words = 1 << 16;  ///< largest message (sizes grow by 4x from min_words)
  std::size_t samples = 15;         ///< timed samples per size (the median is used)
  double min_sample_seconds = 2e-4; ///< exchanges are batched until a sample takes this long
  CalibrationPattern pattern = CalibrationPattern::shift;
  Routing routing = Routing::cut_through; ///< copied into the model
  Ports ports = Ports::one;               ///< copied into the model
};

/// What the model makes of one message of a calibration pattern: it takes
/// `share` x t_s + t_sync + `words` x t_w x w for w words. `share` is the lanes' share
/// (the ranks taking part over the lanes they time-share, at least 1); `words` is `share`,
/// doubled when a rank sends and receives in the step under half_duplex (shift).
struct CalibrationScale {
  double share = 1;
  double words = 1;
};

/// The scale of `pattern` on p ranks under `model`'s half_duplex and lanes (see above).
constexpr CalibrationScale calibration_scale(const CostModel& model, CalibrationPattern pattern, std::size_t p)
{
  const std::size_t taking_part = pattern == CalibrationPattern::shift   ? p
                                  : pattern == CalibrationPattern::pairs ? p - p % 2
                                                                         : std::min<std::size_t>(p, 2);
  const bool shared = model.lanes != 0 && model.lanes < p && taking_part > model.lanes;
  const double share = shared ? static_cast<double>(taking_part) / static_cast<double>(model.lanes) : 1;
  const bool both_ways = model.half_duplex && pattern == CalibrationPattern::shift;
  return {share, both_ways ? 2 * share : share};
}

/// One measured point: a message of `words` words took `seconds` (median).
struct CalibrationPoint {
  double words = 0;
  double seconds = 0;
};

/// The fitted model and the points it was fitted to (rank 0's; the same model on every rank).
struct Calibration {
  CostModel model{};
  std::vector<CalibrationPoint> messages; ///< one message's time per size
  std::vector<CalibrationPoint> copies;   ///< one local combine's time per size (t_r's points)
  double worst_fit_error = 0;             ///< largest |fit - measured| / measured over `messages`
};

namespace detail {

// The non-template helpers below are compiled once in the compiled mode
// (tuning/impl/calibrate.ipp), which keeps the clock and <cmath> out of the header.

/// A monotonic clock's reading, in nanoseconds.
COLLECTIVES_DECL std::int64_t monotonic_nanoseconds();

/// Seconds since `t0`, a monotonic_nanoseconds() reading.
inline double seconds_since(std::int64_t t0)
{
  return static_cast<double>(monotonic_nanoseconds() - t0) * 1e-9;
}

/// Fits t = a + b w minimising sum ((fit - t) / t)^2, with a, b >= 0.
COLLECTIVES_DECL std::array<double, 2> fit_relative(const std::vector<CalibrationPoint>& pts);

/// The largest |a + b w - t| / t over `pts` (points with t > 0).
COLLECTIVES_DECL double worst_relative_error(const std::vector<CalibrationPoint>& pts, double a, double b);

/// Operations per timed sample: enough that a sample takes `min_sample_seconds` when one
/// took `once` seconds (at most 4096; 64 when `once` measured nothing).
COLLECTIVES_DECL double batch_for(double min_sample_seconds, double once);

/// The median of `v` (0 when empty).
COLLECTIVES_DECL double median(std::vector<double> v);

/// One rank alone: the endpoint for timing the executor's local work.
struct CalibrationSelf {
  std::size_t rank() const { return 0; }
  std::size_t size() const { return 1; }
  void exchange(std::span<const SendRequest>, std::span<const RecvRequest>) {}
};

/// One step, one local op: input block 0 combined into output block 0 (what a reduction
/// does per received or kept block).
struct CalibrationLocalSchedule {
  constexpr std::size_t size() const { return 1; }
  constexpr std::size_t num_steps() const { return 1; }
  constexpr std::size_t scratch_blocks() const { return 0; }
  constexpr AlltoallOp operation() const { return {1}; }
  template <class V>
  constexpr void visit(std::size_t, std::size_t, V& v) const
  {
    v.local({contiguous(Buffer::input, 0, 1), contiguous(Buffer::output, 0, 1), Combine::right});
  }
};

/// Rank 0's `values` on every rank (rank 0 sends them to each other rank).
template <endpoint E, std::size_t N>
void calibration_agree(E& ep, std::array<double, N>& values)
{
  const std::size_t p = ep.size();
  if (p < 2) return;
  if (ep.rank() == 0) {
    const ConstBytes piece{reinterpret_cast<const std::byte*>(values.data()), sizeof values};
    // (Dependent types: see detail/dependent.hpp; here about 75 ms of a clang++ TU.)
    std::vector<dependent_on<E, SendRequest>> sends;
    for (std::size_t r = 1; r < p; ++r) sends.push_back(SendRequest{r, std::span<const ConstBytes>(&piece, 1)});
    ep.exchange(std::span<const SendRequest>(sends), {});
  } else {
    const MutableBytes into{reinterpret_cast<std::byte*>(values.data()), sizeof values};
    const RecvRequest recv{0, std::span<const MutableBytes>(&into, 1)};
    ep.exchange({}, std::span<const RecvRequest>(&recv, 1));
  }
}

} // namespace detail

/// Measures t_s, t_w and t_r on endpoint `ep` as described at the top of this header; the
/// other terms are the endpoint's suggested model's, and t_sync is measured with t_s (the
/// start-up a step costs is divided between them as in the suggested model).
/// Requirements: 1 <= options.min_words <= max_words, samples >= 1, word_bytes >= 1,
/// min_sample_seconds >= 0 (std::invalid_argument otherwise, on every rank). With one rank
/// there is no partner: t_s = t_w = t_sync = 0. Takes about 2 x samples x sizes x
/// min_sample_seconds. collective: every rank must call it with the same options; all
/// return the same model (the suggested model must be the same on every rank, as a
/// Communicator requires anyway).
template <endpoint E>
Calibration calibrate_detailed(E& ep, const CalibrationOptions& options = {})
{
  detail::require(options.min_words >= 1 && options.max_words >= options.min_words && options.samples >= 1 &&
                    options.word_bytes >= 1 && options.min_sample_seconds >= 0,
                  "collectives::calibrate: needs 1 <= min_words <= max_words, samples >= 1, word_bytes >= 1 and "
                  "min_sample_seconds >= 0");
  const std::size_t me = ep.rank();
  const std::size_t p = ep.size();
  const CostModel base = detail::endpoint_cost_model(ep);
  std::array<double, 5> params{}; // t_s, t_w, t_sync, t_r, worst fit error: rank 0's, then everyone's
  Calibration out;
  std::vector<std::size_t> sizes;
  for (std::size_t w = options.min_words;; w *= 4) {
    sizes.push_back(w);
    if (w > options.max_words / 4) break;
  }
  std::vector<std::byte> sent(sizes.back() * options.word_bytes, std::byte{1});
  std::vector<std::byte> received(sent.size(), std::byte{2});

  // Who takes part, with whom, and what one timed operation is.
  const bool shifting = options.pattern == CalibrationPattern::shift;
  const std::size_t peer = me ^ 1;
  const bool active = p >= 2 && (shifting || (peer < p && (options.pattern == CalibrationPattern::pairs || me <= 1)));
  const double messages_per_op = shifting ? 1 : 2; // a round trip is two messages
  auto op = [&](std::size_t bytes) {
    const ConstBytes out_piece{sent.data(), bytes};
    const MutableBytes in_piece{received.data(), bytes};
    if (shifting) {
      const SendRequest send{(me + 1) % p, std::span<const ConstBytes>(&out_piece, 1)};
      const RecvRequest recv{(me + p - 1) % p, std::span<const MutableBytes>(&in_piece, 1)};
      ep.exchange(std::span<const SendRequest>(&send, 1), std::span<const RecvRequest>(&recv, 1));
      return;
    }
    const SendRequest send{peer, std::span<const ConstBytes>(&out_piece, 1)};
    const RecvRequest recv{peer, std::span<const MutableBytes>(&in_piece, 1)};
    if (me % 2 == 0) {
      ep.exchange(std::span<const SendRequest>(&send, 1), {});
      ep.exchange({}, std::span<const RecvRequest>(&recv, 1));
    } else {
      ep.exchange({}, std::span<const RecvRequest>(&recv, 1));
      ep.exchange(std::span<const SendRequest>(&send, 1), {});
    }
  };

  for (std::size_t w : sizes) {
    const std::size_t bytes = w * options.word_bytes;
    // Warm up, then rank 0 times one operation and fixes the batch for everyone.
    std::array<double, 1> batch{1};
    if (active) {
      for (int i = 0; i < 3; ++i) op(bytes);
      const std::int64_t t0 = detail::monotonic_nanoseconds();
      op(bytes);
      batch[0] = detail::batch_for(options.min_sample_seconds, detail::seconds_since(t0));
    }
    detail::calibration_agree(ep, batch);
    if (!active) continue;
    const auto n = static_cast<std::size_t>(batch[0]);
    std::vector<double> times;
    for (std::size_t s = 0; s < options.samples; ++s) {
      const std::int64_t t0 = detail::monotonic_nanoseconds();
      for (std::size_t i = 0; i < n; ++i) op(bytes);
      times.push_back(detail::seconds_since(t0) / static_cast<double>(n) / messages_per_op);
    }
    if (me == 0) out.messages.push_back({static_cast<double>(w), detail::median(times)});
  }

  // Local work: t_r is what a word of rearrangement or combining costs in the executor,
  // timed on doubles and scaled to the model's word.
  if (me == 0) {
    const double doubles_per_word = static_cast<double>(options.word_bytes) / sizeof(double);
    for (std::size_t w : sizes) {
      const std::size_t n_doubles = std::max<std::size_t>(1, w * options.word_bytes / sizeof(double));
      std::vector<double> src(n_doubles, 1.0), dst(n_doubles, 0.0);
      detail::dependent_on<E, detail::CalibrationSelf> self;
      auto once = [&] {
        execute(detail::CalibrationLocalSchedule{}, self, src.data(), BlockLayout{n_doubles}, dst.data(),
                BlockLayout{n_doubles}, 0, [](double x, double y) { return x + y; });
      };
      std::vector<double> times;
      std::size_t n = 1;
      for (std::size_t s = 0; s <= options.samples; ++s) {
        const std::int64_t t0 = detail::monotonic_nanoseconds();
        for (std::size_t i = 0; i < n; ++i) once();
        const double t = detail::seconds_since(t0);
        if (s == 0) { // the first round sizes the batch
          n = t > 0 ? std::min<std::size_t>(static_cast<std::size_t>(options.min_sample_seconds / t) + 1, 1 << 16) : 64;
          continue;
        }
        times.push_back(t / static_cast<double>(n));
      }
      const volatile double sink = dst[n_doubles / 2]; // the combines' result is observed
      static_cast<void>(sink);
      out.copies.push_back({static_cast<double>(n_doubles) / doubles_per_word, detail::median(times)});
    }
    const auto [a, b] = detail::fit_relative(out.messages);
    const auto copy = detail::fit_relative(out.copies);
    // The fitted line a + b w is share t_s + t_sync + words t_w w (calibration_scale), a
    // divided between t_s and t_sync in the suggested model's proportion.
    const CalibrationScale scale = calibration_scale(base, options.pattern, p);
    const double suggested_start = scale.share * base.t_s + base.t_sync;
    const double k = suggested_start > 0 ? a / suggested_start : 0;
    const double ts = suggested_start > 0 ? k * base.t_s : a / scale.share;
    params = {ts, b / scale.words, suggested_start > 0 ? k * base.t_sync : 0, copy[1],
              detail::worst_relative_error(out.messages, a, b)};
  }
  detail::calibration_agree(ep, params);
  out.model = base;
  out.model.t_s = params[0];
  out.model.t_w = params[1];
  out.model.t_sync = params[2];
  out.model.t_r = params[3];
  out.model.routing = options.routing;
  out.model.ports = options.ports;
  out.worst_fit_error = params[4];
  return out;
}

/// The fitted model alone (see calibrate_detailed). collective: every rank must call it.
template <endpoint E>
CostModel calibrate(E& ep, const CalibrationOptions& options = {})
{
  return calibrate_detailed(ep, options).model;
}

} // namespace collectives

#if !COLLECTIVES_DETAIL_CORE_APART
#include <collectives/tuning/impl/calibrate.ipp>
#endif
