#pragma once
// What collectives-draw draws, read from a schedule: for every step, every message (from,
// to, how many blocks, what they carry, its route on the topology and how loaded the
// route's links are in that step). The schedule is run symbolically on every rank at
// once, as the verifier runs it, but each block remembers what it holds in the seeds'
// terms: the origin of an all-gather block, the {source, destination} of an all-to-all
// block, the set of ranks summed into a reduction block. Messages are matched the way
// the transports match them: the n-th send from a to b in a step is the n-th receive b
// posts from a.

#include <collectives/algorithm/collective.hpp>
#include <collectives/detail/require.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>
#include <collectives/topology/route.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace collectives::draw {

/// What a block holds: nothing (id < 0), a datum of the operation, or for reductions the
/// ranks whose contributions to block `id` it combines.
struct Holding {
  std::int64_t id = -1;
  std::vector<std::uint32_t> ranks; ///< reductions only: sorted, distinct

  bool empty() const { return id < 0; }
};

/// How an operation's block ids read (see label()).
enum class Meaning {
  pair,        ///< alltoall: id = source * p + destination, shown {source,destination}
  origin,      ///< allgather, gather, shift: the rank it came from, shown (r)
  destination, ///< scatter: the rank it is for, shown (r)
  chunk,       ///< broadcast: piece j of the root's message, shown X or X[j]
  reduction,   ///< reduce, allreduce, reduce_scatter, scan: Σ ranks [block]
  other,       ///< an operation this tool does not know: #id
};

/// One message of one step.
struct Message {
  std::size_t step = 0;
  std::size_t from = 0;
  std::size_t to = 0;
  std::size_t blocks = 0;        ///< blocks in the message
  bool combines = false;         ///< the receiver combines it (else copies)
  std::string label;             ///< what it carries, short
  std::string contents;          ///< what it carries, every block
  std::vector<Link> route;       ///< directed links from `from` to `to` on the topology
  std::size_t load = 0;          ///< most messages on one link of the route in this step
};

/// One step: its messages (by sending rank, then in the order the rank sends them) and
/// how many local operations run after them, over all ranks.
struct Step {
  std::vector<Message> messages;
  std::size_t locals = 0;
  std::map<std::pair<std::size_t, std::size_t>, std::size_t> link_load; ///< directed link -> messages
};

/// A whole schedule.
struct Picture {
  std::size_t p = 0;
  Meaning meaning = Meaning::other;
  std::size_t op_blocks = 1; ///< blocks per rank of the operation (reductions: [j] shown when > 1)
  std::vector<Step> steps;
};

