#pragma once
// The errors transports report when ranks disagree or fail, and the wording they share:
// every mismatch names the collective, algorithm, call and step (StepInfo) on both sides
// where known, the byte counts, and the likely cause.

#include <collectives/detail/config.hpp>
#include <collectives/transport/concepts.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace collectives {

/// Thrown on a rank that was waiting for a rank that failed (or returned early).
class RankFailed : public std::runtime_error {
public:
  RankFailed(std::size_t failed_rank, const std::string& what)
    : std::runtime_error(what), failed_rank_(failed_rank) {}
  /// The rank whose failure released this one.
  std::size_t failed_rank() const noexcept { return failed_rank_; }

private:
  std::size_t failed_rank_;
};

/// Ranks made collective calls that do not match: a message of one call or step met a
/// receive of another (different collectives, roots, algorithms or counts on some rank),
/// or a message was never received. Size mismatches stay std::length_error.
class CallMismatch : public std::logic_error {
public:
  using std::logic_error::logic_error;
};

/// Every live rank of a team waits and no message can move (threads transport): thrown
/// on every one of them; what() says which rank waits for which, where.
class Deadlock : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

namespace detail {

/// "broadcast (binomial), call 3, step 1 of 2"; "an exchange outside any collective" when
/// the caller gave no StepInfo.
COLLECTIVES_COLD COLLECTIVES_DECL std::string describe_step(const StepInfo* info);

/// " (1000 and 4000 elements of 4 bytes)" when the call's element size is known; without
/// `both`, " (expects 1000 elements of 4 bytes)" (a receiver that cannot tell how much more
/// was sent).
COLLECTIVES_COLD COLLECTIVES_DECL std::string element_counts(std::size_t want, std::size_t have, const StepInfo* info,
                                                            bool both = true);

/// The usual reasons ranks disagree, appended to every mismatch message.
inline constexpr const char* mismatch_causes =
  "Likely cause: the ranks made different collective calls (another collective, root, count or "
  "algorithm on some rank, or a call missing on some rank), or some rank selects defaults with a "
  "different cost model (set_cost_model / calibrate on one rank only).";

/// "rank 1 expects 4000 bytes from rank 0, which sends 16000 bytes, in broadcast (binomial),
/// call 3, step 1 of 2. <causes>" (the first words are what earlier releases said).
COLLECTIVES_COLD COLLECTIVES_DECL std::string size_mismatch_text(const char* transport, std::size_t me, std::size_t peer,
                                                std::size_t want, std::size_t have, const StepInfo* info);

} // namespace detail

} // namespace collectives

#if !COLLECTIVES_DETAIL_CORE_APART
#include <collectives/transport/impl/errors.ipp>
#endif
