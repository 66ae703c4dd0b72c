#pragma once
// How a communicator picks the algorithm of a collective called without one: by the cost
// model (cheapest predicted time for the call's problem, selection.hpp), remembering each
// pick per problem and root so a loop of calls selects once.

#include <collectives/algorithm/collective.hpp>
#include <collectives/cost/model.hpp>
#include <collectives/detail/dependent.hpp>
#include <collectives/detail/require.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace collectives {

/// A cost model with the size of its word, and the picks made with it. Every rank of a
/// communicator must use the same policy, so that every rank picks the same algorithm.
class SelectionPolicy {
public:
  static constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();
  /// How many problems (without their roots) have their picks remembered (the least
  /// recently used makes room). Their entries are allocated as problems come.
  static constexpr std::size_t capacity = 1024;

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

  /// The pick remembered for (c, problem), or else choose() remembered. Picks are kept per
  /// problem without its root (up to `capacity` of them, the least recently used making
  /// room), each with one pick per root: a loop whose root moves from rank to rank (a
  /// broadcast of the k-th pivot row from rank k % p) selects once per root, not on every
  /// call; so does a loop over up to `capacity` sizes. (A selection estimates every
  /// candidate on every rank: 1.5 us at p = 2, 7 us at p = 8, 70 us at p = 32, where a call
  /// that finds its pick takes 50-100 ns of the library's own work; a look-up that is not
  /// the collective's latest probes a hash table.)
  /// Allocates only when a problem or root is new.
  template <class Choose>
  constexpr std::size_t pick(Collective c, const Problem& problem, Choose&& choose)
  {
    ++clock_;
    std::uint64_t key = 0;
    Entry* slot = find(c, problem, key);
    if (slot != nullptr && problem.root < slot->by_root.size() && slot->by_root[problem.root] != unknown) {
      slot->last_use = clock_;
      return slot->by_root[problem.root];
    }
    const std::size_t index = choose(); // may throw: nothing is changed before it returns
    // (Named through Choose, so that clang++ compiles it only where something picks.)
    return remember<detail::dependent_on<Choose, int>>(c, problem, key, slot, index);
  }

  /// Number of picks remembered (one per problem and root).
  constexpr std::size_t remembered() const { return remembered_; }
  /// Changes whenever the picks may change: the picks are forgotten (clear(),
  /// set_model()) or the policy is assigned another's (a call that ran before may pick
  /// another algorithm now; the collectives run a call again only within one epoch).
  constexpr std::uint64_t epoch() const { return epoch_.value; }
  constexpr void clear()
  {
    ++epoch_.value;
    for (std::size_t i = 0; i < used_; ++i) {
      entries_[i].by_root.clear();
      entries_[i].picks = 0;
    }
    for (auto& t : table_) t = 0;
    used_ = remembered_ = 0;
  }

private:
  struct Entry {
    Collective collective{};
    Problem problem{};                 // its root is not compared
    std::vector<std::uint8_t> by_root; // the pick for each root, or `unknown`
    std::size_t picks = 0;             // entries of by_root that are not `unknown`
    std::uint64_t last_use = 0;
  };
  static constexpr std::uint8_t unknown = 0xff;
  static_assert(capacity < 65536, "latest_ holds an entry's index in 16 bits");
  static constexpr std::size_t max_root = std::size_t{1} << 24; // a pick per root: a byte each
  static constexpr bool same(const Problem& a, const Problem& b)
  {
    return a.m == b.m && a.q == b.q && a.commutative == b.commutative && a.in_place == b.in_place &&
           a.exclusive == b.exclusive;
  }
  /// A hash of everything same() compares, and the collective.
  static constexpr std::uint64_t key_of(Collective c, const Problem& pr)
  {
    std::uint64_t h = std::bit_cast<std::uint64_t>(pr.m + 0.0); // -0.0 and 0.0 are one size
    h ^= static_cast<std::uint64_t>(pr.q) * 0x9e3779b97f4a7c15ull;
    h ^= (static_cast<std::uint64_t>(c) << 3 | std::uint64_t{pr.commutative} << 2 | std::uint64_t{pr.in_place} << 1 |
          std::uint64_t{pr.exclusive}) * 0xc2b2ae3d27d4eb4full;
    return h ^ (h >> 29);
  }
  /// The entry of (c, problem): the collective's latest first (a loop that repeats one call
  /// looks at one entry, and hashes nothing), else the one the hash table finds. Sets `key`
  /// (the hash) when it looks in the table.
  constexpr Entry* find(Collective c, const Problem& problem, std::uint64_t& key)
  {
    const std::size_t latest = latest_[static_cast<std::size_t>(c)];
    if (latest < used_ && entries_[latest].collective == c && same(entries_[latest].problem, problem))
      return &entries_[latest];
    key = key_of(c, problem);
    if (table_.empty()) return nullptr;
    for (std::size_t t = home(key); table_[t] != 0; t = (t + 1) & (table_size - 1)) {
      const std::size_t i = table_[t] - 1u;
      if (keys_[i] == key && entries_[i].collective == c && same(entries_[i].problem, problem)) {
        latest_[static_cast<std::size_t>(c)] = static_cast<std::uint16_t>(i);
        return &entries_[i];
      }
    }
    return nullptr;
  }
  // The hash table: open addressing with linear probing over table_size slots (twice the
  // capacity, so probes stay short), each the index + 1 of an entry in use (0: empty).
  static constexpr std::size_t table_size = 2 * capacity;
  static_assert((table_size & (table_size - 1)) == 0, "the table's size is a power of two");
  /// A key's first slot: the top bits of a multiplicative hash (the key's own low bits
  /// vary little between sizes, whose doubles differ in their high bits).
  static constexpr std::size_t home(std::uint64_t key)
  {
    return static_cast<std::size_t>((key * 0x9e3779b97f4a7c15ull) >> 53) & (table_size - 1);
  }
  static_assert(table_size <= (std::size_t{1} << 11), "home() takes 11 bits");
  constexpr void table_insert(std::size_t i)
  {
    std::size_t t = home(keys_[i]);
    while (table_[t] != 0) t = (t + 1) & (table_size - 1);
    table_[t] = static_cast<std::uint16_t>(i + 1);
  }
  /// Removes entry i from the table, moving back the entries after it that would otherwise
  /// no longer be found from their home slot (deletion without tombstones).
  constexpr void table_erase(std::size_t i)
  {
    std::size_t hole = home(keys_[i]);
    while (table_[hole] != i + 1) hole = (hole + 1) & (table_size - 1);
    for (std::size_t t = (hole + 1) & (table_size - 1); table_[t] != 0; t = (t + 1) & (table_size - 1)) {
      const std::size_t h = home(keys_[table_[t] - 1u]);
      // The entry at t may fill the hole when its home is not cyclically in (hole, t].
      const bool reachable = hole < t ? (h > hole && h <= t) : (h > hole || h <= t);
      if (!reachable) {
        table_[hole] = table_[t];
        hole = t;
      }
    }
    table_[hole] = 0;
  }
  CostModel model_{};
  std::size_t word_bytes_ = 8;
  // Entries (and their keys) as problems come, up to `capacity`: a communicator that calls
  // a few problems keeps a few.
  std::vector<std::uint64_t> keys_; // key_of each entry
  std::vector<Entry> entries_;
  std::vector<std::uint16_t> table_; // allocated with the first entry
  std::array<std::uint16_t, all_collectives.size()> latest_{}; // per collective: its latest entry
  std::size_t used_ = 0, remembered_ = 0;
  // Assigned another policy's, it moves past both: never an epoch this policy had.
  struct Epoch {
    std::uint64_t value = 0;
    constexpr Epoch() = default;
    constexpr Epoch(const Epoch&) = default;
    constexpr Epoch& operator=(const Epoch& other) noexcept
    {
      value = (value > other.value ? value : other.value) + 1;
      return *this;
    }
  };
  Epoch epoch_;
  std::size_t widest_ = 0; // the most roots of any entry so far
  std::uint64_t clock_ = 0;

