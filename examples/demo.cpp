// The collectives demo.
//
// 1. Prints the facts of four topologies: Ring<8>, Mesh<4,4>, Hypercube<4>, Torus<2,3,4>.
// 2. Runs the seeds' Example 4.2 (matrix transposition) on a ring, a mesh and a hypercube
//    of threads: an n x n matrix is distributed by rows, n/p rows per process; each
//    process transposes its p blocks of (n/p) x (n/p) locally, ONE alltoall exchanges
//    them, and each process places what it received as its rows of the transpose.
//    Every run is checked against a serial transpose, and its time (the median of 15
//    runs) is printed beside the time the cost model predicts from the very schedule that
//    ran, with t_s, t_w and t_r calibrated on a team of as many threads (the terms
//    calibrate() does not measure are the team's own: shared memory, and with more threads
//    than cores the cores they share and the wait for partners to be scheduled).
//
// Exit status: 0 when every transpose is right, 1 otherwise.

#include <collectives/collectives.hpp>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace {

using namespace collectives;

/// "a x b x c" from a topology's extents.
template <class Topo>
std::string extents_text(const Topo& t)
{
  std::string s;
  for (std::size_t i = 0; i < t.ndims(); ++i) s += (i == 0 ? "" : " x ") + std::to_string(t.extent(i));
  return s;
}

/// Prints what a topology knows about itself, and the route from node 0 to the first node
/// farthest from it.
template <class Topo>
void print_facts(const char* name, const Topo& t)
{
  std::size_t far = 0;
  while (t.distance(0, far) < t.diameter()) ++far;
  std::string path = "0";
  for (const Link& link : route(t, 0, far)) path += " -> " + std::to_string(link.to);
  std::printf("%-13s size %2zu, %zu dims (%s), diameter %zu, %3zu directed links, bisection width %2zu\n", name,
              t.size(), t.ndims(), extents_text(t).c_str(), t.diameter(), t.num_links(), t.bisection_width());
  std::printf("%-13s route 0 -> %zu (%zu hops): %s\n", "", far, t.distance(0, far), path.c_str());
}

/// Element (i, j) of the demo's n x n matrix.
double element(std::size_t n, std::size_t i, std::size_t j)
{
  return static_cast<double>(i * n + j) + 0.5;
}

/// The threads transport's model on p threads, measured by calibrate() (once per p).
CostModel calibrated_model(std::size_t p)
{
  static std::map<std::size_t, CostModel> models;
  if (const auto it = models.find(p); it != models.end()) return it->second;
  CostModel model{};
  threads::Team team{p};
  team.run([&](threads::Endpoint& ep) {
    const CostModel m = calibrate(ep);
    if (ep.rank() == 0) model = m;
  });
  return models[p] = model;
}

/// Calls f with the schedule alltoall(comm, send, recv, alg) runs on `topo` for blocks of
/// `words` doubles: for the default, the algorithm the communicator's model selects.
template <class Topo, class Alg, class F>
void with_schedule_of(const Topo& topo, Alg, const CostModel& default_model, double words, F f)
{
  const Problem problem{.m = words};
  if constexpr (std::same_as<Alg, Automatic>)
    with_selected<Collective::alltoall>(topo, default_model, problem,
                                        [&](auto chosen) { f(chosen.schedule(topo, problem)); });
  else
    f(Alg::schedule(topo, problem));
}

