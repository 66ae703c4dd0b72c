#pragma once
// The one validator: a failed check throws, which is a compile error during constant
// evaluation (throwing is not a constant expression) and an exception at run time.

#include <collectives/detail/config.hpp>

#include <concepts>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>

namespace collectives::detail {

// Out of line and never constexpr, so a failing check in constant evaluation stops the
// compiler at a call whose argument is the message.
[[noreturn]] COLLECTIVES_COLD inline void throw_invalid_argument(std::string_view what)
{
  throw std::invalid_argument(std::string(what));
}

[[noreturn]] COLLECTIVES_COLD inline void throw_length_error(std::string_view what)
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

/// One piece of an error message: text, or an integer written in decimal. A message made of
/// pieces is put together by throw_invalid / throw_length, which are compiled once in the
/// compiled mode, so a call site holds no string code (a front end's checks are inlined
/// into every call of it).
struct TextPiece {
  constexpr TextPiece(std::string_view s) noexcept : text(s) {}
  constexpr TextPiece(const char* s) noexcept : text(s) {}
  template <std::integral I>
    requires(!std::same_as<I, bool> && !std::same_as<I, char>)
  constexpr TextPiece(I n) noexcept
      : number(n < 0 ? 0 - static_cast<unsigned long long>(n) : static_cast<unsigned long long>(n)),
        is_number(true), negative(n < 0)
  {
  }
  std::string_view text;
  unsigned long long number = 0;
  bool is_number = false;
  bool negative = false;
};

/// The text of `pieces`, in order.
COLLECTIVES_COLD COLLECTIVES_DECL std::string text_of(std::initializer_list<TextPiece> pieces);

/// Throws std::invalid_argument with the text of `pieces`.
[[noreturn]] COLLECTIVES_COLD COLLECTIVES_DECL void throw_invalid(std::initializer_list<TextPiece> pieces);

/// Throws std::length_error with the text of `pieces`.
[[noreturn]] COLLECTIVES_COLD COLLECTIVES_DECL void throw_length(std::initializer_list<TextPiece> pieces);

} // namespace collectives::detail

#if !COLLECTIVES_DETAIL_CORE_APART
#include <collectives/detail/impl/require.ipp>
#endif
