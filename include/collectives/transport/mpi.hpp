#pragma once
// The MPI transport: collectives::mpi::Endpoint runs any schedule over an MPI communicator.
//
// Include this header only where MPI is available (link collectives::mpi); the umbrella
// <collectives/collectives.hpp> leaves it out so the rest of the library never needs MPI.
//
// How a step maps onto MPI:
//  - every logical message is ONE MPI message (per chunk, see below): a single piece goes
//    as MPI_BYTE straight from/to the caller's memory; several pieces are either packed
//    into a staging buffer (small messages: a memcpy per piece costs less than building a
//    datatype) or described by an MPI_Type_create_hindexed datatype over absolute
//    addresses (large messages: MPI reads/writes the pieces in place);
//  - every step: MPI_Irecv for every receive, then MPI_Isend for every send (a step of one
//    message each way, one piece each, posts its send first: exchange_one), then
//    MPI_Testsome until all have completed, MPI_Test once one is left (polling, not
//    blocking, so that a wait can look for stale messages and keep the watchdog;
//    MPI_Sendrecv is the same underneath); once
//    only sends are left and there is no watchdog, MPI_Wait (nothing to look for, and no
//    fence, which Open MPI's MPI_Test* begin with); a step of one send in one piece and
//    nothing to receive, without a watchdog, is one MPI_Send, which returns when they would;
//  - a step's local copies that touch none of its messages (StepWork) run between posting
//    and waiting when the step moves 1-16 KiB (Options::overlap_work_min_bytes,
//    overlap_work_bytes; takes_step_work), after the wait otherwise;
//  - a message of more than Options::max_message_bytes (INT_MAX by default: MPI counts
//    are int) goes as several MPI messages cut at the same byte offsets on both sides and
//    matched in order (MPI never lets two messages on one communicator, source and tag
//    overtake each other);
//  - every received chunk's size is checked (MPI_Get_count; MPI_Get_elements_x for a
//    datatype) against the expected size; a mismatch, including a longer message
//    truncated by MPI, is std::length_error naming both ranks. Receives still pending
//    when exchange() throws are cancelled first, so nothing lands in the caller's memory
//    afterwards.
//
// Calls never mix: every message's tag carries its collective call's number (begin_call)
// and step (see Endpoint::tag_for), so a message left over from a mismatched or failed
// call can never match a receive of a later call, nor a receive of another step. A
// leftover is reported as CallMismatch naming both calls: when a receive has waited a
// while (MPI_Iprobe with MPI_ANY_TAG from the peers it waits for finds a message of an
// earlier call or step), every 64th call (MPI_Iprobe from any source), and, as a warning
// on stderr, when the endpoint is destroyed.
//
// Watchdog: with Options::timeout_seconds (or the environment variable
// COLLECTIVES_MPI_TIMEOUT, in seconds) a rank that waits that long in one step without
// any message completing prints the collective, algorithm, call, step, and the peers and
// bytes it waits for, and calls MPI_Abort (exit code Options::timeout_exit_code).
//
// Isolation: the Endpoint works on its own duplicate of the given communicator
// (MPI_Comm_dup), so no message of the library can ever match a receive of the
// application (or of another Endpoint), whatever tags and sources either uses, and the
// library can set MPI_ERRORS_RETURN on it without changing how the application's
// communicator reports errors. The duplicate is freed by the destructor.
//
// Failures: an MPI error becomes collectives::mpi::Error naming the MPI call and MPI's
// error string. Unlike the threads transport, a rank that throws cannot release its peers:
// they would wait in MPI for ever. Treat an exception from a collective as fatal for the
// whole job: catch it, report it and call MPI_Abort, which ends every rank and makes
// mpirun exit non-zero. abort_on_exception() below does exactly that.

#include <collectives/cost/model.hpp>
#include <collectives/transport/concepts.hpp>
#include <collectives/detail/config.hpp>
#include <collectives/transport/errors.hpp>

