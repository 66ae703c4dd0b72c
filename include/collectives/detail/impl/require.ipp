#pragma once
// The message builders of detail/require.hpp: included by that header, or compiled once
// with COLLECTIVES_SEPARATE_COMPILATION (collectives/separate_compilation.hpp).

#include <collectives/detail/require.hpp>

#include <initializer_list>
#include <stdexcept>
#include <string>

namespace collectives::detail {

COLLECTIVES_DECL std::string text_of(std::initializer_list<TextPiece> pieces)
{
  std::string s;
  for (const TextPiece& p : pieces) {
    if (!p.is_number) {
      s += p.text;
      continue;
    }
    if (p.negative) s += '-';
    s += std::to_string(p.number);
  }
  return s;
}

COLLECTIVES_DECL void throw_invalid(std::initializer_list<TextPiece> pieces)
{
  throw std::invalid_argument(text_of(pieces));
}

COLLECTIVES_DECL void throw_length(std::initializer_list<TextPiece> pieces)
{
  throw std::length_error(text_of(pieces));
}

} // namespace collectives::detail
