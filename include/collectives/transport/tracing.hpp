#pragma once
// Traces of real runs. TracingEndpoint<E> wraps an endpoint of any transport, like
// RecordingEndpoint, and records per rank wall-clock intervals and messages into a Trace:
//   - wait: each exchange() of the wrapped endpoint (posting the step's messages and
//     waiting for them), with the peers and bytes it sent and received;
//   - post, copy, combine: the executor's own phases, when it marks them through phase()
//     (building a step's requests; local copies; combining received data);
//   - one message per send, matched to its receive (the n-th message from a to b is the
//     n-th receive b posts from a, as every transport matches them).
// Trace::chrome_json() writes the Chrome trace-event format that Perfetto
// (ui.perfetto.dev) and chrome://tracing open: one process per Trace, one track (thread)
// per rank, a slice per interval, a flow arrow per message from the sender's slice to the
// receiver's.
//
//   Trace trace(p, "alltoall demo");                  // shared by the ranks of a team
//   team.run([&](threads::Endpoint& ep) {
//     TracingEndpoint traced(ep, trace);
//     Communicator comm{traced, Ring<>{p}};
//     alltoall(comm, send, recv);
//   });
//   trace.write_file("alltoall.json");
//
// Under MPI every process records its own rank; gather_trace(trace, ep) brings them to rank 0
// (a collective over any endpoint) before rank 0 writes the file. Times are
// std::chrono::steady_clock (CLOCK_MONOTONIC on Linux: one time base for all processes
// of one machine).
//
// The executor calls, when the endpoint has them (both optional, see below):
//   exchange(sends, recvs, const StepInfo&)   instead of exchange(sends, recvs)
//   exchange(sends, recvs, const StepInfo&, const StepWork&)  (forwarded where E takes it)
//   phase(Phase, bool begin, const StepInfo&) around building requests (post) and local
//                                             work (copy, combine)
// Without them a trace holds the wait slices and the messages, stepped by this
// endpoint's own count of exchanges.

#include <collectives/transport/concepts.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <ostream>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace collectives {


/// One recorded interval or message of one rank. Times are nanoseconds since the
/// recording rank's epoch (RankTrace::epoch_ns).
struct TraceEvent {
  enum class Kind : std::uint8_t { post, wait, copy, combine, send, recv };
  Kind kind = Kind::wait;
  std::uint64_t begin_ns = 0, end_ns = 0;
  std::uint64_t peer = 0;  ///< send, recv
  std::uint64_t bytes = 0; ///< send, recv
  std::uint64_t seq = 0;   ///< send, recv: the how-many-th message between this pair, from 0
  std::uint64_t call = 0;  ///< StepInfo::call, or 0 without hooks
  std::uint64_t step = 0;  ///< StepInfo::step, or this endpoint's count of exchanges
  std::uint64_t steps = 0; ///< StepInfo::steps, or 0 when unknown
  std::uint32_t collective = 0, algorithm = 0; ///< names (RankTrace::names), 0: unknown
};

/// What one rank recorded.
struct RankTrace {
  std::uint64_t epoch_ns = 0;                ///< steady_clock time of the rank's 0, in ns
  std::vector<std::string> names{""};        ///< collective and algorithm names; 0 is ""
  std::vector<TraceEvent> events;
  std::map<std::uint64_t, std::uint64_t> sent, received; ///< messages so far per peer

  /// The index of `name` in names (added when new).
  std::uint32_t name(std::string_view name)
  {
    if (name.empty()) return 0;
    for (std::size_t i = 1; i < names.size(); ++i)
      if (names[i] == name) return static_cast<std::uint32_t>(i);
    names.emplace_back(name);
    return static_cast<std::uint32_t>(names.size() - 1);
  }
};

