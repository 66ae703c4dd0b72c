#pragma once
// The one validator: a failed check throws, which is a compile error during constant
// evaluation (throwing is not a constant expression) and an exception at run time.

#include <stdexcept>
#include <string>
#include <string_view>

namespace collectives::detail {

// Out of line and never constexpr, so a failing check in constant evaluation stops the
// compiler at a call whose argument is the message.
[[noreturn]] inline void throw_invalid_argument(std::string_view what)
{
  throw std::invalid_argument(std::string(what));
}

[[noreturn]] inline void throw_length_error(std::string_view what)
{
  throw std::length_error(std::string(what));
}

/// Throws std::invalid_argument(what) unless ok; a compile error in constant evaluation.
constexpr void require(bool ok, std::string_view what)
{
  if (!ok) throw_invalid_argument(what);
}

/// Decimal text of n; used to build messages on the failure path only.
inline std::string to_text(unsigned long long n) { return std::to_string(n); }

} // namespace collectives::detail
