// Environment variables -> Config.

#include "config.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace collectives::pmpi {

namespace {

constexpr std::string_view prefix = "COLLECTIVES_";

std::string upper(std::string_view s)
{
  std::string u(s);
  for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return u;
}

std::string trim(std::string_view s)
{
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

bool parse_double(std::string_view text, double& out)
{
  const std::string t = trim(text);
  if (t.empty()) return false;
  char* end = nullptr;
  out = std::strtod(t.c_str(), &end);
  return end == t.c_str() + t.size() && std::isfinite(out) && out >= 0;
}

bool parse_size(std::string_view text, std::size_t& out)
{
  const std::string t = trim(text);
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
  return !t.empty() && ec == std::errc{} && end == t.data() + t.size();
}

// "t_s,t_w[,t_h[,t_r[,t_sync,lanes,half_duplex,crossbar,t_fresh]]]" (the numbers a model
// file resolves to, too; half_duplex and crossbar 0 or 1).
bool parse_model_numbers(std::string_view text, CostModel& model)
{
  std::vector<double> v;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = text.find(',', at);
    const std::string_view part = text.substr(at, comma == std::string_view::npos ? std::string_view::npos : comma - at);
    double x = 0;
    if (!parse_double(part, x)) return false;
    v.push_back(x);
    if (comma == std::string_view::npos) break;
    at = comma + 1;
  }
  if (v.size() < 2 || (v.size() > 4 && v.size() != 9)) return false;
  const auto flag = [](double x) { return x == 0 || x == 1; };
  if (v.size() == 9 && (v[5] != std::floor(v[5]) || v[5] > 1e9 || !flag(v[6]) || !flag(v[7]))) return false;
  model.t_s = v[0];
  model.t_w = v[1];
  if (v.size() > 2) model.t_h = v[2];
  if (v.size() > 3) model.t_r = v[3];
  if (v.size() == 9) {
    model.t_sync = v[4];
    model.lanes = static_cast<std::size_t>(v[5]);
    model.half_duplex = v[6] == 1;
    model.crossbar = v[7] == 1;
    model.t_fresh = v[8];
  }
  return true;
}

// The variables the shim reads, for the messages on others.
constexpr const char* variables_read_text =
  "the shim reads COLLECTIVES_PMPI_VERBOSE, COLLECTIVES_PMPI_DISABLE, COLLECTIVES_PMPI_MAX_MESSAGE_BYTES, "
  "COLLECTIVES_PMPI_ROUND, COLLECTIVES_TOPOLOGY, COLLECTIVES_MODEL, COLLECTIVES_MODEL_SAVE and "
  "COLLECTIVES_<COLLECTIVE>_ALGORITHM, and the MPI transport COLLECTIVES_MPI_TIMEOUT and COLLECTIVES_MPI_CHECK";

// What COLLECTIVES_MODEL takes, for its error messages.
constexpr const char* model_forms = "t_s,t_w[,t_h[,t_r]] in seconds (t_w per 8-byte word), or those four and "
                                    "t_sync,lanes,half_duplex,crossbar,t_fresh; 'calibrate', 'default' or a model file";

// A model file: lines "key value" or "key = value" for t_s, t_w, t_h, t_r, t_sync, lanes,
// half_duplex, crossbar (0 or 1), t_fresh, word_bytes; '#' starts a comment. Returns
// "t_s,t_w,t_h,t_r,t_sync,lanes,half_duplex,crossbar,t_fresh;word_bytes" or throws.
std::string read_model_file(const std::string& path)
{
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("cannot read the model file " + path + " (expected " + model_forms + ")");
  CostModel m = default_cost_model;
  std::size_t word_bytes = 8;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    for (char& c : line)
      if (c == '=') c = ' ';
    std::istringstream words(line);
    std::string key, value, extra;
    if (!(words >> key)) continue;
    if (!(words >> value) || (words >> extra))
      throw std::invalid_argument(path + ":" + std::to_string(n) + ": expected 'key value'");
    double x = 0;
    if (key == "word_bytes") {
      if (!parse_size(value, word_bytes) || word_bytes == 0)
        throw std::invalid_argument(path + ":" + std::to_string(n) + ": word_bytes must be a positive integer");
      continue;
    }
    if (key == "lanes") {
      if (!parse_size(value, m.lanes) || m.lanes > 1000000000)
        throw std::invalid_argument(path + ":" + std::to_string(n) + ": lanes must be an integer >= 0");
      continue;
    }
    if (key == "half_duplex" || key == "crossbar") {
      if (value != "0" && value != "1")
        throw std::invalid_argument(path + ":" + std::to_string(n) + ": " + key + " must be 0 or 1");
      (key == "half_duplex" ? m.half_duplex : m.crossbar) = value == "1";
      continue;
    }
    if (!parse_double(value, x))
      throw std::invalid_argument(path + ":" + std::to_string(n) + ": " + key + " must be a finite number >= 0");
    if (key == "t_s") m.t_s = x;
    else if (key == "t_w") m.t_w = x;
    else if (key == "t_h") m.t_h = x;
    else if (key == "t_r") m.t_r = x;
    else if (key == "t_sync") m.t_sync = x;
    else if (key == "t_fresh") m.t_fresh = x;
    else
      throw std::invalid_argument(path + ":" + std::to_string(n) + ": unknown key " + key +
                                  " (valid: t_s, t_w, t_h, t_r, t_sync, lanes, half_duplex, crossbar, t_fresh, "
                                  "word_bytes)");
  }
  char buf[300];
  std::snprintf(buf, sizeof buf, "%.17g,%.17g,%.17g,%.17g,%.17g,%zu,%d,%d,%.17g;%zu", m.t_s, m.t_w, m.t_h, m.t_r,
                m.t_sync, m.lanes, m.half_duplex ? 1 : 0, m.crossbar ? 1 : 0, m.t_fresh, word_bytes);
  return buf;
}