namespace detail {

/// "0-3,6" from sorted distinct ranks.
inline std::string ranges(const std::vector<std::uint32_t>& r)
{
  std::string out;
  for (std::size_t i = 0; i < r.size();) {
    std::size_t j = i;
    while (j + 1 < r.size() && r[j + 1] == r[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(r[i]);
    if (j > i) out += (j == i + 1 ? "," : "-") + std::to_string(r[j]);
    i = j + 1;
  }
  return out;
}

/// The operation's block meaning, from its spec.
template <class Op>
Meaning meaning_of(const Op& op)
{
  if constexpr (requires { op.commutative; }) return Meaning::reduction;
  const std::string name = Op::name;
  if (name == "alltoall") return Meaning::pair;
  if (name == "allgather" || name == "gather" || name == "shift") return Meaning::origin;
  if (name == "scatter") return Meaning::destination;
  if (name == "broadcast") return Meaning::chunk;
  return Meaning::other;
}

} // namespace detail

/// One block's holding in the seeds' notation.
inline std::string label(const Holding& h, Meaning meaning, std::size_t p, std::size_t op_blocks)
{
  if (h.empty()) return "?";
  const auto id = static_cast<std::size_t>(h.id);
  switch (meaning) {
  case Meaning::pair: return "{" + std::to_string(id / p) + "," + std::to_string(id % p) + "}";
  case Meaning::origin:
  case Meaning::destination: return std::to_string(id);
  case Meaning::chunk: return op_blocks > 1 ? "X" + std::to_string(id) : "X";
  case Meaning::reduction: {
    std::string s = "Σ" + detail::ranges(h.ranks);
    if (op_blocks > 1) s += "[" + std::to_string(id) + "]";
    return s;
  }
  case Meaning::other: break;
  }
  return "#" + std::to_string(id);
}

/// A message's blocks in the seeds' notation: (0,3-5) for origins and destinations, the
/// blocks one after another otherwise; `limit` > 0 shortens to about that many characters.
inline std::string label(const std::vector<Holding>& blocks, Meaning meaning, std::size_t p, std::size_t op_blocks,
                         std::size_t limit = 0)
{
  if (blocks.empty()) return "∅";
  if (meaning == Meaning::origin || meaning == Meaning::destination) {
    std::vector<std::uint32_t> ids;
    for (const auto& b : blocks) ids.push_back(static_cast<std::uint32_t>(b.id));
    std::vector<std::uint32_t> sorted = ids;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    const std::string s = "(" + detail::ranges(sorted) + ")";
    if (sorted.size() == ids.size() || limit != 0) return s;
    // Duplicates (possible for chunked layouts) are listed in full.
    std::string full = "(";
    for (std::size_t i = 0; i < ids.size(); ++i) full += (i ? "," : "") + std::to_string(ids[i]);
    return full + ")";
  }
  if (meaning == Meaning::pair && limit != 0) {
    // Shortened: "S→D" when the blocks are exactly sources S times destinations D.
    std::vector<std::uint32_t> from, to;
    for (const auto& b : blocks) {
      from.push_back(static_cast<std::uint32_t>(static_cast<std::size_t>(b.id) / p));
      to.push_back(static_cast<std::uint32_t>(static_cast<std::size_t>(b.id) % p));
    }
    auto distinct = [](std::vector<std::uint32_t> v) {
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
      return v;
    };
    const auto sources = distinct(from), destinations = distinct(to);
    std::vector<std::size_t> ids;
    for (const auto& b : blocks) ids.push_back(static_cast<std::size_t>(b.id));
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    if (blocks.size() > 1 && ids.size() == blocks.size() && ids.size() == sources.size() * destinations.size())
      return detail::ranges(sources) + "→" + detail::ranges(destinations);
  }
  std::string out;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const std::string one = label(blocks[i], meaning, p, op_blocks);
    if (limit != 0 && i > 0 && out.size() + one.size() > limit) {
      out += " …+" + std::to_string(blocks.size() - i);
      break;
    }
    out += (i ? " " : "") + one;
  }
  return out;
}

/// A schedule read into plain data: the only part of the drawing that is a template of
/// the schedule's type (a tool instantiates it for every algorithm on every topology type,
/// so the rest is compiled once).
struct RecordedSchedule {
  std::size_t p = 0;
  std::size_t scratch_blocks = 0;
  Meaning meaning = Meaning::other;
  std::size_t op_blocks = 1;
  std::vector<std::vector<Holding>> input, output; ///< per rank, before the first step
  std::vector<std::vector<StepOps>> ops;           ///< [step][rank]
};

/// The route a message takes, as directed links.
using Router = std::function<std::vector<Link>(std::size_t from, std::size_t to)>;

/// Reads schedule `s` (see RecordedSchedule).
template <schedule S>
RecordedSchedule record(const S& s)
{
  RecordedSchedule rec;
  const std::size_t p = s.size();
  const auto op = s.operation();
  rec.p = p;
  rec.scratch_blocks = s.scratch_blocks();
  rec.meaning = detail::meaning_of(op);
  rec.op_blocks = std::max(op.input_blocks(0), op.output_blocks(0));
  auto holding = [&](const Symbol& sym) {
    Holding h;
    if (sym.empty()) return h;
    h.id = sym.id;
    if (rec.meaning == Meaning::reduction)
      for (std::uint32_t q = sym.lo; q <= sym.hi; ++q) h.ranks.push_back(q);
    return h;
  };
  rec.input.resize(p);
  rec.output.resize(p);
  for (std::size_t r = 0; r < p; ++r) {
    for (std::size_t j = 0; j < op.input_blocks(r); ++j) rec.input[r].push_back(holding(op.input(r, j)));
    rec.output[r].resize(op.output_blocks(r));
    if constexpr (requires { op.initial_output(r, r); })
      for (std::size_t j = 0; j < rec.output[r].size(); ++j) rec.output[r][j] = holding(op.initial_output(r, j));
  }
  rec.ops.resize(s.num_steps());
  for (std::size_t k = 0; k < s.num_steps(); ++k)
    for (std::size_t r = 0; r < p; ++r) rec.ops[k].push_back(step_ops(s, r, k));
  return rec;
}

/// The router of `topo`: its own next_hop, link by link.
template <topology T>
Router router_of(const T& topo)
{
  return [topo](std::size_t from, std::size_t to) {
    std::vector<Link> out;
    for (const Link& l : route(topo, from, to)) out.push_back(l);
    return out;
  };
}

/// The picture of a recorded schedule whose messages take the routes `router` gives.
/// Throws std::invalid_argument when a send has no matching receive of the same size or
/// a block lies outside its buffer (the verifier rejects such schedules; this keeps the
/// tool from drawing nonsense).
inline Picture picture_of(const RecordedSchedule& rec, const Router& router)
{
  const std::size_t p = rec.p;
  Picture pic;
  pic.p = p;
  pic.meaning = rec.meaning;
  pic.op_blocks = rec.op_blocks;

  // Every rank's three buffers, symbolically.
  struct Rank {
    std::vector<Holding> buf[3];
  };
  std::vector<Rank> st(p);
  for (std::size_t r = 0; r < p; ++r) {
    st[r].buf[static_cast<int>(Buffer::input)] = rec.input[r];
    st[r].buf[static_cast<int>(Buffer::output)] = rec.output[r];
    st[r].buf[static_cast<int>(Buffer::scratch)].resize(rec.scratch_blocks);
  }
  auto at = [&](std::size_t r, const Pattern& pat, std::size_t i) -> Holding& {
    auto& buf = st[r].buf[static_cast<int>(pat.buffer)];
    const std::size_t b = pat[i];
    collectives::detail::require(b < buf.size(), "collectives-draw: the schedule names a block outside its buffer");
    return buf[b];
  };
  auto apply = [](Holding& dst, const Holding& in, Combine how) {
    if (how == Combine::copy || dst.empty()) {
      dst = in;
      return;
    }
    std::vector<std::uint32_t> merged;
    std::set_union(dst.ranks.begin(), dst.ranks.end(), in.ranks.begin(), in.ranks.end(), std::back_inserter(merged));
    dst.ranks = std::move(merged);
  };

  for (std::size_t k = 0; k < rec.ops.size(); ++k) {
    const std::vector<StepOps>& ops = rec.ops[k];
    const std::size_t index = pic.steps.size(); // steps where nothing happens are not drawn
    Step step;
    for (std::size_t r = 0; r < p; ++r) step.locals += ops[r].locals.size();
    // Messages, with what they carry before anything of this step lands.
    struct Landing {
      std::size_t rank;
      const RecvOp* recv;
      std::vector<Holding> data;
    };
    std::vector<Landing> landings;
    for (std::size_t r = 0; r < p; ++r) {
      std::map<std::size_t, std::size_t> ordinal; // sends so far from r to each peer
      for (const auto& snd : ops[r].sends) {
        collectives::detail::require(snd.peer < p && snd.peer != r, "collectives-draw: a send names a bad partner");
        const std::size_t n = ordinal[snd.peer]++;
        const RecvOp* match = nullptr;
        std::size_t seen = 0;
        for (const auto& rcv : ops[snd.peer].recvs)
          if (rcv.peer == r && seen++ == n) {
            match = &rcv;
            break;
          }
        collectives::detail::require(match != nullptr && match->blocks.count == snd.blocks.count,
                                     "collectives-draw: a send has no matching receive of the same size");
        std::vector<Holding> data;
        for (std::size_t i = 0; i < snd.blocks.count; ++i) data.push_back(at(r, snd.blocks, i));
        Message msg;
        msg.step = index;
        msg.from = r;
        msg.to = snd.peer;
        msg.blocks = snd.blocks.count;
        msg.combines = match->combine != Combine::copy;
        msg.label = label(data, pic.meaning, p, pic.op_blocks, 14);
        msg.contents = label(data, pic.meaning, p, pic.op_blocks);
        msg.route = router(r, snd.peer);
        for (const Link& l : msg.route) ++step.link_load[{l.from, l.to}];
        step.messages.push_back(std::move(msg));
        landings.push_back(Landing{snd.peer, match, std::move(data)});
      }
    }
    for (auto& m : step.messages)
      for (const Link& l : m.route) m.load = std::max(m.load, step.link_load[{l.from, l.to}]);
    for (const auto& l : landings)
      for (std::size_t i = 0; i < l.data.size(); ++i) apply(at(l.rank, l.recv->blocks, i), l.data[i], l.recv->combine);
    // Locals, in order; each reads all its sources before writing.
    for (std::size_t r = 0; r < p; ++r)
      for (const auto& loc : ops[r].locals) {
        std::vector<Holding> from;
        for (std::size_t i = 0; i < loc.from.count; ++i) from.push_back(at(r, loc.from, i));
        for (std::size_t i = 0; i < from.size() && i < loc.to.count; ++i) apply(at(r, loc.to, i), from[i], loc.combine);
      }
    // A step of the schedule where no rank sends or moves anything (a reduce's first step,
    // where some ranks only fold their own contribution in) is left out: the panels are
    // the seeds' steps, numbered as the cost's steps with messages are counted.
    if (step.messages.empty() && step.locals == 0) continue;
    pic.steps.push_back(std::move(step));
  }
  return pic;
}

/// The picture of schedule `s` on topology `topo` (the same size).
template <schedule S, topology T>
Picture picture_of(const S& s, const T& topo)
{
  collectives::detail::require(topo.size() == s.size(), "collectives-draw: the topology and the schedule differ in size");
  return picture_of(record(s), router_of(topo));
}

} // namespace collectives::draw