/// Example 4.2 on `topo` with alltoall algorithm `alg`: transposes an n x n matrix held by
/// rows (n/p per process) with one alltoall, checks the result against a serial transpose
/// and prints one line. Returns true when the result is right.
template <class Topo, class Alg>
bool transpose(const char* topo_name, const Topo& topo, std::size_t n, Alg alg)
{
  const std::size_t p = topo.size();
  const std::size_t b = n / p; // rows per process, and the side of each exchanged block
  constexpr std::size_t runs = 15;
  const CostModel model = calibrated_model(p);
  std::vector<std::vector<double>> rows_of_transpose(p);
  std::vector<std::vector<double>> micros(runs, std::vector<double>(p)), exchange_micros = micros;
  CostModel default_model{};

  threads::Team team{p};
  std::barrier ready(static_cast<std::ptrdiff_t>(p)); // start the clocks together
  team.run([&](threads::Endpoint& ep) {
    Communicator<threads::Endpoint, Topo> comm{ep, topo};
    const std::size_t r = comm.rank();
    if (r == 0) default_model = comm.cost_model();
    // This process's rows of A: rows r*b .. r*b + b - 1, row-major b x n.
    std::vector<double> mine(b * n);
    for (std::size_t i = 0; i < b; ++i)
      for (std::size_t j = 0; j < n; ++j) mine[i * n + j] = element(n, r * b + i, j);

    // Before: block q of the send buffer is the transpose of A's block (r, q).
    std::vector<double> send(p * b * b), recv(p * b * b);
    // One untimed call first: the default picks its algorithm on its first call with a
    // problem (and remembers it), and every call after that runs the pick at once.
    alltoall(comm, send, recv, alg);
    std::vector<double> out(b * n);
    for (std::size_t run = 0; run < runs; ++run) {
      ready.arrive_and_wait();
      const auto start = std::chrono::steady_clock::now();
      for (std::size_t q = 0; q < p; ++q)
        for (std::size_t c = 0; c < b; ++c)
          for (std::size_t i = 0; i < b; ++i) send[(q * b + c) * b + i] = mine[i * n + q * b + c];

      // The one collective: block q goes to process q.
      const auto exchange_start = std::chrono::steady_clock::now();
      alltoall(comm, send, recv, alg);
      exchange_micros[run][r] =
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - exchange_start).count();

      // After: block q received is (A_qr)^T, which is block (r, q) of A^T: place it.
      for (std::size_t q = 0; q < p; ++q)
        for (std::size_t c = 0; c < b; ++c)
          for (std::size_t i = 0; i < b; ++i) out[c * n + q * b + i] = recv[(q * b + c) * b + i];
      micros[run][r] = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    }
    rows_of_transpose[r] = std::move(out);
  });

  // Serial check: row x of A^T is column x of A.
  bool ok = true;
  for (std::size_t x = 0; x < n && ok; ++x)
    for (std::size_t y = 0; y < n && ok; ++y) ok = rows_of_transpose[x / b][(x % b) * n + y] == element(n, y, x);
  // Each run takes as long as its slowest process; the median run is printed.
  const auto median_of_slowest = [](const std::vector<std::vector<double>>& t) {
    std::vector<double> slowest;
    for (const auto& run : t) slowest.push_back(*std::max_element(run.begin(), run.end()));
    std::nth_element(slowest.begin(), slowest.begin() + static_cast<std::ptrdiff_t>(slowest.size() / 2), slowest.end());
    return slowest[slowest.size() / 2];
  };
  const double slowest = median_of_slowest(micros), slowest_exchange = median_of_slowest(exchange_micros);
  // A block is b x b doubles, and the model's word is a double.
  const double words = static_cast<double>(b * b);
  double predicted = 0;
  with_schedule_of(topo, alg, default_model, words, [&](const auto& s) {
    predicted = estimate(s, FullyConnected<>{p}, model, words).time * 1e6;
  });
  std::printf("  n = %3zu, p = %2zu, %-13s %-17s %s, %9.1f us; alltoall %9.1f us, predicted %7.1f us\n", n, p,
              topo_name, Alg::name, ok ? "verified OK" : "WRONG", slowest, slowest_exchange, predicted);
  return ok;
}

} // namespace

int main()
{
  namespace alg = alltoall_algorithm;

  std::puts("Topologies");
  print_facts("Ring<8>", Ring<8>{});
  print_facts("Mesh<4,4>", Mesh<4, 4>{});
  print_facts("Hypercube<4>", Hypercube<4>{});
  print_facts("Torus<2,3,4>", Torus<2, 3, 4>{});

  // n is a multiple of every p used (8 and 16).
  const std::size_t n = 240;
  std::puts("");
  for (std::size_t p : {8u, 16u}) {
    const CostModel model = calibrated_model(p);
    std::printf("Calibrated threads transport, p = %zu: t_s = %.3g s, t_w = %.3g s/word, t_r = %.3g s/word, "
                "t_sync = %.3g s/step, lanes %zu\n",
                p, model.t_s, model.t_w, model.t_r, model.t_sync, model.lanes);
  }
  std::puts("");
  std::puts("Example 4.2: transpose an n x n matrix distributed by rows, with one alltoall of");
  std::puts("(n/p) x (n/p) blocks. Times (the median of 15 runs): the slowest process, local");
  std::puts("transposes included; then the alltoall alone, measured and as the model calibrated");
  std::puts("on p threads predicts it from the schedule (threads beyond the cores wait for the");
  std::puts("scheduler: the model's lanes and t_sync).");
  bool ok = true;
  ok &= transpose("Ring<8>", Ring<8>{}, n, alg::automatic);
  ok &= transpose("Ring<8>", Ring<8>{}, n, alg::ring);
  ok &= transpose("Ring<8>", Ring<8>{}, n, alg::ring_two_way);
  ok &= transpose("Ring<8>", Ring<8>{}, n, alg::bruck);
  ok &= transpose("Mesh<4,4>", Mesh<4, 4>{}, n, alg::automatic);
  ok &= transpose("Mesh<4,4>", Mesh<4, 4>{}, n, alg::dimensional);
  ok &= transpose("Hypercube<3>", Hypercube<3>{}, n, alg::automatic);
  ok &= transpose("Hypercube<3>", Hypercube<3>{}, n, alg::standard_exchange);
  ok &= transpose("Hypercube<3>", Hypercube<3>{}, n, alg::pairwise_xor);
  ok &= transpose("Hypercube<3>", Hypercube<3>{}, n, alg::all_port);

  std::puts(ok ? "\nall transposes verified" : "\nSOME TRANSPOSE FAILED");
  return ok ? 0 : 1;
}
