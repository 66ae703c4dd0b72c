#pragma once
// How a communicator picks the algorithm of a collective called without one: by the cost
// model (cheapest predicted time for the call's problem, selection.hpp), remembering each
// pick per problem so a loop of calls selects once.

#include <collectives/algorithm/collective.hpp>
#include <collectives/cost/model.hpp>
#include <collectives/detail/require.hpp>

#include <array>
#include <cstddef>
#include <limits>

namespace collectives {

/// A cost model with the size of its word, and the picks made with it. Every rank of a
/// communicator must use the same policy, so that every rank picks the same algorithm.
class SelectionPolicy {
public:
  static constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();
  /// How many picks are remembered (the oldest makes room).
  static constexpr std::size_t capacity = 16;

  /// `word_bytes`: the size of the model's word (message sizes are converted to words).
  /// Requirements: a valid model (CostModel::validated), word_bytes >= 1;
  /// std::invalid_argument otherwise.
  constexpr explicit SelectionPolicy(const CostModel& model = default_cost_model, std::size_t word_bytes = 8)
  {
    set_model(model, word_bytes);
  }

  constexpr const CostModel& model() const { return model_; }
  constexpr std::size_t word_bytes() const { return word_bytes_; }
  /// Replaces the model and forgets the picks made with the old one (the old model is
  /// kept when the new one is rejected).
  constexpr void set_model(const CostModel& model, std::size_t word_bytes = 8)
  {
    model.validated();
    detail::require(word_bytes >= 1, "collectives::SelectionPolicy: word_bytes must be at least 1");
    model_ = model;
    word_bytes_ = word_bytes;
    clear();
  }
  /// `bytes` in the model's words.
  constexpr double words(std::size_t bytes) const
  {
    return static_cast<double>(bytes) / static_cast<double>(word_bytes_);
  }

  /// The pick remembered for (c, problem), or else choose() remembered.
  template <class Choose>
  constexpr std::size_t pick(Collective c, const Problem& problem, Choose&& choose)
  {
    for (std::size_t i = 0; i < used_; ++i)
      if (entries_[i].collective == c && same(entries_[i].problem, problem)) return entries_[i].index;
    const std::size_t index = choose();
    entries_[next_] = Entry{c, problem, index};
    next_ = (next_ + 1) % capacity;
    if (used_ < capacity) ++used_;
    return index;
  }
  /// Number of picks remembered.
  constexpr std::size_t remembered() const { return used_; }
  constexpr void clear() { used_ = next_ = 0; }

private:
  struct Entry {
    Collective collective{};
    Problem problem{};
    std::size_t index = npos;
  };
  static constexpr bool same(const Problem& a, const Problem& b)
  {
    return a.m == b.m && a.root == b.root && a.q == b.q && a.commutative == b.commutative &&
           a.in_place == b.in_place && a.exclusive == b.exclusive;
  }
  CostModel model_{};
  std::size_t word_bytes_ = 8;
  std::array<Entry, capacity> entries_{};
  std::size_t used_ = 0, next_ = 0;
};

} // namespace collectives