namespace detail {
inline std::uint64_t trace_now_ns()
{
  return static_cast<std::uint64_t>(
    std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}
} // namespace detail

/// The events of the ranks of one team (or, under MPI, of this process's rank until
/// gather_trace()). Each rank writes only its own RankTrace, so the ranks of a threads team may
/// share one Trace without locking; read it once they are done.
class Trace {
public:
  /// A trace of `ranks` ranks, shown as process `label`.
  explicit Trace(std::size_t ranks, std::string label = "collectives") : label_(std::move(label)), ranks_(ranks)
  {
    const std::uint64_t now = detail::trace_now_ns();
    for (auto& r : ranks_) r.epoch_ns = now;
  }

  std::size_t size() const { return ranks_.size(); }
  const std::string& label() const { return label_; }
  RankTrace& rank(std::size_t r) { return ranks_.at(r); }
  const RankTrace& rank(std::size_t r) const { return ranks_.at(r); }

  /// The Chrome trace-event JSON of this trace alone.
  std::string chrome_json() const { return chrome_json({this}); }

  /// The Chrome trace-event JSON of several traces, one process (pid 1, 2, ...) each.
  static std::string chrome_json(const std::vector<const Trace*>& traces);

  /// Writes chrome_json() to `path`; std::runtime_error when it cannot.
  void write_file(const std::string& path) const { write_file(path, {this}); }
  static void write_file(const std::string& path, const std::vector<const Trace*>& traces)
  {
    std::ofstream out(path);
    out << chrome_json(traces);
    out.close();
    if (!out) throw std::runtime_error("collectives::Trace: cannot write " + path);
  }

  /// One rank's events as bytes (gather_trace() sends them to rank 0) and back.
  static std::vector<std::byte> serialize(const RankTrace& r);
  static RankTrace deserialize(const std::byte* data, std::size_t size);

private:
  std::string label_;
  std::vector<RankTrace> ranks_;
};

namespace detail {

/// Empty, or `combines_on_receive` (and `combines_into_sends`) copied from E when E has it.
template <class E>
struct CombinesOnReceive {};
template <class E>
  requires requires { E::combines_on_receive; }
struct CombinesOnReceive<E> {
  static constexpr bool combines_on_receive = E::combines_on_receive;
  static constexpr bool combines_into_sends = combines_into_sends_v<E>;
};

} // namespace detail

/// Wraps endpoint E of any transport and records into a Trace (see the top of this
/// header); satisfies collectives::endpoint itself and passes every request through
/// unchanged. set_enabled(false) makes it a plain forwarder (for programs that trace
/// only some calls).
template <endpoint E>
class TracingEndpoint : public detail::CombinesOnReceive<E>, public detail::PassesCallChecks<TracingEndpoint<E>, E> {
public:
  /// Records rank inner.rank() into trace.rank(inner.rank()); the trace must have
  /// inner.size() ranks (std::invalid_argument otherwise).
  TracingEndpoint(E& inner, Trace& trace) : inner_(&inner), trace_(&trace)
  {
    if (trace.size() != inner.size())
      throw std::invalid_argument("collectives::TracingEndpoint: the trace has " + std::to_string(trace.size()) +
                                  " ranks but the transport has " + std::to_string(inner.size()));
  }

  std::size_t rank() const { return inner_->rank(); }
  std::size_t size() const { return inner_->size(); }
  E& inner() const { return *inner_; }
  void set_enabled(bool on) { enabled_ = on; }
  bool enabled() const { return enabled_; }
  /// The inner endpoint's call numbering and suggested model, passed on: tracing changes
  /// neither the checks nor the algorithms a Communicator picks.
  std::uint64_t begin_call()
    requires requires(E& e) { e.begin_call(); }
  {
    return inner_->begin_call();
  }
  decltype(auto) cost_model() const
    requires requires(const E& e) { e.cost_model(); }
  {
    return inner_->cost_model();
  }

