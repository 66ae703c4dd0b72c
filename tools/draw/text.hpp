#pragma once
// collectives-draw --text: the picture's steps as a table, one line per message:
// step (from 1, like the seeds), from, to, blocks, hops, link load (most messages on one
// directed link of the message's route in that step) and what it carries.

#include "picture.hpp"

#include <cstdio>
#include <sstream>
#include <string>

namespace collectives::draw {

/// The table of `pic`, with a heading line.
inline std::string text(const Picture& pic, const std::string& title)
{
  std::ostringstream o;
  o << title << "\n";
  char line[160];
  std::snprintf(line, sizeof line, "%5s %5s %5s %7s %5s %10s  %s\n", "step", "from", "to", "blocks", "hops",
                "link load", "carries");
  o << line;
  for (std::size_t k = 0; k < pic.steps.size(); ++k) {
    const Step& step = pic.steps[k];
    if (step.messages.empty()) {
      std::snprintf(line, sizeof line, "%5zu %s\n", k + 1, step.locals > 0 ? "(local moves only)" : "(nothing)");
      o << line;
    }
    for (const Message& m : step.messages) {
      std::snprintf(line, sizeof line, "%5zu %5zu %5zu %7zu %5zu %10zu  ", k + 1, m.from, m.to, m.blocks,
                    m.route.size(), m.load);
      o << line << (m.combines ? "+= " : "") << m.contents << "\n";
    }
  }
  return o.str();
}

} // namespace collectives::draw
