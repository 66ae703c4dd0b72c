#pragma once
// Where the rooted reductions keep their partial results.

namespace collectives {

/// Where a reduction keeps its partial results.
enum class Partials : unsigned char {
  scratch,   ///< in scratch on every rank but the root (the output is the root's only)
  output,    ///< in the output on every rank (loaded from the input first)
  in_place,  ///< in the output, which already holds the contributions
};

} // namespace collectives
