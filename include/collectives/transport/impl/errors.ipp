#pragma once
// The error texts' definitions (transport/errors.hpp declares them): included by that
// header, or compiled once with COLLECTIVES_SEPARATE_COMPILATION.

#include <collectives/transport/errors.hpp>

#include <string>

namespace collectives::detail {

COLLECTIVES_DECL std::string describe_step(const StepInfo* info)
{
  if (info == nullptr || info->call == 0) return "an exchange outside any collective call";
  std::string s(info->collective.empty() ? std::string_view{"a collective"} : info->collective);
  if (!info->algorithm.empty()) s += " (" + std::string(info->algorithm) + ")";
  s += ", call " + std::to_string(info->call) + ", step " + std::to_string(info->step) + " of " +
       std::to_string(info->steps);
  return s;
}

COLLECTIVES_DECL std::string element_counts(std::size_t want, std::size_t have, const StepInfo* info, bool both)
{
  if (info == nullptr || info->element_bytes == 0) return "";
  const std::size_t e = info->element_bytes;
  if (want % e != 0 || have % e != 0) return "";
  if (!both) return " (expects " + std::to_string(want / e) + " elements of " + std::to_string(e) + " bytes)";
  return " (" + std::to_string(want / e) + " and " + std::to_string(have / e) + " elements of " + std::to_string(e) +
         " bytes)";
}

COLLECTIVES_DECL std::string size_mismatch_text(const char* transport, std::size_t me, std::size_t peer,
                                                std::size_t want, std::size_t have, const StepInfo* info)
{
  return std::string(transport) + ": rank " + std::to_string(me) + " expects " + std::to_string(want) +
         " bytes from rank " + std::to_string(peer) + ", which sends " + std::to_string(have) + " bytes" +
         element_counts(want, have, info) + ", in " + describe_step(info) + ". " + mismatch_causes;
}

} // namespace collectives::detail