// The library uses MPI's C interface only. Skip the MPI-2 C++ bindings (deprecated, gone
// from MPI-3): they cost a link dependency and do not compile warning-free with g++
// -Wextra. Has no effect if <mpi.h> was already included.
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <span>
#include <thread>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace collectives::mpi {

/// An MPI call failed. what() names the call, the rank and MPI's error string.
class Error : public std::runtime_error {
public:
  Error(int code, std::string call, const std::string& what)
    : std::runtime_error(what), code_(code), call_(std::move(call)) {}
  /// The MPI error code the call returned.
  int code() const noexcept { return code_; }
  /// The name of the MPI function that failed, e.g. "MPI_Sendrecv".
  const std::string& call() const noexcept { return call_; }

private:
  int code_;
  std::string call_;
};

namespace detail {

/// MPI's text for an error code (the code itself if MPI has none).
COLLECTIVES_DECL std::string error_string(int code);

/// A rank not yet known (an error's text then names none).
inline constexpr std::size_t unknown_rank = static_cast<std::size_t>(-1);

/// Throws Error for a code other than MPI_SUCCESS (check's failure path).
[[noreturn]] COLLECTIVES_COLD COLLECTIVES_DECL void throw_error(int code, const char* call, std::size_t rank);

/// Throws Error unless code is MPI_SUCCESS. Needs MPI_ERRORS_RETURN on the communicator
/// the call used (the default, MPI_ERRORS_ARE_FATAL, never returns). Inline: a step makes
/// three or four MPI calls, each checked. `rank`: this rank, or unknown_rank.
inline void check(int code, const char* call, std::size_t rank)
{
  if (code != MPI_SUCCESS) [[unlikely]]
    throw_error(code, call, rank);
}

COLLECTIVES_DECL bool is_truncation(int code);

/// The cost model of the machine under `comm` (collective: every rank calls it). Each
/// rank counts the ranks on its node (MPI_Comm_split_type) and the cores they may run on
/// (the union of their affinity masks, one MPI_Allreduce on the node); one MPI_Allreduce
/// makes the worst node's figures everybody's, so every rank returns
/// the same model. PMPI_ entry points: the PMPI shim builds endpoints inside intercepted
/// collectives.
COLLECTIVES_DECL CostModel machine_model(MPI_Comm comm, std::size_t rank, std::size_t size);

} // namespace detail

/// Tuning of an Endpoint. The defaults suit production; tests shrink them to exercise the
/// chunking and datatype paths with small buffers.
struct Options {
  /// Largest MPI message in bytes (1 .. INT_MAX). A longer logical message is split into
  /// several MPI messages at the same byte offsets on sender and receiver.
  std::size_t max_message_bytes = INT_MAX;
  /// A message of several pieces is packed into a staging buffer (a memcpy per piece on
  /// each side) when it has at most pack_bytes bytes or its mean piece is shorter than
  /// pack_piece_bytes; otherwise it travels in place through an MPI_Type_create_hindexed
  /// datatype. Measured on Open MPI 4.1 (2 ranks, shared memory and TCP): building and
  /// committing a datatype costs about 1 us, more than copying a few KiB, and MPI moves
  /// many short pieces of a datatype more slowly than one packed buffer, while a few long
  /// pieces are faster in place. pack_bytes = pack_piece_bytes = 0: never pack;
  /// pack_bytes = SIZE_MAX: always pack.
  std::size_t pack_bytes = 4096;
  /// See pack_bytes.
  std::size_t pack_piece_bytes = 2048;
  /// Watchdog: a rank that waits this many seconds in one step with no message completing
  /// reports where it is stuck and aborts the job (MPI_Abort). 0: the value of the
  /// environment variable COLLECTIVES_MPI_TIMEOUT (seconds) if set, else no watchdog;
  /// negative: no watchdog whatever the environment says.
  double timeout_seconds = 0;
  /// The exit code the watchdog aborts the job with (124, as timeout(1)).
  int timeout_exit_code = 124;
  /// A step's local copies that touch none of its messages (StepWork) run between
  /// posting and waiting when the step sends and receives from overlap_work_min_bytes to
  /// overlap_work_bytes bytes in all, so that the copy overlaps the messages' flight;
  /// otherwise after the wait (takes_step_work: the executor runs them itself). Measured
  /// (p = 2, ob1 over vader without single copy, time / Open MPI's): see README
  /// "Transports". A larger step's copy held back Open MPI's progress of its messages,
  /// which needs this rank's calls (an earlier session, 1 MiB: the scan 0.80 -> 0.98x,
  /// the scatter 1.07 -> 1.29x); a tiny one gains nothing. overlap_work_bytes = 0, or
  /// below overlap_work_min_bytes: always after.
  std::size_t overlap_work_bytes = 16 * 1024;
  /// See overlap_work_bytes.
  std::size_t overlap_work_min_bytes = 1024;
  /// Opt-in consistency check: before each collective call the ranks compare its
  /// collective, algorithm, root, shift distance, number of steps, element count and
  /// element size (StepInfo; one MPI_Iallreduce of
  /// a hash, a few microseconds), and every rank throws CallMismatch if they differ, where
  /// otherwise ranks that disagree on a root may each finish with their own result and only
  /// a leftover message tells (README "Transports"). false: the environment variable
  /// COLLECTIVES_MPI_CHECK=1 turns it on. A rank that makes a call the others never make
  /// waits in its check: with the watchdog (timeout_seconds) the job ends instead.
  bool check_calls = false;
};

