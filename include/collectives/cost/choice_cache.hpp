#pragma once
// The default algorithms a communicator has picked, one per problem it has seen, so that
// a collective called in a loop selects once (cost/selection.hpp, detail::run_cheapest).

#include <collectives/cost/collective.hpp>

#include <array>
#include <cstddef>
#include <limits>

namespace collectives::detail {

/// A small cache of (collective, problem) -> candidate index; the oldest entry makes room.
class ChoiceCache {
public:
  static constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t capacity = 16;

  /// The index remembered for (c, problem), or npos.
  constexpr std::size_t find(Collective c, const Problem& problem) const
  {
    for (std::size_t i = 0; i < used_; ++i)
      if (entries_[i].collective == c && same(entries_[i].problem, problem)) return entries_[i].index;
    return npos;
  }
  constexpr void remember(Collective c, const Problem& problem, std::size_t index)
  {
    entries_[next_] = Entry{c, problem, index};
    next_ = (next_ + 1) % capacity;
    if (used_ < capacity) ++used_;
  }
  constexpr void clear() { used_ = next_ = 0; }
  constexpr std::size_t size() const { return used_; }

private:
  struct Entry {
    Collective collective{};
    Problem problem{};
    std::size_t index = npos;
  };
  static constexpr bool same(const Problem& a, const Problem& b)
  {
    return a.m == b.m && a.root == b.root && a.q == b.q && a.commutative == b.commutative &&
           a.in_place == b.in_place;
  }
  std::array<Entry, capacity> entries_{};
  std::size_t used_ = 0, next_ = 0;
};

} // namespace collectives::detail
