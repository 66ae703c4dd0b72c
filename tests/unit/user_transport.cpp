// A user's transport that combines on receipt (combines_on_receive) the simplest way: it
// reads a message from the sender's memory only when the receiver takes it, and combines it
// into place at once. A rank takes a lower rank's message only after that rank's own
// receives, so a rank that combined into memory it also sends from would change what a
// higher rank reads.
// The executor must not hand such an endpoint a combining receive into memory its sends
// of the same exchange read (an in-place reduction's step) unless the endpoint says it
// keeps its open sends intact (combines_into_sends): it stages those receives itself.
//
// Catch2's assertions are not thread-safe, so rank functions only record what they saw;
// the checks run on the test's thread.

#include <catch2/catch.hpp>

#include "../support/harness.hpp"
#include "../support/registry.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

using namespace collectives;
using namespace collectives::testing;

namespace {

/// One message of a LazyTeam: the sender's pieces (read when taken), the sender's
/// exchange it was posted in, and whether its receiver has taken it.
struct LazyMessage {
  std::vector<ConstBytes> pieces;
  std::uint64_t epoch = 0;
  bool taken = false;
};

/// What the ranks of one LazyEndpoint team share, under one lock: the messages in flight
/// from each rank to each rank, each rank's exchanges so far and the last one whose
/// receives it finished, and the protocol errors seen (a rank never throws: the others
/// would wait).
struct LazyTeam {
  explicit LazyTeam(std::size_t p) : p(p), mail(p * p), epoch(p, 0), received(p, 0), errors(p) {}
  std::size_t p;
  std::mutex lock;
  std::condition_variable changed;
  std::vector<std::deque<std::shared_ptr<LazyMessage>>> mail; // [from * p + to]
  std::vector<std::uint64_t> epoch, received;
  std::vector<std::vector<std::string>> errors; // per rank
};

/// One rank of a LazyTeam. IntoSends: what it declares as combines_into_sends (it does not
/// keep its open sends intact, so declaring it is a lie the executor must believe).
///
/// A rank takes a message from a lower rank only once that rank has finished its own
/// receives of the exchange that sent it: when both combine into what they send (in-place
/// recursive doubling), the higher rank reads the lower one's bytes after the lower one
/// combined into them, every time.
template <bool IntoSends>
class LazyEndpoint {
public:
  static constexpr bool combines_on_receive = true;
  static constexpr bool combines_into_sends = IntoSends;

  LazyEndpoint(LazyTeam& team, std::size_t me) : team_(&team), me_(me) {}
  std::size_t rank() const { return me_; }
  std::size_t size() const { return team_->p; }

  void exchange(std::span<const SendRequest> sends, std::span<const RecvRequest> recvs)
  {
    LazyTeam& t = *team_;
    std::unique_lock<std::mutex> hold(t.lock);
    const std::uint64_t e = ++t.epoch[me_];
    std::vector<std::shared_ptr<LazyMessage>> mine;
    for (const SendRequest& s : sends) {
      mine.push_back(std::make_shared<LazyMessage>(
          LazyMessage{std::vector<ConstBytes>(s.pieces.begin(), s.pieces.end()), e, false}));
      t.mail[me_ * t.p + s.peer].push_back(mine.back());
    }
    t.changed.notify_all();
    for (const RecvRequest& r : recvs) {
      auto& box = t.mail[r.peer * t.p + me_];
      t.changed.wait(hold, [&] { return !box.empty() && (r.peer > me_ || t.received[r.peer] >= box.front()->epoch); });
      const std::shared_ptr<LazyMessage> m = box.front();
      box.pop_front();
      take(*m, r);
      m->taken = true;
      t.changed.notify_all();
    }
    t.received[me_] = e;
    t.changed.notify_all();
    t.changed.wait(hold, [&] { return std::all_of(mine.begin(), mine.end(), [](const auto& m) { return m->taken; }); });
  }

private:
  // The sender's bytes as they are now, copied or combined into place.
  void take(const LazyMessage& m, const RecvRequest& r)
  {
    if (total_bytes(m.pieces) != total_bytes(r.pieces)) {
      team_->errors[me_].push_back("rank " + std::to_string(me_) + ": a message of the wrong size from " +
                                   std::to_string(r.peer));
      return;
    }
    std::vector<std::byte> bytes;
    for (const ConstBytes& c : m.pieces) bytes.insert(bytes.end(), c.data, c.data + c.size);
    const std::byte* src = bytes.data();
    for (const MutableBytes& d : r.pieces) {
      if (d.size == 0) continue;
      if (r.combine != nullptr) r.combine->fn(r.combine->ctx, d.data, src, d.size);
      else std::memcpy(d.data, src, d.size);
      src += d.size;
    }
  }

