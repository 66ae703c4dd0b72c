#pragma once
// A small strict XML reader for the tools' tests: elements, attributes (quoted), text,
// comments, the XML declaration and the five predefined entities plus numeric ones.
// Anything else that is not well-formed (a tag closed by another name, an unquoted or
// repeated attribute, a stray '<' or '&', text after the root) throws std::runtime_error
// saying where.

#include <cstddef>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace collectives::testing::xml {

/// One element: its name, attributes, text content (concatenated) and children.
struct Element {
  std::string name;
  std::map<std::string, std::string> attributes;
  std::string text;
  std::vector<std::unique_ptr<Element>> children;

  /// The attribute's value; throws when it is missing.
  const std::string& at(const std::string& key) const
  {
    const auto it = attributes.find(key);
    if (it == attributes.end()) throw std::runtime_error("xml: <" + name + "> has no attribute " + key);
    return it->second;
  }
  bool has(const std::string& key) const { return attributes.count(key) != 0; }
  /// Every descendant (this one first), depth first.
  template <class F>
  void walk(F&& f) const
  {
    f(*this);
    for (const auto& c : children) c->walk(f);
  }
};

namespace detail {

class Reader {
public:
  explicit Reader(std::string_view s) : s_(s) {}

  std::unique_ptr<Element> document()
  {
    skip_misc(true);
    if (!peek('<')) fail("expected the root element");
    auto root = element();
    skip_misc(false);
    if (i_ != s_.size()) fail("content after the root element");
    return root;
  }

private:
  [[noreturn]] void fail(const std::string& what) const
  {
    throw std::runtime_error("xml: " + what + " at offset " + std::to_string(i_));
  }
  bool peek(char c) const { return i_ < s_.size() && s_[i_] == c; }
  bool starts(std::string_view t) const { return s_.substr(i_, t.size()) == t; }
  void space()
  {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r')) ++i_;
  }
  void skip_misc(bool prolog)
  {
    for (;;) {
      space();
      if (prolog && starts("<?xml")) {
        const auto end = s_.find("?>", i_);
        if (end == std::string_view::npos) fail("unterminated XML declaration");
        i_ = end + 2;
        prolog = false;
      } else if (starts("<!--")) {
        comment();
      } else {
        return;
      }
    }
  }
  void comment()
  {
    const auto end = s_.find("-->", i_ + 4);
    if (end == std::string_view::npos) fail("unterminated comment");
    i_ = end + 3;
  }
  static bool name_char(char c)
  {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == ':' || c == '.';
  }
  std::string name()
  {
    const std::size_t start = i_;
    while (i_ < s_.size() && name_char(s_[i_])) ++i_;
    if (i_ == start || (s_[start] >= '0' && s_[start] <= '9') || s_[start] == '-') fail("expected a name");
    return std::string(s_.substr(start, i_ - start));
  }
  void append_utf8(std::string& out, unsigned long cp)
  {
    if (cp < 0x80) out += static_cast<char>(cp);
    else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  void entity(std::string& out)
  {
    const auto end = s_.find(';', i_);
    if (end == std::string_view::npos || end - i_ > 10) fail("a '&' that starts no entity");
    const std::string_view e = s_.substr(i_ + 1, end - i_ - 1);
    if (e == "lt") out += '<';
    else if (e == "gt") out += '>';
    else if (e == "amp") out += '&';
    else if (e == "quot") out += '"';
    else if (e == "apos") out += '\'';
    else if (e.size() > 1 && e[0] == '#') {
      const bool hex = e[1] == 'x';
      const std::string digits(e.substr(hex ? 2 : 1));
      std::size_t used = 0;
      unsigned long cp = 0;
      try {
        cp = std::stoul(digits, &used, hex ? 16 : 10);
      } catch (const std::exception&) {
        fail("bad character reference");
      }
      if (used != digits.size()) fail("bad character reference");
      append_utf8(out, cp);
    } else {
      fail("unknown entity &" + std::string(e) + ";");
    }
    i_ = end + 1;
  }
  std::unique_ptr<Element> element()
  {
    ++i_; // '<'
    auto el = std::make_unique<Element>();
    el->name = name();
    for (;;) {
      const std::size_t before = i_;
      space();
      if (starts("/>")) {
        i_ += 2;
        return el;
      }
      if (peek('>')) {
        ++i_;
        break;
      }
      if (i_ == before) fail("expected whitespace before an attribute");
      std::string key = name();
      space();
      if (!peek('=')) fail("attribute " + key + " has no value");
      ++i_;
      space();
      if (!peek('"') && !peek('\'')) fail("attribute " + key + " is not quoted");
      const char q = s_[i_++];
      std::string value;
      while (i_ < s_.size() && s_[i_] != q) {
        if (s_[i_] == '<') fail("'<' in an attribute value");
        if (s_[i_] == '&') entity(value);
        else value += s_[i_++];
      }
      if (i_ >= s_.size()) fail("unterminated attribute value");
      ++i_;
      if (!el->attributes.emplace(key, value).second) fail("attribute " + key + " repeated");
    }
    // Content.
    for (;;) {
      if (i_ >= s_.size()) fail("<" + el->name + "> is never closed");
      if (starts("</")) {
        i_ += 2;
        const std::string closing = name();
        if (closing != el->name) fail("<" + el->name + "> closed by </" + closing + ">");
        space();
        if (!peek('>')) fail("expected '>'");
        ++i_;
        return el;
      }
      if (starts("<!--")) comment();
      else if (peek('<')) el->children.push_back(element());
      else if (peek('&')) entity(el->text);
      else el->text += s_[i_++];
    }
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

} // namespace detail

/// Parses a whole document; throws std::runtime_error when it is not well-formed.
inline std::unique_ptr<Element> parse(std::string_view text)
{
  return detail::Reader(text).document();
}

} // namespace collectives::testing::xml