std::string valid_collectives()
{
  std::string s;
  for (std::size_t i = 0; i < num_colls; ++i) s += (i ? ", " : "") + upper(coll_name(static_cast<Coll>(i)));
  return s;
}

} // namespace

std::string config_text(char** environ)
{
  std::string out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view var(*e);
    if (var.substr(0, prefix.size()) != prefix) continue;
    const std::size_t eq = var.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view name = var.substr(0, eq), value = var.substr(eq + 1);
    if (value.find('\n') != std::string_view::npos) continue; // cannot be one of ours
    std::string line = std::string(var);
    if (name == "COLLECTIVES_MODEL") {
      CostModel m;
      if (value != "calibrate" && value != "default" && !parse_model_numbers(value, m)) {
        try {
          line = "COLLECTIVES_MODEL_FILE=" + std::string(value) + "\nCOLLECTIVES_MODEL=" + read_model_file(std::string(value));
        } catch (const std::exception& ex) {
          line = "COLLECTIVES_MODEL_ERROR=" + std::string(ex.what());
        }
      }
    }
    out += line;
    out += '\n';
  }
  return out;
}

Config parse_config(std::string_view text)
{
  Config c;
  std::string file;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    const std::size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string name(line.substr(0, eq));
    const std::string value = trim(line.substr(eq + 1));
    auto bad = [&](const std::string& why) { throw std::invalid_argument(name + "=" + value + ": " + why); };

    if (name == "COLLECTIVES_PMPI_VERBOSE") {
      std::size_t v = 0;
      if (!parse_size(value, v) || v > 2) bad("must be 0, 1 or 2");
      c.verbose = static_cast<int>(v);
    } else if (name == "COLLECTIVES_PMPI_DISABLE") {
      if (value != "0" && value != "1") bad("must be 0 or 1");
      c.enabled = value == "0";
    } else if (name == "COLLECTIVES_PMPI_MAX_MESSAGE_BYTES") {
      std::size_t v = 0;
      if (!parse_size(value, v) || v == 0 || v > static_cast<std::size_t>(INT_MAX)) bad("must be in 1 .. 2147483647");
      c.transport.max_message_bytes = v;
    } else if (name == "COLLECTIVES_PMPI_ROUND") {
      if (!parse_size(value, c.round)) bad("must be a number");
    } else if (name == "COLLECTIVES_TOPOLOGY") {
      c.topology = parse_topology_spec(value); // throws its own message
      c.topology_text = value;
    } else if (name == "COLLECTIVES_MODEL_ERROR") {
      throw std::invalid_argument("COLLECTIVES_MODEL: " + value);
    } else if (name == "COLLECTIVES_MODEL_FILE") {
      file = value;
    } else if (name == "COLLECTIVES_MODEL") {
      if (value == "default") continue;
      if (value == "calibrate") {
        c.calibrate = c.model_given = true;
        c.model_source = "calibrated at MPI_Init";
        continue;
      }
      std::string_view numbers = value;
      if (const auto semi = numbers.find(';'); semi != std::string_view::npos) {
        if (!parse_size(numbers.substr(semi + 1), c.word_bytes) || c.word_bytes == 0) bad("bad word size");
        numbers = numbers.substr(0, semi);
      }
      CostModel m = default_cost_model;
      if (!parse_model_numbers(numbers, m))
        bad(std::string("expected ") + model_forms);
      c.model = m;
      c.model_given = true;
      c.model_source = file.empty() ? "COLLECTIVES_MODEL" : "file " + file;
    } else if (name == "COLLECTIVES_MODEL_SAVE") {
      c.model_save = value;
    } else if (name.size() > prefix.size() + 10 && name.ends_with("_ALGORITHM")) {
      const std::string coll = name.substr(prefix.size(), name.size() - prefix.size() - 10);
      std::size_t ci = num_colls;
      for (std::size_t i = 0; i < num_colls; ++i)
        if (upper(coll_name(static_cast<Coll>(i))) == coll) ci = i;
      if (ci == num_colls) bad("no collective " + coll + "; valid: " + valid_collectives());
      const Coll cc = static_cast<Coll>(ci);
      if (value.empty() || value == "default") continue;
      const std::size_t idx = algorithms::index_of(cc, value);
      if (idx == algorithms::npos)
        bad("not an algorithm of " + std::string(coll_name(cc)) + "; valid: default, " + algorithms::names_text(cc));
      c.forced[ci] = idx;
    } else if (name.starts_with("COLLECTIVES_PMPI_")) {
      bad(std::string("unknown variable; ") + variables_read_text);
    } else if (name != "COLLECTIVES_MPI_TIMEOUT" && name != "COLLECTIVES_MPI_CHECK" && name != "COLLECTIVES_TRACE") {
      c.unknown.push_back(name); // the library's own transport reads those three
    }
  }
  return c;
}

const char* variables_read() { return variables_read_text; }

std::string model_file_text(const CostModel& model, std::size_t word_bytes)
{
  char buf[700];
  std::snprintf(buf, sizeof buf,
                "# collectives cost model: seconds per message (t_s), per word (t_w), per hop (t_h),\n"
                "# per word of local work (t_r); a word is word_bytes bytes. One node's terms\n"
                "# (collectives/cost/model.hpp): seconds per step waiting for partners (t_sync),\n"
                "# cores the ranks share (lanes, 0: a core each), half_duplex and crossbar (0 or 1),\n"
                "# seconds per word added for data written during the collective (t_fresh)\n"
                "t_s %.17g\nt_w %.17g\nt_h %.17g\nt_r %.17g\nt_sync %.17g\nlanes %zu\nhalf_duplex %d\n"
                "crossbar %d\nt_fresh %.17g\nword_bytes %zu\n",
                model.t_s, model.t_w, model.t_h, model.t_r, model.t_sync, model.lanes, model.half_duplex ? 1 : 0,
                model.crossbar ? 1 : 0, model.t_fresh, word_bytes);
  return buf;
}

} // namespace collectives::pmpi