  LazyTeam* team_;
  std::size_t me_;
};

/// Runs body(comm) on a LazyTeam of topo.size() ranks, one thread each; returns the ranks'
/// failures (body's and the endpoints' protocol errors) in one list.
template <bool IntoSends, class Topo, class F>
std::vector<std::string> run_lazy(const Topo& topo, F body)
{
  const std::size_t p = topo.size();
  LazyTeam team(p);
  std::vector<std::vector<std::string>> bad(p);
  std::vector<std::thread> threads;
  for (std::size_t r = 0; r < p; ++r)
    threads.emplace_back([&, r] {
      LazyEndpoint<IntoSends> ep(team, r);
      Communicator<LazyEndpoint<IntoSends>, Topo> comm{ep, topo};
      body(comm, bad[r]);
    });
  for (auto& t : threads) t.join();
  std::vector<std::string> all;
  for (std::size_t r = 0; r < p; ++r) {
    all.insert(all.end(), bad[r].begin(), bad[r].end());
    all.insert(all.end(), team.errors[r].begin(), team.errors[r].end());
  }
  return all;
}

/// Rank r's element i (sums stay exact in 64 bits).
std::uint64_t value(std::size_t r, std::size_t i)
{
  return 1000003 * (r + 1) + 17 * i + 1;
}

std::vector<std::uint64_t> contribution(std::size_t r, std::size_t n)
{
  std::vector<std::uint64_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = value(r, i);
  return v;
}

/// Elements [first, first + n) of the sum over ranks lo..hi.
std::vector<std::uint64_t> sum_of(std::size_t lo, std::size_t hi, std::size_t first, std::size_t n)
{
  std::vector<std::uint64_t> v(n, 0);
  for (std::size_t r = lo; r <= hi; ++r)
    for (std::size_t i = 0; i < n; ++i) v[i] += value(r, first + i);
  return v;
}

std::string what(std::string_view collective, std::string name, std::size_t p, std::size_t n, std::size_t r)
{
  return std::string(collective) + " in place (" + name + "), p = " + std::to_string(p) + ", n = " +
         std::to_string(n) + ", rank " + std::to_string(r);
}

/// Every reduction in place, every algorithm that may run in place and the default, on a
/// mesh of p nodes, for n elements (blocks of n for reduce_scatter); out of place too.
template <class Comm>
void reductions_in_place(Comm& comm, std::size_t n, std::vector<std::string>& bad)
{
  const std::size_t p = comm.size(), r = comm.rank();
  const auto& topo = comm.topology();
  const std::plus<> op;
  for_each_fitting_and_default<Collective::allreduce, true, true>(topo, Problem{}, [&](auto alg) {
    auto buf = contribution(r, n);
    call_with(allreduce, alg, comm, buf, op);
    if (buf != sum_of(0, p - 1, 0, n)) bad.push_back(what("allreduce", name_of(alg), p, n, r));
    std::vector<std::uint64_t> out(n);
    call_with(allreduce, alg, comm, contribution(r, n), out, op);
    if (out != sum_of(0, p - 1, 0, n)) bad.push_back(what("allreduce (out of place)", name_of(alg), p, n, r));
  });
  for (std::size_t root : {std::size_t{0}, p - 1})
    for_each_fitting_and_default<Collective::reduce, true, true>(topo, Problem{}, [&](auto alg) {
      auto buf = contribution(r, n);
      call_with(reduce, alg, comm, buf, op, root);
      if (buf != (r == root ? sum_of(0, p - 1, 0, n) : contribution(r, n)))
        bad.push_back(what("reduce", name_of(alg) + ", root " + std::to_string(root), p, n, r));
    });
  for_each_fitting_and_default<Collective::reduce_scatter, true, true>(topo, Problem{}, [&](auto alg) {
    auto buf = contribution(r, p * n);
    call_with(reduce_scatter, alg, comm, buf, op);
    const auto want = sum_of(0, p - 1, r * n, n);
    if (!std::equal(want.begin(), want.end(), buf.begin())) bad.push_back(what("reduce_scatter", name_of(alg), p, n, r));
  });
  for_each_fitting_and_default<Collective::scan, true, true>(topo, Problem{}, [&](auto alg) {
    auto buf = contribution(r, n);
    call_with(scan, alg, comm, buf, op);
    if (buf != sum_of(0, r, 0, n)) bad.push_back(what("scan", name_of(alg), p, n, r));
  });
}

} // namespace

TEST_CASE("user transport: a transport that combines as messages arrive gets no combining receive into its open "
          "sends",
          "[user_transport]")
{
  std::size_t checked = 0;
  for (std::size_t p : {2, 3, 4, 5, 8}) {
    const auto [rows, cols] = mesh_shape(p);
    const Mesh<> topo{rows, cols};
    for (std::size_t n : {0, 1, 7, 300}) {
      INFO("p = " << p << ", n = " << n);
      const auto bad = run_lazy<false>(topo, [&](auto& comm, std::vector<std::string>& out) {
        reductions_in_place(comm, n, out);
      });
      for (const auto& b : bad) FAIL_CHECK(b);
      CHECK(bad.empty());
      ++checked;
    }
  }
  CHECK(checked == 20);
}