/// One rank's end of an MPI communicator; satisfies collectives::endpoint.
///
/// Requirements: MPI is initialised and not finalised while the Endpoint exists; one
/// thread at a time uses it, a thread the MPI thread level allows to call MPI (the main
/// thread under MPI_THREAD_SINGLE or FUNNELED). Non-copyable (it owns a communicator),
/// movable (the moved-from Endpoint owns nothing). Two collectives in flight at once
/// (e.g. from two threads under MPI_THREAD_MULTIPLE) need two Endpoints.
/// collective: every rank of `comm` must construct it (MPI_Comm_dup is collective) and
/// destroy it (MPI_Comm_free), in the same order as its other collective calls on comm.
class Endpoint {
public:
  /// Duplicates `comm` (MPI_COMM_WORLD by default) and sets MPI_ERRORS_RETURN on the copy.
  /// Throws std::logic_error if MPI is not initialised, std::invalid_argument for bad
  /// options, MPI_COMM_NULL or an inter-communicator, Error if MPI fails (on `comm` itself
  /// only where its error handler returns: MPI's default aborts the job).
  explicit Endpoint(MPI_Comm comm = MPI_COMM_WORLD, Options options = {});

  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;

  Endpoint(Endpoint&& other) noexcept { take(other); }

  Endpoint& operator=(Endpoint&& other) noexcept;

  /// Frees the duplicate communicator (nothing if moved from, or if MPI is already
  /// finalised, in which case MPI_Finalize has reclaimed it). A message of an earlier call
  /// still waiting to be received is reported on stderr (a destructor cannot throw).
  ~Endpoint() { release(); }

  /// This rank in the communicator.
  std::size_t rank() const noexcept { return rank_; }
  /// Number of ranks in the communicator.
  std::size_t size() const noexcept { return size_; }
  /// The private duplicate the library talks on (MPI_COMM_NULL once moved from). For
  /// inspection: sending or receiving on it would disturb the library's matching.
  MPI_Comm native_handle() const noexcept { return comm_; }
  /// The options given at construction.
  const Options& options() const noexcept { return options_; }

  /// Posts every send and receive of one step and returns when all have completed.
  /// The n-th message to a peer matches the peer's n-th receive from this rank.
  /// Throws std::invalid_argument for a peer out of range or equal to rank(),
  /// std::length_error if a message's size differs from what the receive expects, Error
  /// if MPI fails. Cost: one MPI message per logical message (per max_message_bytes
  /// chunk); a memcpy of the pieces of packed messages (see Options); no allocation once
  /// the endpoint has seen a step of the same shape.
  /// collective: the peers must make the matching exchange() calls.
  void exchange(std::span<const SendRequest> sends, std::span<const RecvRequest> recvs)
  {
    exchange_step(sends, recvs, nullptr);
  }

