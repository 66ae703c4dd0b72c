#pragma once
// A small strict JSON reader for the tracing tests (RFC 8259: objects, arrays, strings
// with escapes, numbers, true/false/null). Anything else throws std::runtime_error.

#include <cstddef>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace collectives::testing::json {

struct Value;
using Object = std::map<std::string, Value>;
using Array = std::vector<Value>;

/// A JSON value.
struct Value {
  std::variant<std::nullptr_t, bool, double, std::string, std::shared_ptr<Array>, std::shared_ptr<Object>> v;

  bool is_object() const { return std::holds_alternative<std::shared_ptr<Object>>(v); }
  bool is_array() const { return std::holds_alternative<std::shared_ptr<Array>>(v); }
  const Object& object() const { return *std::get<std::shared_ptr<Object>>(v); }
  const Array& array() const { return *std::get<std::shared_ptr<Array>>(v); }
  const std::string& string() const { return std::get<std::string>(v); }
  double number() const { return std::get<double>(v); }
  /// Member `key` of an object; throws when missing.
  const Value& operator[](const std::string& key) const
  {
    const auto& o = object();
    const auto it = o.find(key);
    if (it == o.end()) throw std::runtime_error("json: no member " + key);
    return it->second;
  }
  bool has(const std::string& key) const { return is_object() && object().count(key) != 0; }
};

namespace detail {

class Reader {
public:
  explicit Reader(std::string_view s) : s_(s) {}
  Value document()
  {
    Value v = value();
    space();
    if (i_ != s_.size()) fail("content after the value");
    return v;
  }

private:
  [[noreturn]] void fail(const std::string& what) const
  {
    throw std::runtime_error("json: " + what + " at offset " + std::to_string(i_));
  }
  void space()
  {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r')) ++i_;
  }
  bool eat(char c)
  {
    space();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void expect(char c)
  {
    if (!eat(c)) fail(std::string("expected '") + c + "'");
  }
  bool word(std::string_view w)
  {
    if (s_.substr(i_, w.size()) != w) return false;
    i_ += w.size();
    return true;
  }
  Value value()
  {
    space();
    if (i_ >= s_.size()) fail("unexpected end");
    const char c = s_[i_];
    if (c == '{') return object();
    if (c == '[') return array();
    if (c == '"') return Value{string()};
    if (word("true")) return Value{true};
    if (word("false")) return Value{false};
    if (word("null")) return Value{nullptr};
    return Value{number()};
  }
  Value object()
  {
    ++i_;
    auto o = std::make_shared<Object>();
    if (eat('}')) return Value{o};
    do {
      space();
      if (i_ >= s_.size() || s_[i_] != '"') fail("expected a member name");
      std::string key = string();
      expect(':');
      if (!o->emplace(key, value()).second) fail("member " + key + " repeated");
    } while (eat(','));
    expect('}');
    return Value{o};
  }
  Value array()
  {
    ++i_;
    auto a = std::make_shared<Array>();
    if (eat(']')) return Value{a};
    do a->push_back(value());
    while (eat(','));
    expect(']');
    return Value{a};
  }
  std::string string()
  {
    ++i_;
    std::string out;
    while (i_ < s_.size() && s_[i_] != '"') {
      const char c = s_[i_++];
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= s_.size()) fail("unterminated escape");
      const char e = s_[i_++];
      switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        if (i_ + 4 > s_.size()) fail("short \\u escape");
        const unsigned long cp = std::strtoul(std::string(s_.substr(i_, 4)).c_str(), nullptr, 16);
        i_ += 4;
        if (cp < 0x80) out += static_cast<char>(cp);
        else out += '?'; // enough for these tests
        break;
      }
      default: fail("bad escape");
      }
    }
    if (i_ >= s_.size()) fail("unterminated string");
    ++i_;
    return out;
  }
  double number()
  {
    const std::size_t start = i_;
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    auto digits = [&] {
      const std::size_t d = i_;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
      return i_ - d;
    };
    const std::size_t int_start = i_;
    if (digits() == 0) fail("expected a value");
    if (s_[int_start] == '0' && i_ - int_start > 1) fail("leading zero");
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      if (digits() == 0) fail("digits expected after '.'");
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      if (digits() == 0) fail("digits expected in the exponent");
    }
    return std::strtod(std::string(s_.substr(start, i_ - start)).c_str(), nullptr);
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

} // namespace detail

/// Parses a whole document; throws std::runtime_error when it is not valid JSON.
inline Value parse(std::string_view text)
{
  return detail::Reader(text).document();
}

} // namespace collectives::testing::json
