// The layers of include/collectives run one way. Every header's folder has a rank, and a
// header may include headers of its own rank or lower only; no two headers include each
// other, directly or through others. Run as: check_layers <include dir>. Prints every
// violation and exits 1 if there is one.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

// Bottom up: what every layer uses; the networks and the transports' vocabulary; block sets
// and schedules; each algorithm's schedule and facts; cost and selection; the transports;
// the executor and the communicator; the collectives users call; calibration; umbrellas.
const std::map<std::string, int> rank_of_folder{
  {"detail", 0},     {"topology", 1},  {"schedule", 2},   {"algorithm", 3}, {"cost", 4},
  {"transport", 5},  {"execution", 6}, {"collective", 7}, {"tuning", 8},    {"pmpi", 9},
};
const std::map<std::string, int> rank_of_top_header{
  {"topology.hpp", 1}, {"cost.hpp", 4}, {"collectives.hpp", 10}, {"separate_compilation.hpp", 10},
  {"separate_compilation_mpi.hpp", 10},
};

int rank_of(const std::string& rel)
{
  const auto slash = rel.find('/');
  if (slash == std::string::npos) {
    const auto it = rank_of_top_header.find(rel);
    return it == rank_of_top_header.end() ? -1 : it->second;
  }
  const auto it = rank_of_folder.find(rel.substr(0, slash));
  return it == rank_of_folder.end() ? -1 : it->second;
}

} // namespace

int main(int argc, char** argv)
{
  if (argc != 2) {
    std::cerr << "usage: check_layers <include dir>\n";
    return 2;
  }
  const fs::path root = fs::path(argv[1]) / "collectives";
  const std::regex include_re(R"(^\s*#\s*include\s*<collectives/([^>]+)>)");
  std::map<std::string, std::vector<std::string>> edges;
  int bad = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".hpp") continue;
    const std::string rel = fs::relative(entry.path(), root).generic_string();
    const int from = rank_of(rel);
    if (from < 0) {
      std::cout << rel << ": in no known layer (add its folder to tests/layering/check_layers.cpp)\n";
      ++bad;
      continue;
    }
    std::ifstream in(entry.path());
    std::string line;
    auto& out = edges[rel];
    while (std::getline(in, line)) {
      std::smatch m;
      if (!std::regex_search(line, m, include_re)) continue;
      const std::string to = m[1];
      out.push_back(to);
      const int r = rank_of(to);
      if (r > from) {
        std::cout << rel << " (layer " << from << ") includes " << to << " (layer " << r << ")\n";
        ++bad;
      }
    }
  }
  // Cycles: depth-first search, colouring headers in progress.
  std::map<std::string, int> state; // 0 new, 1 in progress, 2 done
  std::vector<std::string> path;
  auto visit = [&](auto&& self, const std::string& h) -> void {
    state[h] = 1;
    path.push_back(h);
    for (const auto& to : edges[h]) {
      if (state[to] == 1) {
        std::cout << "include cycle:";
        for (auto it = std::find(path.begin(), path.end(), to); it != path.end(); ++it) std::cout << ' ' << *it;
        std::cout << ' ' << to << '\n';
        ++bad;
      } else if (state[to] == 0) {
        self(self, to);
      }
    }
    path.pop_back();
    state[h] = 2;
  };
  for (const auto& [h, _] : edges)
    if (state[h] == 0) visit(visit, h);
  std::cout << edges.size() << " headers checked, " << bad << " problem(s)\n";
  return bad == 0 ? 0 : 1;
}
