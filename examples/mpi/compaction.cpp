// Stream compaction with prefix sums (the seeds' prefix-sums application): each rank
// keeps the elements of its part of a distributed array that pass a test; an exscan of
// the kept counts gives each rank where its kept elements start in the compacted array,
// so every rank writes its part without asking any other. Checked against a serial
// compaction; the exscan's time is printed beside the model's prediction.
//
//   ./compaction [threads]          mpirun -n 4 ./compaction

#include "app.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace {

std::int64_t value(std::size_t global) { return static_cast<std::int64_t>((global * 2654435761u) % 1000u); }
bool keep(std::int64_t v) { return v % 3 == 0; }

} // namespace

int main(int argc, char** argv)
{
  return app::run(argc, argv, "compaction", 4, [](app::Rank& me) {
    using namespace collectives;
    const std::size_t p = me.size(), r = me.rank(), n = 5000; // elements per rank
    std::vector<std::int64_t> kept;
    for (std::size_t i = 0; i < n; ++i)
      if (keep(value(r * n + i))) kept.push_back(value(r * n + i));

    std::vector<std::uint64_t> count{kept.size()}, start{0};
    const double t = me.time([&] { exscan(me.comm(), count, start, std::plus<>{}); });
    if (r == 0) start[0] = 0; // exscan leaves rank 0's output as it was

    const auto [predicted, algorithm] = me.predicted<Collective::scan>(Problem{.m = 1});
    me.report("exscan of the kept counts", t, predicted, algorithm);

    // Serial compaction of the whole array: this rank's part starts at start[0].
    std::vector<std::int64_t> whole;
    for (std::size_t g = 0; g < p * n; ++g)
      if (keep(value(g))) whole.push_back(value(g));
    bool ok = start[0] + kept.size() <= whole.size();
    for (std::size_t i = 0; ok && i < kept.size(); ++i) ok = whole[start[0] + i] == kept[i];
    if (r + 1 == p) ok = ok && start[0] + kept.size() == whole.size();
    if (r == 0) std::printf("  %zu of %zu elements kept\n", whole.size(), p * n);
    return ok;
  });
}