  /// The same, for the collective call and step `info`: the messages carry both in their
  /// tag, so they match only the peers' receives of the same call and step. Throws
  /// CallMismatch when a receive waits and finds a message of an earlier call or step
  /// from a peer it waits for.
  void exchange(std::span<const SendRequest> sends, std::span<const RecvRequest> recvs, const StepInfo& info)
  {
    exchange_step(sends, recvs, &info);
  }

  /// The same, running `work` (the step's local copies that touch none of its messages)
  /// once: between posting and waiting when a step of its size takes work
  /// (takes_step_work), so that the copy overlaps the messages' flight (Open MPI's linear
  /// gather copies the root's own block before it receives); else after the wait. If work
  /// throws, the step's receives are cancelled as for any failure.
  void exchange(std::span<const SendRequest> sends, std::span<const RecvRequest> recvs, const StepInfo& info,
                const StepWork& work)
  {
    exchange_step(sends, recvs, &info, &work);
  }

  /// Whether exchange() should be given the StepWork of a step that sends and receives
  /// `bytes` in all: from Options::overlap_work_min_bytes to overlap_work_bytes.
  bool takes_step_work(std::size_t bytes) const noexcept
  {
    return bytes >= options_.overlap_work_min_bytes && bytes <= options_.overlap_work_bytes;
  }

  /// Numbers the next collective call (from 1); every 64th call first looks for messages
  /// of earlier calls that no receive took (CallMismatch naming both calls).
  std::uint64_t begin_call();

  /// Throws CallMismatch, naming both calls, if a message of a call before the latest
  /// begun one (or of an earlier step) is waiting unreceived on this rank. Collectives do
  /// this when a receive waits and every 64th call; call it to check at a point of your own
  /// (after MPI has delivered the peers' messages: it sees only what has arrived).
  void check_leftovers()
  {
    if (comm_ != MPI_COMM_NULL) check_leftovers(nullptr);
  }

  /// Throws CallMismatch if any message of a collective call is waiting unreceived on this
  /// rank: of an earlier call, of this rank's latest call, or of a call this rank has not
  /// made (its sender made more calls on the communicator than this rank). Call it where
  /// this rank has made its last collective call on the endpoint and the peers' messages
  /// have arrived (it sees only what has); the destructor does the same and prints what it
  /// finds.
  void check_none_left() const;

  /// The cost model a Communicator chooses default algorithms with, decided when the
  /// endpoint was built and the same on every rank (one MPI_Allreduce agreed on it). All
  /// ranks on one node: shared memory, where each rank's CPU copies what it sends and
  /// receives (half_duplex) and any rank reaches any other directly (crossbar); with more
  /// ranks on a node than it has cores, the ranks time-share them (lanes) and every step
  /// waits for partners to be scheduled (t_sync grows with the ranks per core). Ranks on
  /// several nodes: default_cost_model (a network that moves messages by itself), with
  /// lanes and t_sync when a node is oversubscribed.
  CostModel cost_model() const noexcept { return model_; }

  /// The watchdog's timeout in seconds (0: none), from the options or the environment.
  double timeout_seconds() const noexcept { return timeout_; }

  /// Whether each collective call is compared across ranks first (Options::check_calls or
  /// COLLECTIVES_MPI_CHECK=1).
  bool checks_calls() const noexcept { return check_calls_; }
  /// The consistency check of one call (the executor calls it before the call's first step
  /// when checks_calls()): throws CallMismatch on every rank if any rank's collective,
  /// algorithm, root, shift distance, steps, element count or element size differ.
  /// collective: every rank must call it.
  void check_call(const StepInfo& info);

private:
  void exchange_step(std::span<const SendRequest> sends, std::span<const RecvRequest> recvs, const StepInfo* info,
                     const StepWork* work = nullptr);