TEST_CASE("user transport: combines_into_sends hands the endpoint the receives into its open sends", "[user_transport]")
{
  // The same endpoint declaring combines_into_sends, which it does not honour: the
  // executor believes it, and in-place recursive doubling (rank 0 combines into what it
  // sends before rank 1 reads it) comes out wrong. The twin of the test above: it shows
  // that test's endpoint would fail without the executor's staging.
  const auto bad = run_lazy<true>(Ring<>{2}, [](auto& comm, std::vector<std::string>& out) {
    auto buf = contribution(comm.rank(), 5);
    allreduce(comm, buf, std::plus<>{}, allreduce_algorithm::recursive_doubling);
    if (buf != sum_of(0, 1, 0, 5)) out.push_back("rank " + std::to_string(comm.rank()) + " wrong");
  });
  CHECK(bad.size() == 1); // rank 1 combined rank 0's result, not its contribution
  STATIC_REQUIRE(combines_into_sends_v<LazyEndpoint<true>>);
  STATIC_REQUIRE_FALSE(combines_into_sends_v<LazyEndpoint<false>>);
  STATIC_REQUIRE(combines_into_sends_v<threads::Endpoint>);
}

TEST_CASE("user transport: every collective's default and every algorithm over a lazy transport", "[user_transport]")
{
  // A user's transport as simple as it gets runs the library's algorithms: every
  // collective, the default and every algorithm that fits a ring (the reductions above),
  // against the serial reference, p = 1..6, blocks of 0, 1 and 5 doubles, every root.
  std::size_t ran = 0;
  for (std::size_t p = 1; p <= 6; ++p) {
    const Ring<> topo{p};
    for (std::size_t m : {0, 1, 5}) {
      INFO("p = " << p << ", m = " << m);
      const auto bad = run_lazy<false>(topo, [&](auto& comm, std::vector<std::string>& out) {
        const std::size_t r = comm.rank();
        const auto note = [&](bool ok, const std::string& what, auto alg) {
          if (!ok) out.push_back(what + " (" + name_of(alg) + ") at rank " + std::to_string(r));
        };
        const auto all = gathered<double>(p, m);
        for (std::size_t root = 0; root < p; ++root) {
          for_each_fitting_and_default<Collective::broadcast>(topo, Problem{.root = root}, [&](auto alg) {
            auto buf = r == root ? values<double>(root, m) : std::vector<double>(m, -1.0);
            call_with(broadcast, alg, comm, buf, root);
            note(buf == values<double>(root, m), "broadcast from " + std::to_string(root), alg);
          });
          for_each_fitting_and_default<Collective::scatter>(topo, Problem{.root = root}, [&](auto alg) {
            std::vector<double> got(m, -1.0);
            call_with(scatter, alg, comm, r == root ? all : std::vector<double>(p * m), got, root);
            note(got == values<double>(r, m), "scatter from " + std::to_string(root), alg);
          });
          for_each_fitting_and_default<Collective::gather>(topo, Problem{.root = root}, [&](auto alg) {
            std::vector<double> got(p * m, -1.0);
            call_with(gather, alg, comm, values<double>(r, m), got, root);
            if (r == root) note(got == all, "gather to " + std::to_string(root), alg);
          });
        }
        for_each_fitting_and_default<Collective::allgather>(topo, Problem{}, [&](auto alg) {
          std::vector<double> got(p * m, -1.0);
          call_with(allgather, alg, comm, values<double>(r, m), got);
          note(got == all, "allgather", alg);
        });
        for_each_fitting_and_default<Collective::alltoall>(topo, Problem{}, [&](auto alg) {
          std::vector<double> got(p * m, -1.0);
          call_with(alltoall, alg, comm, alltoall_input<double>(p, m, r), got);
          note(got == alltoall_reference<double>(p, m, r), "alltoall", alg);
        });
        for (std::ptrdiff_t q : {std::ptrdiff_t{1}, std::ptrdiff_t{-2}}) {
          std::vector<double> got(m, -1.0);
          shift(comm, values<double>(r, m), got, q);
          const std::size_t from = (r + p - static_cast<std::size_t>((q % static_cast<std::ptrdiff_t>(p) + static_cast<std::ptrdiff_t>(p)) % static_cast<std::ptrdiff_t>(p))) % p;
          note(got == values<double>(from, m), "shift by " + std::to_string(q), automatic);
        }
        barrier(comm);
        reductions_in_place(comm, m, out);
      });
      for (const auto& b : bad) FAIL_CHECK(b);
      CHECK(bad.empty());
      ++ran;
    }
  }
  CHECK(ran == 18);
}
