#pragma once
// Recorded messages against the schedules: running a collective over RecordingEndpoints
// and the log each rank must show for a schedule.

#include <collectives/collectives.hpp>

#include <cstddef>
#include <vector>

namespace collectives::testing {

/// What one rank's RecordingEndpoint saw.
struct Recorded {
  std::vector<MessageRecord> log;
  std::size_t steps = 0; ///< exchange calls
};

/// Runs body(comm) on a threads team of topo.size() ranks over RecordingEndpoints bound
/// to topo; returns each rank's record in rank order.
template <class Topo, class Body>
std::vector<Recorded> record_on(const Topo& topo, Body body)
{
  using Rec = RecordingEndpoint<threads::Endpoint>;
  std::vector<Recorded> got(topo.size());
  threads::Team team{topo.size()};
  team.run([&](threads::Endpoint& ep) {
    Rec rec(ep);
    Communicator<Rec, Topo> comm(rec, topo);
    body(comm);
    got[ep.rank()] = {rec.log(), rec.steps()};
  });
  return got;
}

/// The same layout for every buffer.
struct Uniform {
  BlockLayout l;
  BlockLayout operator()(Buffer) const { return l; }
};

/// What a RecordingEndpoint must log on `rank` when `s` runs: one exchange call per step
/// that moves anything, logging the step's sends then its receives, each with the bytes of
/// its blocks under `layout(buffer)` (elements of `elem` bytes).
template <class S, class Layout>
std::vector<MessageRecord> expected_log(const S& s, std::size_t rank, Layout layout, std::size_t elem)
{
  auto bytes = [&](const Pattern& pat) {
    const BlockLayout l = layout(pat.buffer);
    std::size_t n = 0;
    for (std::size_t i = 0; i < pat.count; ++i) n += l.length(pat[i]) * elem;
    return n;
  };
  std::vector<MessageRecord> log;
  std::size_t call = 0;
  for (std::size_t k = 0; k < s.num_steps(); ++k) {
    const auto ops = step_ops(s, rank, k);
    if (ops.sends.empty() && ops.recvs.empty()) continue;
    for (const auto& op : ops.sends) log.push_back({rank, call, op.peer, bytes(op.blocks), true});
    for (const auto& op : ops.recvs) log.push_back({rank, call, op.peer, bytes(op.blocks), false});
    ++call;
  }
  return log;
}

} // namespace collectives::testing