  /// The step's messages; recorded as a wait slice stepped by this endpoint's own count.
  void exchange(std::span<const SendRequest> sends, std::span<const RecvRequest> recvs)
  {
    StepInfo info;
    info.step = exchanges_;
    traced_exchange(sends, recvs, info, false);
  }

  /// The step's messages, with the executor's description of the step.
  void exchange(std::span<const SendRequest> sends, std::span<const RecvRequest> recvs, const StepInfo& info)
  {
    traced_exchange(sends, recvs, info, true);
  }

  /// The same, running the step's work while it waits, where the wrapped endpoint does
  /// (its copy slices then lie inside the wait slice).
  void exchange(std::span<const SendRequest> sends, std::span<const RecvRequest> recvs, const StepInfo& info,
                const StepWork& work)
    requires requires(E& e) { e.exchange(sends, recvs, info, work); }
  {
    traced_exchange(sends, recvs, info, true, &work);
  }

  /// Which steps' StepWork E takes (see transport/concepts.hpp), where E says.
  bool takes_step_work(std::size_t bytes) const
    requires requires(const E& e) { e.takes_step_work(bytes); }
  {
    return inner_->takes_step_work(bytes);
  }

  /// Marks the start (begin) or end of one of the executor's phases of a step.
  void phase(Phase ph, bool begin, const StepInfo& info)
  {
    if constexpr (requires { inner_->phase(ph, begin, info); }) inner_->phase(ph, begin, info);
    if (!enabled_ || ph == Phase::wait) return; // wait: timed by exchange() itself
    const auto i = static_cast<std::size_t>(ph);
    if (begin) {
      phase_begin_[i] = detail::trace_now_ns();
      return;
    }
    RankTrace& me = trace_->rank(rank());
    TraceEvent ev = described(me, info);
    ev.kind = static_cast<TraceEvent::Kind>(ph); // post, wait, copy, combine share their order
    ev.begin_ns = phase_begin_[i] - me.epoch_ns;
    ev.end_ns = detail::trace_now_ns() - me.epoch_ns;
    me.events.push_back(ev);
  }

private:
  TraceEvent described(RankTrace& me, const StepInfo& info) const
  {
    TraceEvent ev;
    ev.call = info.call;
    ev.step = info.step;
    ev.steps = info.steps;
    ev.collective = me.name(info.collective);
    ev.algorithm = me.name(info.algorithm);
    return ev;
  }

  void traced_exchange(std::span<const SendRequest> sends, std::span<const RecvRequest> recvs, const StepInfo& info,
                       bool with_info, const StepWork* work = nullptr)
  {
    ++exchanges_;
    auto forward = [&] {
      if constexpr (requires { inner_->exchange(sends, recvs, info, *work); }) {
        if (work != nullptr) return inner_->exchange(sends, recvs, info, *work);
      }
      if constexpr (requires { inner_->exchange(sends, recvs, info); }) {
        if (with_info) return inner_->exchange(sends, recvs, info);
      }
      inner_->exchange(sends, recvs);
    };
    if (!enabled_) return forward();
    RankTrace& me = trace_->rank(rank());
    const std::uint64_t begin = detail::trace_now_ns();
    forward();
    const std::uint64_t end = detail::trace_now_ns();
    TraceEvent wait = described(me, info);
    wait.kind = TraceEvent::Kind::wait;
    wait.begin_ns = begin - me.epoch_ns;
    wait.end_ns = end - me.epoch_ns;
    me.events.push_back(wait);
    for (const auto& s : sends) {
      TraceEvent ev = wait;
      ev.kind = TraceEvent::Kind::send;
      ev.peer = s.peer;
      ev.bytes = total_bytes(s.pieces);
      ev.seq = me.sent[s.peer]++;
      me.events.push_back(ev);
    }
    for (const auto& r : recvs) {
      TraceEvent ev = wait;
      ev.kind = TraceEvent::Kind::recv;
      ev.peer = r.peer;
      ev.bytes = total_bytes(r.pieces);
      ev.seq = me.received[r.peer]++;
      me.events.push_back(ev);
    }
  }

