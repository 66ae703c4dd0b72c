#pragma once
// Small helpers shared by the tools that write SVG: numbers in a compact form and text
// escaped for XML (element content and attribute values alike).

#include <sstream>
#include <string>
#include <string_view>

namespace collectives::tools {

/// x with up to 6 significant digits ("12.5", "1e-06").
inline std::string fmt(double x)
{
  std::ostringstream o;
  o.precision(6);
  o << x;
  return o.str();
}

/// `in` with the five XML special characters escaped.
inline std::string escape(std::string_view in)
{
  std::string out;
  for (char c : in) {
    switch (c) {
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '&': out += "&amp;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&apos;"; break;
    default: out += c;
    }
  }
  return out;
}

} // namespace collectives::tools
