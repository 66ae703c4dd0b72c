#pragma once
// A user's schedule for the tests of execute(): two ranks swap block 0 of their input into
// block 0 of their output, in one step. The executor makes its plan on every call and never
// keeps it (the library cannot know that its steps depend on its value alone).

#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>

#include <cstddef>

namespace collectives::testing {

struct Swap {
  struct Op {};
  constexpr std::size_t size() const { return 2; }
  constexpr std::size_t num_steps() const { return 1; }
  constexpr std::size_t scratch_blocks() const { return 0; }
  constexpr Op operation() const { return {}; }
  template <class V>
  constexpr void visit(std::size_t r, std::size_t, V& v) const
  {
    v.send({1 - r, contiguous(Buffer::input, 0, 1)});
    v.recv({1 - r, contiguous(Buffer::output, 0, 1)});
  }
};

} // namespace collectives::testing