  /// Runs the step's work now if it is still to run and a step of `bytes` takes it
  /// (takes_step_work), or whatever the step moves (`always`: the step is done).
  void run_work(std::size_t bytes, bool always = false)
  {
    if (work_ == nullptr || (!always && !takes_step_work(bytes))) return;
    const StepWork* w = std::exchange(work_, nullptr);
    (*w)();
  }

  enum class How : std::uint8_t { direct, packed, datatype };

  struct Segment {
    std::byte* data; // const_cast of a send piece: the library never writes through it
    std::size_t size;
  };

  // One MPI message.
  struct Chunk {
    // User-provided: emplace_back() value-initialises, which for an implicit constructor
    // zeroes the whole chunk first (a `rep stos` per message) and then stores the member
    // initialisers.
    Chunk() noexcept {}
    std::size_t peer = 0;
    std::size_t seg = 0;   // first segment
    std::size_t nsegs = 0; // segments (0 for an empty message)
    std::size_t bytes = 0;
    std::size_t index = 0;       // chunk number within its logical message
    std::size_t msg_bytes = 0;   // bytes of the whole logical message
    std::size_t stage = 0;       // offset in stage_ (packed)
    How how = How::direct;
    void* buf = nullptr;         // what MPI is given
    int count = 0;
    MPI_Datatype type = MPI_BYTE;
  };

  // Frees the datatypes of one exchange whatever way it leaves.
  struct TypeGuard {
    std::vector<MPI_Datatype>& types;
    ~TypeGuard()
    {
      for (auto& t : types) MPI_Type_free(&t);
      types.clear();
    }
  };

  void release() noexcept;

  void take(Endpoint& other) noexcept;

  template <class Piece>
  void plan(std::size_t peer, std::span<const Piece> pieces)
  {
    const std::size_t limit = options_.max_message_bytes;
    const std::size_t msg_bytes = total_bytes(pieces);
    Chunk c;
    c.peer = peer;
    c.seg = segments_.size();
    c.msg_bytes = msg_bytes;
    auto close = [&] {
      c.nsegs = segments_.size() - c.seg;
      chunks_.push_back(c);
      ++c.index;
      c.seg = segments_.size();
      c.bytes = 0;
    };
    for (const auto& piece : pieces) {
      std::size_t at = 0;
      while (at < piece.size) {
        const std::size_t n = std::min(piece.size - at, limit - c.bytes);
        std::byte* data = const_cast<std::byte*>(piece.data) + at;
        // Pieces that happen to be adjacent travel as one segment.
        if (segments_.size() > c.seg && segments_.back().data + segments_.back().size == data)
          segments_.back().size += n;
        else
          segments_.push_back(Segment{data, n});
        at += n;
        c.bytes += n;
        if (c.bytes == limit) close();
      }
    }
    // The last partial chunk; an empty message is still one (empty) MPI message, so the
    // matching stays in step with the peer and a size mismatch is detected.
    if (c.bytes > 0 || c.index == 0) close();
  }

  // Sets what MPI is given for a chunk (packing happens just before the send is posted).
  void describe(Chunk& c);

  void pack(const Chunk& c);

  /// received_bytes' result for a message longer than its receive (MPI truncated it).
  static constexpr long long truncated = -1;

  /// Reports a received chunk of the wrong size: `got` bytes, or `truncated`.
  [[noreturn]] COLLECTIVES_COLD void throw_length(const Chunk& c, long long got) const;

  /// The bytes a completed receive of `type` got, from its status and error code, or
  /// `truncated`; throws Error for any other MPI error.
  long long received_bytes(MPI_Status& status, int code, MPI_Datatype type, const char* call) const;

