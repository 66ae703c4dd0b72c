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
//  - one send and one receive (the one-port steps of most schedules) -> MPI_Sendrecv;
//    anything else (all-port steps, lone sends or receives) -> MPI_Irecv/MPI_Isend for
//    everything, receives posted first, then MPI_Waitsome until all have completed;
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

#include <collectives/transport/concepts.hpp>

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
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <span>
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
inline std::string error_string(int code)
{
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS || length <= 0)
    return "MPI error code " + std::to_string(code);
  return std::string(text, static_cast<std::size_t>(length));
}

/// Throws Error unless code is MPI_SUCCESS. Needs MPI_ERRORS_RETURN on the communicator
/// the call used (the default, MPI_ERRORS_ARE_FATAL, never returns).
inline void check(int code, const char* call, std::size_t rank)
{
  if (code == MPI_SUCCESS) return;
  throw Error(code, call,
              std::string("collectives::mpi: ") + call + " failed on rank " + std::to_string(rank) + ": " +
                  error_string(code));
}

inline bool is_truncation(int code)
{
  int cls = MPI_SUCCESS;
  return MPI_Error_class(code, &cls) == MPI_SUCCESS && cls == MPI_ERR_TRUNCATE;
}

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
  /// options, Error if MPI fails.
  explicit Endpoint(MPI_Comm comm = MPI_COMM_WORLD, Options options = {}) : options_(options)
  {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (!initialized || finalized)
      throw std::logic_error("collectives::mpi::Endpoint: MPI must be initialised (MPI_Init) and not finalised");
    if (options_.max_message_bytes == 0 || options_.max_message_bytes > static_cast<std::size_t>(INT_MAX))
      throw std::invalid_argument("collectives::mpi::Endpoint: max_message_bytes must be in 1 .. INT_MAX, not " +
                                  std::to_string(options_.max_message_bytes));
    int rank = 0, size = 0;
    detail::check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank", 0);
    detail::check(MPI_Comm_size(comm, &size), "MPI_Comm_size", static_cast<std::size_t>(rank));
    rank_ = static_cast<std::size_t>(rank);
    size_ = static_cast<std::size_t>(size);
    detail::check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup", rank_);
    const int rc = MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    if (rc != MPI_SUCCESS) {
      MPI_Comm_free(&comm_);
      detail::check(rc, "MPI_Comm_set_errhandler", rank_);
    }
  }

  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;

  Endpoint(Endpoint&& other) noexcept
    : comm_(std::exchange(other.comm_, MPI_COMM_NULL)), rank_(other.rank_), size_(other.size_),
      options_(other.options_) {}

  Endpoint& operator=(Endpoint&& other) noexcept
  {
    if (this != &other) {
      release();
      comm_ = std::exchange(other.comm_, MPI_COMM_NULL);
      rank_ = other.rank_;
      size_ = other.size_;
      options_ = other.options_;
    }
    return *this;
  }

  /// Frees the duplicate communicator (nothing if moved from, or if MPI is already
  /// finalised, in which case MPI_Finalize has reclaimed it).
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
    if (comm_ == MPI_COMM_NULL)
      throw std::logic_error("collectives::mpi::Endpoint: exchange() on a moved-from endpoint");
    for (const auto& s : sends)
      if (s.peer >= size_ || s.peer == rank_)
        throw std::invalid_argument("collectives::mpi: rank " + std::to_string(rank_) + " sends to invalid rank " +
                                    std::to_string(s.peer));
    for (const auto& r : recvs)
      if (r.peer >= size_ || r.peer == rank_)
        throw std::invalid_argument("collectives::mpi: rank " + std::to_string(rank_) +
                                    " receives from invalid rank " + std::to_string(r.peer));
    if (sends.empty() && recvs.empty()) return;

    // The common one-port step, one contiguous piece each way: straight to MPI_Sendrecv,
    // skipping the planning below (it is most of the transport's cost on tiny messages).
    if (sends.size() == 1 && recvs.size() == 1 && sends[0].pieces.size() == 1 && recvs[0].pieces.size() == 1 &&
        sends[0].pieces[0].size <= options_.max_message_bytes && recvs[0].pieces[0].size <= options_.max_message_bytes) {
      Chunk out, in;
      out.peer = sends[0].peer;
      out.buf = const_cast<std::byte*>(sends[0].pieces[0].data);
      out.bytes = out.msg_bytes = sends[0].pieces[0].size;
      out.count = static_cast<int>(out.bytes);
      in.peer = recvs[0].peer;
      in.buf = recvs[0].pieces[0].data;
      in.bytes = in.msg_bytes = recvs[0].pieces[0].size;
      in.count = static_cast<int>(in.bytes);
      sendrecv(out, in);
      return;
    }

    // Plan: cut every message into chunks and every chunk into segments.
    segments_.clear();
    chunks_.clear();
    for (const auto& r : recvs) plan(r.peer, r.pieces);
    const std::size_t first_send = chunks_.size();
    for (const auto& s : sends) plan(s.peer, s.pieces);

    // Staging space for the chunks that are packed; sized before any pointer into it is
    // taken, so it never moves while messages are in flight.
    std::size_t stage_bytes = 0;
    for (auto& c : chunks_) {
      if (c.nsegs <= 1) c.how = How::direct;
      else if (c.bytes <= options_.pack_bytes || c.bytes / c.nsegs < options_.pack_piece_bytes) c.how = How::packed;
      else c.how = How::datatype;
      if (c.how == How::packed) {
        c.stage = stage_bytes;
        stage_bytes += c.bytes;
      }
    }
    if (stage_.size() < stage_bytes) stage_.resize(stage_bytes);

    TypeGuard guard{types_};
    for (auto& c : chunks_) describe(c);

    if (first_send == 1 && chunks_.size() == 2) sendrecv(chunks_[1], chunks_[0]);
    else post_and_wait(first_send);

    // Unpack the packed receives.
    for (std::size_t i = 0; i < first_send; ++i) {
      const Chunk& c = chunks_[i];
      if (c.how != How::packed) continue;
      const std::byte* from = stage_.data() + c.stage;
      for (std::size_t k = 0; k < c.nsegs; ++k) {
        const Segment& s = segments_[c.seg + k];
        std::memcpy(s.data, from, s.size);
        from += s.size;
      }
    }
  }