  E* inner_;
  Trace* trace_;
  bool enabled_ = true;
  std::uint64_t exchanges_ = 0;
  std::uint64_t phase_begin_[4] = {};
};

template <endpoint E>
TracingEndpoint(E&, Trace&) -> TracingEndpoint<E>;

// ---------------------------------------------------------------------------------------
// Writing

namespace detail {

inline const char* trace_kind_name(TraceEvent::Kind k)
{
  switch (k) {
  case TraceEvent::Kind::post: return "post";
  case TraceEvent::Kind::wait: return "wait";
  case TraceEvent::Kind::copy: return "copy";
  case TraceEvent::Kind::combine: return "combine";
  case TraceEvent::Kind::send: return "send";
  case TraceEvent::Kind::recv: return "recv";
  }
  return "?";
}

inline std::string json_string(std::string_view s)
{
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += buf;
    } else out += c;
  }
  return out + "\"";
}

/// Microseconds with nanosecond resolution, as the format wants them.
inline std::string trace_us(std::uint64_t ns)
{
  char buf[32];
  std::snprintf(buf, sizeof buf, "%llu.%03llu", static_cast<unsigned long long>(ns / 1000),
                static_cast<unsigned long long>(ns % 1000));
  return buf;
}

} // namespace detail

inline std::string Trace::chrome_json(const std::vector<const Trace*>& traces)
{
  using detail::json_string;
  using detail::trace_us;
  std::ostringstream o;
  o << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  bool first = true;
  auto emit = [&](const std::string& line) {
    o << (first ? "" : ",\n") << line;
    first = false;
  };
  // One time origin for every trace: the earliest epoch.
  std::uint64_t origin = UINT64_MAX;
  for (const Trace* t : traces)
    for (const auto& r : t->ranks_) origin = std::min(origin, r.epoch_ns);
  std::uint64_t flow_id = 0;
  for (std::size_t ti = 0; ti < traces.size(); ++ti) {
    const Trace& t = *traces[ti];
    const std::string pid = std::to_string(ti + 1);
    emit("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" + pid + ",\"tid\":0,\"args\":{\"name\":" +
         json_string(t.label_) + "}}");
    for (std::size_t r = 0; r < t.ranks_.size(); ++r) {
      emit("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" + pid + ",\"tid\":" + std::to_string(r) +
           ",\"args\":{\"name\":\"rank " + std::to_string(r) + "\"}}");
      emit("{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":" + pid + ",\"tid\":" + std::to_string(r) +
           ",\"args\":{\"sort_index\":" + std::to_string(r) + "}}");
    }
    // Where each message's receive ended: (from, to, seq) -> time on the receiver's clock.
    std::map<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>, std::uint64_t> landed;
    for (std::size_t r = 0; r < t.ranks_.size(); ++r)
      for (const auto& ev : t.ranks_[r].events)
        if (ev.kind == TraceEvent::Kind::recv) // just inside the end of the receiver's slice
          landed[{ev.peer, r, ev.seq}] = t.ranks_[r].epoch_ns + ev.end_ns - (ev.end_ns > ev.begin_ns ? 1 : 0);
    for (std::size_t r = 0; r < t.ranks_.size(); ++r) {
      const RankTrace& rt = t.ranks_[r];
      const std::string where = ",\"pid\":" + pid + ",\"tid\":" + std::to_string(r);
      for (std::size_t i = 0; i < rt.events.size(); ++i) {
        const TraceEvent& ev = rt.events[i];
        const std::uint64_t b = rt.epoch_ns + ev.begin_ns - origin, e = rt.epoch_ns + ev.end_ns - origin;
        std::string args = "\"call\":" + std::to_string(ev.call) + ",\"step\":" + std::to_string(ev.step);
        if (ev.steps != 0) args += ",\"steps\":" + std::to_string(ev.steps);
        if (ev.collective != 0) args += ",\"collective\":" + json_string(rt.names.at(ev.collective));
        if (ev.algorithm != 0) args += ",\"algorithm\":" + json_string(rt.names.at(ev.algorithm));
        if (ev.kind == TraceEvent::Kind::send) {
          // A flow from the sender's wait slice to the receiver's, if the receive was traced.
          const auto it = landed.find({r, ev.peer, ev.seq});
          if (it == landed.end()) continue;
          const std::string id = std::to_string(++flow_id);
          const std::string info = ",\"args\":{\"from\":" + std::to_string(r) + ",\"to\":" + std::to_string(ev.peer) +
                                   ",\"bytes\":" + std::to_string(ev.bytes) + "," + args + "}";
          // Just inside the start of the sender's slice, so viewers bind it to that slice.
          const std::uint64_t start = b + (e > b + 1 ? 1 : 0);
          emit("{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"s\",\"id\":" + id + ",\"ts\":" +
               trace_us(start) + where + info + "}");
          const std::uint64_t end = it->second - origin;
          emit("{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"f\",\"bp\":\"e\",\"id\":" + id +
               ",\"ts\":" + trace_us(end) + ",\"pid\":" + pid + ",\"tid\":" + std::to_string(ev.peer) + info + "}");
          continue;
        }
        if (ev.kind == TraceEvent::Kind::recv) continue;
        if (ev.kind == TraceEvent::Kind::wait) {
          // The wait slice lists its messages (they follow it in the event list).
          std::string sends, recvs;
          std::uint64_t sent = 0, received = 0;
          for (std::size_t j = i + 1; j < rt.events.size(); ++j) {
            const TraceEvent& m = rt.events[j];
            if (m.kind != TraceEvent::Kind::send && m.kind != TraceEvent::Kind::recv) break;
            std::string& list = m.kind == TraceEvent::Kind::send ? sends : recvs;
            // Appended piece by piece: g++ 12 -O3 warns (-Wrestrict, a false positive) on
            // const char* + std::string&& here.
            if (!list.empty()) list += ',';
            list += '[';
            list += std::to_string(m.peer);
            list += ',';
            list += std::to_string(m.bytes);
            list += ']';
            (m.kind == TraceEvent::Kind::send ? sent : received) += m.bytes;
          }
          args += ",\"sends\":[" + sends + "],\"recvs\":[" + recvs + "],\"bytes_sent\":" + std::to_string(sent) +
                  ",\"bytes_received\":" + std::to_string(received);
        }
        emit(std::string("{\"name\":\"") + detail::trace_kind_name(ev.kind) + "\",\"cat\":\"collectives\",\"ph\":\"X\"," +
             "\"ts\":" + trace_us(b) + ",\"dur\":" + trace_us(e - b) + where + ",\"args\":{" + args + "}}");
      }
    }
  }
  o << "\n]}\n";
  return o.str();
}