  // --- tags: which call and step a message belongs to ---------------------------------
  //
  // tag = call field << step_bits_ | step mod 2^step_bits_, where the call field counts
  // calls 1, 2, ... modulo call_window_ (2^(b - step_bits_) - 1 for tags of b bits, from
  // MPI_TAG_UB), never 0, and tag 0 marks exchanges outside any call (no StepInfo). With
  // Open MPI's 31 bits: 10 step bits and a window of 2^21 - 1 calls. Calls are compared
  // by serial-number arithmetic: a field within half the window behind the current one is
  // an earlier call. A stale message is found within 64 calls (begin_call), long before
  // the window wraps; steps beyond 2^step_bits_ share tags, which MPI's in-order matching
  // of equal tags keeps correct when the ranks agree.

  std::uint64_t call_field(std::uint64_t call) const
  {
    // The latest call's field kept: every step of a call tags its messages, and a 64-bit
    // division per step sat on the path of every small message. The next call's field
    // follows it without one (calls are numbered one by one).
    if (call != field_call_) {
      field_ = call == field_call_ + 1 && field_call_ != 0 ? (field_ == call_window_ ? 1 : field_ + 1)
                                                           : 1 + (call - 1) % call_window_;
      field_call_ = call;
    }
    return field_;
  }

  int tag_for(const StepInfo* info) const;

  /// What a message's tag says relative to where this rank is: its call's number and
  /// step, and whether it belongs to an earlier call, or an earlier step of this call.
  struct TagMeaning {
    bool ours = false;  // a tag of a collective call (not 0)
    bool stale = false; // earlier than (call, step): no receive of this rank will take it
    std::uint64_t call = 0;
    std::uint64_t step = 0;
  };
  TagMeaning classify(int tag, std::uint64_t call, const StepInfo* info) const;

  struct CallRecord {
    std::uint64_t call = 0;
    std::string_view collective{}, algorithm{};
    std::size_t steps = 0;
  };
  void remember(const StepInfo& info) { history_[info.call % history_.size()] = {info.call, info.collective, info.algorithm, info.steps}; }

  /// "broadcast (binomial), call 3, step 0 of 2" for a call of this rank's history.
  std::string describe_call(std::uint64_t call, std::uint64_t step) const;

  /// Throws CallMismatch for a message from `source` with `status` that is stale.
  void check_probed(const MPI_Status& status, std::uint64_t call, const StepInfo* info, const char* where) const;

  /// Looks for messages of calls before `calls_` (before the running step when `info`)
  /// that are waiting unreceived: from `peer`, or from any rank (npos).
  void check_leftovers(const StepInfo* info, std::size_t peer = ~std::size_t{0}) const;

  // --- posting and waiting ------------------------------------------------------------

  /// A waiting step reads the clock every clock_every polls (a step that completes within
  /// them costs nothing more), and looks for stale messages after quiet_polls polls or
  /// look_time, whichever comes first, then every look_every polls or look_time.
  static constexpr unsigned clock_every = 64;
  static constexpr unsigned quiet_polls = 2048;
  static constexpr unsigned look_every = 256;
  static constexpr std::chrono::steady_clock::duration look_time = std::chrono::milliseconds(2);
  static constexpr std::uint64_t stale_check_interval = 64;

  void post_and_wait(std::size_t first_send);

  /// Polls req[0 .. n) (the first nrecv receives) with MPI_Testsome until all complete
  /// (with MPI_Test once one is left): done(i, status, code) checks request i as it
  /// completes. While waiting it looks for
  /// stale messages from peer(i) of each pending receive and, past the timeout, ends the
  /// job through the watchdog, once records() has made chunks_ and requests_ say what is
  /// pending. Once only sends are left and there is no watchdog, it waits for them with
  /// MPI_Wait (nothing else is looked at while sends wait). (Defined in impl/mpi.ipp, the
  /// only place that calls it.)
  template <class Done, class Peer, class Records>
  void wait_all(std::size_t n, std::size_t nrecv, MPI_Request* req, int* index, MPI_Status* status, Done&& done,
                Peer&& peer, Records&& records);