  /// pick()'s second half, once `index` is chosen: one body for every pick (a template
  /// only so that a translation unit that never picks does not compile it).
  template <class Later = int>
  constexpr std::size_t remember(Collective c, const Problem& problem, std::uint64_t key, Entry* slot, std::size_t index)
  {
    if (index >= unknown || problem.root >= max_root) return index; // not kept (no list is that long)
    if (slot == nullptr) {
      std::size_t at = used_ < capacity ? used_ : 0;
      if (used_ == capacity)
        for (std::size_t i = 1; i < capacity; ++i)
          if (entries_[i].last_use < entries_[at].last_use) at = i;
      // The vectors' growth through types that depend on Later (detail/dependent.hpp): a
      // translation unit that never picks does not compile it (20 ms with clang++).
      if (at == entries_.size()) { // a new entry (kept, empty, by clear())
        detail::deferred<Later>(entries_).emplace_back();
        detail::deferred<Later>(keys_).push_back(0);
        if (table_.empty()) detail::deferred<Later>(table_).assign(table_size, 0);
      } else if (at < used_) {
        table_erase(at); // the least recently used problem makes room
      }
      slot = &entries_[at];
      // Reuses the old problem's memory, made as wide as the widest problem's: a loop over
      // more problems than kept allocates nothing once every root has come.
      widest_ = std::max(widest_, problem.root + 1);
      detail::deferred<Later>(slot->by_root).reserve(widest_);
      detail::deferred<Later>(slot->by_root).assign(problem.root + 1, unknown);
      if (used_ < capacity) ++used_;
      remembered_ -= slot->picks;
      slot->collective = c;
      slot->problem = problem;
      slot->picks = 0;
      keys_[at] = key;
      table_insert(at);
    } else if (problem.root >= slot->by_root.size()) {
      widest_ = std::max(widest_, problem.root + 1);
      detail::deferred<Later>(slot->by_root).resize(problem.root + 1, unknown);
    }
    slot->by_root[problem.root] = static_cast<std::uint8_t>(index);
    slot->last_use = clock_;
    ++slot->picks;
    ++remembered_;
    latest_[static_cast<std::size_t>(c)] = static_cast<std::uint16_t>(slot - entries_.data());
    return index;
  }
};

} // namespace collectives