// ---------------------------------------------------------------------------------------
// Across processes

inline std::vector<std::byte> Trace::serialize(const RankTrace& r)
{
  static_assert(std::is_trivially_copyable_v<TraceEvent>);
  std::vector<std::byte> out;
  auto put = [&](const void* p, std::size_t n) {
    const auto* b = static_cast<const std::byte*>(p);
    out.insert(out.end(), b, b + n);
  };
  const std::uint64_t names = r.names.size(), events = r.events.size();
  put(&r.epoch_ns, sizeof r.epoch_ns);
  put(&names, sizeof names);
  for (const auto& n : r.names) {
    const std::uint64_t len = n.size();
    put(&len, sizeof len);
    put(n.data(), n.size());
  }
  put(&events, sizeof events);
  put(r.events.data(), r.events.size() * sizeof(TraceEvent));
  return out;
}

inline RankTrace Trace::deserialize(const std::byte* data, std::size_t size)
{
  std::size_t at = 0;
  auto get = [&](void* p, std::size_t n) {
    if (at + n > size) throw std::runtime_error("collectives::Trace: truncated rank trace");
    std::memcpy(p, data + at, n);
    at += n;
  };
  RankTrace r;
  std::uint64_t names = 0, events = 0;
  get(&r.epoch_ns, sizeof r.epoch_ns);
  get(&names, sizeof names);
  r.names.clear();
  for (std::uint64_t i = 0; i < names; ++i) {
    std::uint64_t len = 0;
    get(&len, sizeof len);
    if (len > size) throw std::runtime_error("collectives::Trace: corrupt rank trace");
    std::string n(len, '\0');
    get(n.data(), len);
    r.names.push_back(std::move(n));
  }
  get(&events, sizeof events);
  if (events > size / sizeof(TraceEvent)) throw std::runtime_error("collectives::Trace: corrupt rank trace");
  r.events.resize(events);
  get(r.events.data(), events * sizeof(TraceEvent));
  return r;
}