private:
  enum class How : std::uint8_t { direct, packed, datatype };

  struct Segment {
    std::byte* data; // const_cast of a send piece: the library never writes through it
    std::size_t size;
  };

  // One MPI message.
  struct Chunk {
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

  void release() noexcept
  {
    if (comm_ == MPI_COMM_NULL) return;
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&comm_);
    comm_ = MPI_COMM_NULL;
  }

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
  void describe(Chunk& c)
  {
    switch (c.how) {
    case How::direct:
      c.buf = c.nsegs == 0 ? nullptr : static_cast<void*>(segments_[c.seg].data);
      c.count = static_cast<int>(c.bytes);
      c.type = MPI_BYTE;
      break;
    case How::packed:
      c.buf = stage_.data() + c.stage;
      c.count = static_cast<int>(c.bytes);
      c.type = MPI_BYTE;
      break;
    case How::datatype: {
      lengths_.resize(c.nsegs);
      displs_.resize(c.nsegs);
      for (std::size_t k = 0; k < c.nsegs; ++k) {
        const Segment& s = segments_[c.seg + k];
        lengths_[k] = static_cast<int>(s.size);
        detail::check(MPI_Get_address(s.data, &displs_[k]), "MPI_Get_address", rank_);
      }
      MPI_Datatype t = MPI_DATATYPE_NULL;
      detail::check(MPI_Type_create_hindexed(static_cast<int>(c.nsegs), lengths_.data(), displs_.data(), MPI_BYTE, &t),
                    "MPI_Type_create_hindexed", rank_);
      types_.push_back(t);
      detail::check(MPI_Type_commit(&types_.back()), "MPI_Type_commit", rank_);
      c.buf = MPI_BOTTOM;
      c.count = 1;
      c.type = types_.back();
      break;
    }
    }
  }

  void pack(const Chunk& c)
  {
    std::byte* to = stage_.data() + c.stage;
    for (std::size_t k = 0; k < c.nsegs; ++k) {
      const Segment& s = segments_[c.seg + k];
      std::memcpy(to, s.data, s.size);
      to += s.size;
    }
  }

  [[noreturn]] void throw_length(const Chunk& c, const std::string& got) const
  {
    std::string what = "collectives::mpi: rank " + std::to_string(rank_) + " expects " +
                       std::to_string(c.msg_bytes) + " bytes from rank " + std::to_string(c.peer) + ", ";
    if (c.bytes != c.msg_bytes || c.index > 0)
      what += "chunk " + std::to_string(c.index) + " of " + std::to_string(c.bytes) + " bytes (max_message_bytes " +
              std::to_string(options_.max_message_bytes) + "): ";
    throw std::length_error(what + got);
  }

  // A received chunk: its MPI status says how much arrived.
  void check_received(const Chunk& c, MPI_Status& status, int code, const char* call) const
  {
    if (code != MPI_SUCCESS) {
      if (detail::is_truncation(code)) throw_length(c, "which sent more");
      detail::check(code, call, rank_);
    }
    // Bytes received: MPI_Get_count for MPI_BYTE receives (cheap), the byte elements of
    // the datatype otherwise (MPI_Get_count would say MPI_UNDEFINED for a partial one).
    long long got = 0;
    if (c.type == MPI_BYTE) {
      int n = 0;
      detail::check(MPI_Get_count(&status, MPI_BYTE, &n), "MPI_Get_count", rank_);
      got = n;
    } else {
      MPI_Count n = 0;
      detail::check(MPI_Get_elements_x(&status, c.type, &n), "MPI_Get_elements_x", rank_);
      got = static_cast<long long>(n);
    }
    if (got < 0 || static_cast<std::size_t>(got) != c.bytes) throw_length(c, "received " + std::to_string(got));
  }

  static constexpr int tag = 0; // the communicator is ours alone: one tag suffices

  void sendrecv(const Chunk& s, const Chunk& r)
  {
    if (s.how == How::packed) pack(s);
    MPI_Status status;
    const int rc = MPI_Sendrecv(s.buf, s.count, s.type, static_cast<int>(s.peer), tag, r.buf, r.count, r.type,
                                static_cast<int>(r.peer), tag, comm_, &status);
    check_received(r, status, rc, "MPI_Sendrecv");
  }

  void post_and_wait(std::size_t first_send)
  {
    const std::size_t n = chunks_.size();
    requests_.assign(n, MPI_REQUEST_NULL);
    statuses_.resize(n);
    // Receives first, so no message arrives unexpected.
    for (std::size_t i = 0; i < first_send; ++i) {
      const Chunk& c = chunks_[i];
      detail::check(MPI_Irecv(c.buf, c.count, c.type, static_cast<int>(c.peer), tag, comm_, &requests_[i]),
                    "MPI_Irecv", rank_);
    }
    for (std::size_t i = first_send; i < n; ++i) {
      const Chunk& c = chunks_[i];
      if (c.how == How::packed) pack(c);
      detail::check(MPI_Isend(c.buf, c.count, c.type, static_cast<int>(c.peer), tag, comm_, &requests_[i]),
                    "MPI_Isend", rank_);
    }
    // MPI_Waitsome rather than MPI_Waitall, for two reasons: each receive is checked as
    // it completes, so a size mismatch that leaves later chunks of a message unmatched is
    // reported instead of waited on for ever; and Open MPI 4.1's MPI_Waitall never
    // returns when a request completes with an error (a truncated receive) if MPI was
    // initialised with MPI_THREAD_FUNNELED or above (its MPI_Wait/Waitsome/Waitany do).
    indices_.resize(n);
    try {
      for (std::size_t open = n; open > 0;) {
        int done = 0;
        const int rc = MPI_Waitsome(static_cast<int>(n), requests_.data(), &done, indices_.data(), statuses_.data());
        if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) detail::check(rc, "MPI_Waitsome", rank_);
        if (done == MPI_UNDEFINED) break;
        for (std::size_t k = 0; k < static_cast<std::size_t>(done); ++k)
          finish(static_cast<std::size_t>(indices_[k]), first_send, statuses_[k],
                 rc == MPI_ERR_IN_STATUS ? statuses_[k].MPI_ERROR : MPI_SUCCESS, "MPI_Waitsome");
        open -= static_cast<std::size_t>(done);
      }
    } catch (...) {
      abandon(first_send);
      throw;
    }
  }

  // After a failure: no receive may write into the caller's memory once exchange() has
  // thrown, so pending receives are cancelled (and waited for: one that had already
  // matched completes normally); pending sends are released to complete on their own
  // (cancelling sends is deprecated and unreliable).
  void abandon(std::size_t first_send) noexcept
  {
    for (std::size_t i = 0; i < requests_.size(); ++i) {
      if (requests_[i] == MPI_REQUEST_NULL) continue;
      if (i < first_send) {
        MPI_Cancel(&requests_[i]);
        MPI_Wait(&requests_[i], MPI_STATUS_IGNORE);
      } else {
        MPI_Request_free(&requests_[i]);
      }
    }
  }

  // Request i has completed with `status` and error `code`.
  void finish(std::size_t i, std::size_t first_send, MPI_Status& status, int code, const char* call)
  {
    if (i < first_send) check_received(chunks_[i], status, code, call);
    else detail::check(code, call, rank_);
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  std::size_t rank_ = 0;
  std::size_t size_ = 0;
  Options options_{};

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