  /// exchange_step's one-port step (at most one message each way, of at most one piece
  /// within max_message_bytes): posted and waited for as post_and_wait does, with its
  /// requests on the stack.
  void exchange_one(const SendRequest* send, const RecvRequest* recv);

  /// exchange_one's messages as chunks_ and requests_ (req: its requests, the receive's
  /// first), for the reports that read them.
  COLLECTIVES_COLD void one_as_chunks(const SendRequest* send, const RecvRequest* recv, const MPI_Request* req);

  /// exchange_one's receive got the wrong size (`got` as throw_length takes it).
  [[noreturn]] COLLECTIVES_COLD void one_failed(const SendRequest* send, const RecvRequest* recv,
                                                const MPI_Request* req, long long got);

  /// The watchdog's report; ends the job.
  [[noreturn]] COLLECTIVES_COLD void watchdog(std::size_t first_send, std::chrono::steady_clock::duration waited) const;
  /// Prints `what`, then that the job ends and the likely causes, and ends it (MPI_Abort).
  [[noreturn]] COLLECTIVES_COLD void abort_job(std::string what) const;

  // After a failure: no receive may write into the caller's memory once exchange() has
  // thrown, so pending receives are cancelled (and waited for: one that had already
  // matched completes normally); pending sends are released to complete on their own
  // (cancelling sends is deprecated and unreliable).
  // req[0 .. n): the receives first, then the sends.
  void abandon(MPI_Request* req, std::size_t n, std::size_t first_send) noexcept;

  // Request i has completed with `status` and error `code`.
  void finish(std::size_t i, std::size_t first_send, MPI_Status& status, int code, const char* call);

  MPI_Comm comm_ = MPI_COMM_NULL;
  std::size_t rank_ = 0;
  std::size_t size_ = 0;
  Options options_{};
  int step_bits_ = 10;
  std::uint64_t call_window_ = (std::uint64_t{1} << 21) - 1;
  mutable std::uint64_t field_call_ = 0, field_ = 0; // call_field's latest (set for call 0 with call_window_)
  double timeout_ = 0;
  bool check_calls_ = false;
  CostModel model_ = default_cost_model;
  std::uint64_t calls_ = 0;
  std::array<CallRecord, 64> history_{}; // the names of the latest calls, for messages
  const StepInfo* info_ = nullptr;       // the running step's (during exchange())
  const StepWork* work_ = nullptr;       // the running step's work, until it has run
  int tag_ = 0;

  // Reused by every exchange(), so a warmed-up endpoint allocates nothing per step.
  std::vector<Segment> segments_;
  std::vector<Chunk> chunks_;
  std::vector<std::byte> stage_;
  std::vector<int> lengths_;
  std::vector<MPI_Aint> displs_;
  std::vector<MPI_Datatype> types_;
  std::vector<MPI_Request> requests_;
  std::vector<MPI_Status> statuses_;
  std::vector<int> indices_;
};

/// Runs f(); if it throws, prints "collectives: rank R: <what>" to stderr and calls
/// MPI_Abort(comm, error_code), which ends every rank of the job (mpirun then exits
/// non-zero). Use it around collectives so that a failing rank never leaves the others
/// waiting for a message that will not come.
template <class F>
decltype(auto) abort_on_exception(F&& f, MPI_Comm comm = MPI_COMM_WORLD, int error_code = 1)
{
  try {
    return std::forward<F>(f)();
  } catch (const std::exception& e) {
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::fprintf(stderr, "collectives: rank %d: %s\n", rank, e.what());
    std::fflush(stderr);
  } catch (...) {
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::fprintf(stderr, "collectives: rank %d: unknown exception\n", rank);
    std::fflush(stderr);
  }
  MPI_Abort(comm, error_code);
  std::terminate(); // MPI_Abort does not return; this is for the compiler's benefit
}

} // namespace collectives::mpi

#if !COLLECTIVES_DETAIL_CORE_APART
#include <collectives/transport/impl/mpi.ipp>
#endif