/// Brings every rank's events to rank 0's `trace` over endpoint `ep` (any transport; not
/// the TracingEndpoint itself, or the gathering would be traced). For a trace filled by
/// one process per rank (MPI); a threads team shares one Trace and needs no gathering.
/// collective: every rank of ep must call it, each with the trace its rank recorded.
template <endpoint E>
void gather_trace(Trace& trace, E& ep)
{
  const std::size_t me = ep.rank(), p = ep.size();
  if (p == 1) return;
  if (me != 0) {
    const std::vector<std::byte> bytes = Trace::serialize(trace.rank(me));
    const std::uint64_t n = bytes.size();
    const ConstBytes size_piece{reinterpret_cast<const std::byte*>(&n), sizeof n};
    const SendRequest size_msg{0, std::span<const ConstBytes>(&size_piece, 1)};
    ep.exchange(std::span<const SendRequest>(&size_msg, 1), {});
    const ConstBytes body_piece{bytes.data(), bytes.size()};
    const SendRequest body_msg{0, std::span<const ConstBytes>(&body_piece, 1)};
    ep.exchange(std::span<const SendRequest>(&body_msg, 1), {});
    return;
  }
  std::vector<std::uint64_t> sizes(p, 0);
  std::vector<MutableBytes> size_pieces;
  std::vector<RecvRequest> recvs;
  size_pieces.reserve(p);
  for (std::size_t q = 1; q < p; ++q) size_pieces.push_back({reinterpret_cast<std::byte*>(&sizes[q]), sizeof(std::uint64_t)});
  for (std::size_t q = 1; q < p; ++q) recvs.push_back(RecvRequest{q, std::span<const MutableBytes>(&size_pieces[q - 1], 1)});
  ep.exchange({}, recvs);
  std::vector<std::vector<std::byte>> bodies(p);
  std::vector<MutableBytes> body_pieces;
  body_pieces.reserve(p);
  recvs.clear();
  for (std::size_t q = 1; q < p; ++q) {
    bodies[q].resize(sizes[q]);
    body_pieces.push_back({bodies[q].data(), bodies[q].size()});
  }
  for (std::size_t q = 1; q < p; ++q) recvs.push_back(RecvRequest{q, std::span<const MutableBytes>(&body_pieces[q - 1], 1)});
  ep.exchange({}, recvs);
  for (std::size_t q = 1; q < p; ++q) trace.rank(q) = Trace::deserialize(bodies[q].data(), bodies[q].size());
}

/// The file named by the environment variable COLLECTIVES_TRACE, or "" when it is unset
/// or empty (the examples and benchmarks trace when it is set).
inline std::string trace_file_from_environment()
{
  const char* v = std::getenv("COLLECTIVES_TRACE");
  return v == nullptr ? std::string{} : std::string(v);
}

} // namespace collectives
