// The interposed MPI functions. Each checks its arguments, decides whether the library
// can serve the call, and either runs it (staging non-contiguous datatypes through packed
// buffers) or forwards it unchanged to Open MPI's PMPI_ function.
//
// Every forwarding decision depends only on what the MPI standard makes the same on every
// rank of the call (the communicator, a reduction's datatype and operator, the bytes each
// rank contributes, counts that every rank passes), never on what may differ between
// ranks (a rank's datatype in data movement, MPI_IN_PLACE at the root): otherwise some
// ranks would run the library's schedule while others waited in Open MPI's. That is why
// derived datatypes are packed rather than forwarded, and why MPI_Gatherv and
// MPI_Scatterv, whose counts only the root knows, are always forwarded.

#include "datatype.hpp"
#include "engine.hpp"
#include "state.hpp"
#include "stats.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>
#include <vector>

namespace collectives::pmpi {

namespace {

using Bytes = std::vector<std::byte>;

/// Returned by an interposed call's body to hand the call to Open MPI (MPI error codes
/// are never negative).
constexpr int forward_call = -1;

/// The common frame of an interposed call: whether to serve it, and its outcome.
class Frame {
public:
  Frame(Call call, MPI_Comm comm) : call_(call), comm_(comm) {}

  /// Hands the call to Open MPI for `reason` (counted in the report): returns forward_call.
  int forward(const char* reason)
  {
    reason_ = reason;
    return forward_call;
  }

  /// The algorithm to run collective c with on `problem` (CommState::choose).
  std::size_t choose(CommState& s, Coll c, const Problem& problem)
  {
    const CommState::Choice choice = s.choose(call_, c, problem);
    row_ = choice.row;
    return choice.alg;
  }
  /// A served call that moved `bytes` (this rank's buffers).
  int served(std::size_t bytes)
  {
    row_->add(bytes);
    return MPI_SUCCESS;
  }
  /// A call with nothing to move.
  int empty()
  {
    served_row(call_, "(0 bytes: nothing to do)").add(0);
    return MPI_SUCCESS;
  }

  /// An error: through the communicator's error handler; returns the code.
  int fail(int code, const std::string& what)
  {
    MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
    bool fatal = true;
    if (comm_ != MPI_COMM_NULL && PMPI_Comm_get_errhandler(comm_, &handler) == MPI_SUCCESS) {
      fatal = handler == MPI_ERRORS_ARE_FATAL;
      PMPI_Errhandler_free(&handler);
    }
    // The detail MPI's error class cannot carry: printed when the handler is about to end
    // the job (a program with its own handler or MPI_ERRORS_RETURN gets the code alone,
    // unless it asked for the report).
    if (fatal || config().verbose >= 1) {
      int rank = -1;
      PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
      std::fprintf(stderr, "collectives-pmpi: rank %d: %s: %s\n", rank, std::string(call_name(call_)).c_str(),
                   what.c_str());
      std::fflush(stderr);
    }
    if (comm_ != MPI_COMM_NULL) PMPI_Comm_call_errhandler(comm_, code);
    return code;
  }

  /// Runs body(frame, state) unless the call goes to Open MPI (shim inactive, a null or
  /// inter-communicator, or the body returns forward_call), then runs native(); turns an
  /// exception into an MPI error code.
  template <class Native, class Body>
  int run(Native&& native, Body&& body)
  {
    int rc = forward_call;
    try {
      if (!active()) return native(); // the shim is off: not counted
      if (comm_ == MPI_COMM_NULL) forward("MPI_COMM_NULL");
      else if (CommState& s = state_of(comm_); s.inter()) forward("inter-communicator");
      else rc = body(*this, s);
    } catch (...) {
      return fail_current();
    }
    if (rc != forward_call) return rc;
    record_forwarded(call_, reason_);
    return native();
  }

private:
  int fail_current()
  {
    try {
      throw;
    } catch (const mpi::Error& e) {
      return fail(e.code(), e.what());
    } catch (const std::length_error& e) {
      return fail(MPI_ERR_TRUNCATE, e.what());
    } catch (const collectives::CallMismatch& e) {
      return fail(MPI_ERR_ARG, e.what()); // the ranks' calls disagree (COLLECTIVES_MPI_CHECK=1, a leftover)
    } catch (const std::invalid_argument& e) {
      return fail(MPI_ERR_ARG, e.what());
    } catch (const std::bad_alloc&) {
      return fail(MPI_ERR_NO_MEM, "out of memory");
    } catch (const std::exception& e) {
      return fail(MPI_ERR_INTERN, e.what());
    } catch (...) {
      return fail(MPI_ERR_UNKNOWN, "unknown exception");
    }
  }

  Call call_;
  MPI_Comm comm_;
  const char* reason_ = "";
  Counter* row_ = nullptr;
};

bool is_in_place(const void* p) { return p == MPI_IN_PLACE; }

/// MPI_IN_PLACE where MPI does not allow it (a receive buffer, a broadcast's buffer, the
/// root's other buffer): Open MPI reports it (a rank that ran the library with it would
/// read or write through the constant).
constexpr const char* in_place_not_allowed = "invalid argument (MPI_IN_PLACE where it is not allowed)";

// An invalid argument that Open MPI reports on the rank that passed it alone, while the
// others finish the call (a root's receive buffer; MPI_IN_PLACE where only the root may
// pass it): the rank runs its part of the library's schedule on scratch memory, so that
// the others finish as they would without the shim, then reports the error. Forwarding
// it alone would leave the others waiting for it in the library's schedule.

/// A datatype's layout, or false when MPI cannot describe it (an invalid handle).
bool layout(MPI_Datatype type, TypeLayout& out)
{
  if (type == MPI_DATATYPE_NULL) return false;
  out = layout_of(type);
  return out.ok;
}

std::byte* at(void* base, std::size_t offset) { return static_cast<std::byte*>(base) + offset; }
const std::byte* at(const void* base, std::size_t offset) { return static_cast<const std::byte*>(base) + offset; }

/// The layouts of a call's send and receive datatypes (the send side skipped in place);
/// false for an invalid argument. Counts below 0 are invalid.
bool send_recv_layouts(bool in_place, int sendcount, MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype,
                       TypeLayout& sl, TypeLayout& rl)
{
  return recvcount >= 0 && layout(recvtype, rl) && (in_place || (sendcount >= 0 && layout(sendtype, sl)));
}

/// p counts (and displacements, if given), none negative.
bool counts_ok(const int* counts, const int* displs, std::size_t p)
{
  if (counts == nullptr) return false;
  for (std::size_t j = 0; j < p; ++j)
    if (counts[j] < 0 || (displs != nullptr && displs[j] < 0)) return false;
  return true;
}

/// A rank that sends another number of bytes per block than it receives (erroneous: the
/// type signatures must match) would make the ranks' schedules disagree.
void check_block(std::size_t sent, std::size_t received)
{
  if (sent != received)
    throw std::length_error("sends " + std::to_string(sent) + " bytes per block but receives " +
                            std::to_string(received) + " (the type signatures differ)");
}

/// count elements of `type` at buf as bytes: the buffer itself when dense, else packed.
const std::byte* send_bytes(const void* buf, std::size_t count, MPI_Datatype type, const TypeLayout& l, Bytes& stage,
                            MPI_Comm comm)
{
  if (l.dense) return static_cast<const std::byte*>(buf);
  stage.resize(count * l.size);
  pack(buf, count, type, l, stage.data(), comm);
  return stage.data();
}

/// A copy of count elements of `type` at buf as bytes (packed if not dense).
const std::byte* copy_bytes(const void* buf, std::size_t count, MPI_Datatype type, const TypeLayout& l, Bytes& stage,
                            MPI_Comm comm)
{
  stage.resize(count * l.size);
  if (stage.empty()) return stage.data();
  if (l.dense) std::memcpy(stage.data(), buf, stage.size());
  else pack(buf, count, type, l, stage.data(), comm);
  return stage.data();
}

/// Bytes received for count elements of `type` (stored back to back) put into buf.
void place_bytes(const std::byte* bytes, std::size_t count, MPI_Datatype type, const TypeLayout& l, void* buf,
                 MPI_Comm comm)
{
  if (count * l.size == 0) return; // (null pointers may come with nothing to copy)
  if (l.dense) std::memcpy(buf, bytes, count * l.size);
  else unpack(bytes, count, type, l, buf, comm);
}

/// Where count elements of `type` at buf are received as bytes: the buffer itself when
/// dense, else a stage to unpack afterwards (receive_done).
std::byte* recv_bytes(void* buf, std::size_t count, const TypeLayout& l, Bytes& stage)
{
  if (l.dense) return static_cast<std::byte*>(buf);
  stage.resize(count * l.size);
  return stage.data();
}
void receive_done(void* buf, std::size_t count, MPI_Datatype type, const TypeLayout& l, const Bytes& stage,
                  MPI_Comm comm)
{
  if (!l.dense) unpack(stage.data(), count, type, l, buf, comm);
}

/// The p blocks of a v-call in bytes: in the user's buffer (direct) or back to back in a stage.
struct Blocks {
  bool direct = false;
  std::vector<std::size_t> counts, displs;
  std::size_t len = 0;   ///< bytes the blocks lie in
  std::size_t total = 0; ///< sum of the counts

  /// Packs the blocks into the stage (not direct).
  void fill(Bytes& stage, const void* buf, const int* n, const int* d, MPI_Datatype type, const TypeLayout& l,
            MPI_Comm comm) const
  {
    stage.resize(len);
    for (std::size_t j = 0; j < counts.size(); ++j)
      if (counts[j] != 0)
        copy_into(stage.data() + displs[j], at(buf, static_cast<std::size_t>(d[j]) * l.extent),
                  static_cast<std::size_t>(n[j]), type, l, comm);
  }

private:
  static void copy_into(std::byte* to, const void* from, std::size_t count, MPI_Datatype type, const TypeLayout& l,
                        MPI_Comm comm)
  {
    if (l.dense) std::memcpy(to, from, count * l.size);
    else pack(from, count, type, l, to, comm);
  }
};

Blocks blocks(const int* n, const int* d, const TypeLayout& l, std::size_t p, bool direct)
{
  Blocks b;
  b.direct = direct;
  b.counts.resize(p);
  b.displs.resize(p);
  for (std::size_t j = 0; j < p; ++j) {
    b.counts[j] = static_cast<std::size_t>(n[j]) * l.size;
    b.displs[j] = direct ? static_cast<std::size_t>(d[j]) * l.extent : b.total;
    b.total += b.counts[j];
    b.len = std::max(b.len, b.displs[j] + b.counts[j]);
  }
  return b;
}

/// A reduction's buffer of n elements of op.size bytes: the user's memory, or a copy
/// when it must be (in place at a reduce's root, whose contribution is read while the
/// result is written; the MINLOC/MAXLOC pairs with padding, as the library moves whole
/// elements while MPI writes only their data: the user's buffer may end where the last
/// element's data does, and other data may live in the padding).
class Elements {
public:
  /// copy_in: the buffer holds input; copy: always copy.
  Elements(const void* user, std::size_t n, const ElementOp& op, bool copy_in, bool copy = false)
    : user_(const_cast<void*>(user)), size_(op.size), pad_(op.tail_pad), gap_at_(op.gap_at), gap_(op.gap)
  {
    if (user == nullptr || (op.tail_pad == 0 && op.gap == 0 && !copy)) {
      data_ = user_;
      return;
    }
    stage_.resize(n * op.size);
    if (copy_in && n != 0) std::memcpy(stage_.data(), user, n * op.size - op.tail_pad);
    data_ = stage_.data();
  }
  void* data() const { return data_; }
  /// Copies the data of the first n elements of a staged result back to the user's buffer.
  void copy_out(std::size_t n) const
  {
    if (data_ == user_ || n == 0) return;
    if (pad_ == 0 && gap_ == 0) {
      std::memcpy(user_, data_, n * size_);
      return;
    }
    // Element by element, around the padding.
    const std::size_t first = gap_ != 0 ? gap_at_ : size_ - pad_, second = gap_ != 0 ? gap_at_ + gap_ : first;
    auto* to = static_cast<std::byte*>(user_);
    const auto* from = static_cast<const std::byte*>(data_);
    for (std::size_t i = 0; i < n; ++i, to += size_, from += size_) {
      std::memcpy(to, from, first);
      std::memcpy(to + second, from + second, size_ - pad_ - second);
    }
  }
  /// Copies a staged result back (all of it).
  void copy_out() const { copy_out(stage_.size() / (size_ == 0 ? 1 : size_)); }

private:
  void* user_;
  std::size_t size_, pad_, gap_at_, gap_;
  Bytes stage_;
  void* data_ = nullptr;
};

bool root_ok(int root, std::size_t p) { return root >= 0 && static_cast<std::size_t>(root) < p; }

} // namespace

} // namespace collectives::pmpi


using namespace collectives::pmpi;
using collectives::Problem;

// ---------------------------------------------------------------------------------------
// Data movement
// ---------------------------------------------------------------------------------------

int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
  auto native = [&] { return PMPI_Bcast(buf, count, type, root, comm); };
  return Frame(Call::bcast, comm).run(native, [&](Frame& f, CommState& s) {
    TypeLayout l;
    if (count < 0 || !root_ok(root, s.size()) || !layout(type, l)) return f.forward("invalid argument");
    if (is_in_place(buf)) return f.forward(in_place_not_allowed);
    const std::size_t n = static_cast<std::size_t>(count), bytes = n * l.size, r = static_cast<std::size_t>(root);
    if (bytes == 0) return f.empty();
    ShimComm& sc = s.comm();
    const std::size_t alg = f.choose(s, Coll::broadcast, Problem{.m = sc.words(bytes), .root = r});
    const bool is_root = s.rank() == r;
    Bytes stage;
    std::byte* data = static_cast<std::byte*>(buf);
    if (!l.dense) {
      stage.resize(bytes);
      if (is_root) pack(buf, n, type, l, stage.data(), comm);
      data = stage.data();
    }
    engine::broadcast(sc, alg, data, bytes, r);
    if (!is_root) receive_done(buf, n, type, l, stage, comm);
    return f.served(bytes);
  });
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm)
{
  auto native = [&] { return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); };
  return Frame(Call::allgather, comm).run(native, [&](Frame& f, CommState& s) {
    if (is_in_place(recvbuf)) return f.forward(in_place_not_allowed);
    const bool in_place = is_in_place(sendbuf);
    TypeLayout sl, rl;
    if (!send_recv_layouts(in_place, sendcount, sendtype, recvcount, recvtype, sl, rl))
      return f.forward("invalid argument");
    const std::size_t p = s.size(), me = s.rank(), rc = static_cast<std::size_t>(recvcount);
    const std::size_t block = rc * rl.size;
    if (block == 0) return f.empty();
    ShimComm& sc = s.comm();
    const std::size_t alg = f.choose(s, Coll::allgather, Problem{.m = sc.words(block), .in_place = in_place});
    Bytes rstage, sstage;
    std::byte* out = recv_bytes(recvbuf, p * rc, rl, rstage);
    if (in_place) {
      if (!rl.dense) pack(at(recvbuf, me * rc * rl.extent), rc, recvtype, rl, out + me * block, comm);
      engine::allgather(sc, alg, nullptr, out, block);
    } else {
      const std::size_t scount = static_cast<std::size_t>(sendcount);
      check_block(scount * sl.size, block);
      engine::allgather(sc, alg, send_bytes(sendbuf, scount, sendtype, sl, sstage, comm), out, block);
    }
    receive_done(recvbuf, p * rc, recvtype, rl, rstage, comm);
    return f.served(p * block);
  });
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
  auto native = [&] {
    return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
  };
  return Frame(Call::allgatherv, comm).run(native, [&](Frame& f, CommState& s) {
    if (is_in_place(recvbuf)) return f.forward(in_place_not_allowed);
    const bool in_place = is_in_place(sendbuf);
    const std::size_t p = s.size(), me = s.rank();
    TypeLayout sl, rl;
    if (!send_recv_layouts(in_place, sendcount, sendtype, 0, recvtype, sl, rl) ||
        !counts_ok(recvcounts, displs, p))
      return f.forward("invalid argument");
    // Per rank: bytes, and their place in the bytes received (recvbuf or a stage).
    std::vector<std::size_t> rbytes(p), rdispl(p);
    std::size_t total = 0;
    bool uniform = true;
    for (std::size_t j = 0; j < p; ++j) {
      rbytes[j] = static_cast<std::size_t>(recvcounts[j]) * rl.size;
      uniform = uniform && rbytes[j] == rbytes[0];
      total += rbytes[j];
    }
    if (total == 0) return f.empty();
    const std::size_t own = rbytes[me];
    Bytes sstage, rstage;
    const std::byte* in = nullptr;
    if (in_place) {
      in = copy_bytes(at(recvbuf, static_cast<std::size_t>(displs[me]) * rl.extent),
                      static_cast<std::size_t>(recvcounts[me]), recvtype, rl, sstage, comm);
    } else {
      const std::size_t scount = static_cast<std::size_t>(sendcount);
      check_block(scount * sl.size, own);
      in = send_bytes(sendbuf, scount, sendtype, sl, sstage, comm);
    }
    // Straight into recvbuf where the blocks fall (dense types), else back to back in a
    // stage; equal blocks run as an allgather, which needs them at j * block.
    bool direct = rl.dense;
    std::size_t out_len = 0;
    for (std::size_t j = 0; direct && j < p; ++j) {
      rdispl[j] = static_cast<std::size_t>(displs[j]) * rl.extent;
      out_len = std::max(out_len, rdispl[j] + rbytes[j]);
      direct = !uniform || rdispl[j] == j * own;
    }
    std::byte* out = static_cast<std::byte*>(recvbuf);
    if (!direct) {
      rstage.resize(total);
      out = rstage.data();
      out_len = total;
      for (std::size_t j = 0, o = 0; j < p; o += rbytes[j], ++j) rdispl[j] = o;
    }
    ShimComm& sc = s.comm();
    Coll coll = Coll::allgather;
    std::size_t alg = 0;
    if (uniform) {
      alg = f.choose(s, coll, Problem{.m = sc.words(own)});
      engine::allgather(sc, alg, in, out, own);
    } else {
      // Blocks of different sizes: an alltoallv whose every send block is this rank's
      // contribution.
      coll = Coll::alltoallv;
      alg = f.choose(s, coll, Problem{});
      const std::vector<std::size_t> sc_bytes(p, own), sd_bytes(p, 0);
      engine::alltoallv(sc, alg, in, own, sc_bytes.data(), sd_bytes.data(), out, out_len, rbytes.data(), rdispl.data());
    }
    if (!direct)
      for (std::size_t j = 0; j < p; ++j)
        place_bytes(rstage.data() + rdispl[j], static_cast<std::size_t>(recvcounts[j]), recvtype, rl,
                    at(recvbuf, static_cast<std::size_t>(displs[j]) * rl.extent), comm);
    return f.served(total);
  });
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm)
{
  auto native = [&] { return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); };
  return Frame(Call::alltoall, comm).run(native, [&](Frame& f, CommState& s) {
    if (is_in_place(recvbuf)) return f.forward(in_place_not_allowed);
    const bool in_place = is_in_place(sendbuf);
    TypeLayout sl, rl;
    if (!send_recv_layouts(in_place, sendcount, sendtype, recvcount, recvtype, sl, rl))
      return f.forward("invalid argument");
    const std::size_t p = s.size(), rc = static_cast<std::size_t>(recvcount);
    const std::size_t block = rc * rl.size;
    if (block == 0) return f.empty();
    ShimComm& sc = s.comm();
    const std::size_t alg = f.choose(s, Coll::alltoall, Problem{.m = sc.words(block)});
    Bytes sstage, rstage;
    const std::byte* in = nullptr;
    if (in_place) {
      // A copy of the receive buffer: the schedules read input after writing output.
      in = copy_bytes(recvbuf, p * rc, recvtype, rl, sstage, comm);
    } else {
      const std::size_t scount = static_cast<std::size_t>(sendcount);
      check_block(scount * sl.size, block);
      in = send_bytes(sendbuf, p * scount, sendtype, sl, sstage, comm);
    }
    std::byte* out = recv_bytes(recvbuf, p * rc, rl, rstage);
    engine::alltoall(sc, alg, in, out, block);
    receive_done(recvbuf, p * rc, recvtype, rl, rstage, comm);
    return f.served(p * block);
  });
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
  auto native = [&] {
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
  };
  return Frame(Call::alltoallv, comm).run(native, [&](Frame& f, CommState& s) {
    if (is_in_place(recvbuf)) return f.forward(in_place_not_allowed);
    const bool in_place = is_in_place(sendbuf);
    const std::size_t p = s.size();
    TypeLayout sl, rl;
    if (!send_recv_layouts(in_place, 0, sendtype, 0, recvtype, sl, rl) || !counts_ok(recvcounts, rdispls, p) ||
        (!in_place && !counts_ok(sendcounts, sdispls, p)))
      return f.forward("invalid argument");
    // In place: the blocks to send are the receive buffer's, as it is on entry (copied).
    const int* scounts = in_place ? recvcounts : sendcounts;
    const int* sdis = in_place ? rdispls : sdispls;
    const void* sbuf = in_place ? recvbuf : sendbuf;
    const MPI_Datatype stype = in_place ? recvtype : sendtype;
    if (in_place) sl = rl;
    Bytes sstage, rstage;
    Blocks in = blocks(scounts, sdis, sl, p, sl.dense && !in_place);
    if (!in.direct) in.fill(sstage, sbuf, scounts, sdis, stype, sl, comm);
    Blocks out = blocks(recvcounts, rdispls, rl, p, rl.dense);
    if (!out.direct) rstage.resize(out.len);
    ShimComm& sc = s.comm();
    const std::size_t alg = f.choose(s, Coll::alltoallv, Problem{});
    engine::alltoallv(sc, alg, in.direct ? static_cast<const std::byte*>(sbuf) : sstage.data(), in.len,
                      in.counts.data(), in.displs.data(), out.direct ? static_cast<std::byte*>(recvbuf) : rstage.data(),
                      out.len, out.counts.data(), out.displs.data());
    if (!out.direct)
      for (std::size_t j = 0; j < p; ++j)
        place_bytes(rstage.data() + out.displs[j], static_cast<std::size_t>(recvcounts[j]), recvtype, rl,
                    at(recvbuf, static_cast<std::size_t>(rdispls[j]) * rl.extent), comm);
    return f.served(in.total);
  });
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm)
{
  auto native = [&] {
    return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  };
  return Frame(Call::scatter, comm).run(native, [&](Frame& f, CommState& s) {
    if (!root_ok(root, s.size())) return f.forward("invalid argument");
    const std::size_t p = s.size(), r = static_cast<std::size_t>(root);
    const bool is_root = s.rank() == r, in_place = is_root && is_in_place(recvbuf);
    TypeLayout sl, rl;
    if ((is_root && (sendcount < 0 || !layout(sendtype, sl))) || (!in_place && (recvcount < 0 || !layout(recvtype, rl))))
      return f.forward("invalid argument");
    // (Open MPI waits for ever when the root's sendbuf is MPI_IN_PLACE: forwarded, the same.)
    if (is_root && is_in_place(sendbuf)) return f.forward(in_place_not_allowed);
    const bool bad_recv = !is_root && is_in_place(recvbuf); // the root's only: run on scratch
    // The block, the same on every rank: the root's send block, the others' receive block.
    const std::size_t block = is_root ? static_cast<std::size_t>(sendcount) * sl.size
                                      : static_cast<std::size_t>(recvcount) * rl.size;
    if (block == 0) return f.empty();
    if (is_root && !in_place) check_block(block, static_cast<std::size_t>(recvcount) * rl.size);
    ShimComm& sc = s.comm();
    const std::size_t alg = f.choose(s, Coll::scatter, Problem{.m = sc.words(block), .root = r});
    Bytes sstage, rstage;
    const std::byte* in =
      is_root ? send_bytes(sendbuf, p * static_cast<std::size_t>(sendcount), sendtype, sl, sstage, comm) : nullptr;
    std::byte* out = nullptr;
    if (in_place || bad_recv) {
      rstage.resize(block); // the root's own block stays where it is: received and dropped
      out = rstage.data();
    } else {
      out = recv_bytes(recvbuf, static_cast<std::size_t>(recvcount), rl, rstage);
    }
    engine::scatter(sc, alg, in, is_root ? p * block : 0, out, block, r);
    if (bad_recv) return f.fail(MPI_ERR_ARG, "MPI_IN_PLACE as the receive buffer of a rank that is not the root");
    if (!in_place) receive_done(recvbuf, static_cast<std::size_t>(recvcount), recvtype, rl, rstage, comm);
    return f.served(is_root ? p * block : block);
  });
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm)
{
  auto native = [&] { return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm); };
  return Frame(Call::gather, comm).run(native, [&](Frame& f, CommState& s) {
    if (!root_ok(root, s.size())) return f.forward("invalid argument");
    const std::size_t p = s.size(), me = s.rank(), r = static_cast<std::size_t>(root);
    const bool is_root = me == r, in_place = is_root && is_in_place(sendbuf);
    TypeLayout sl, rl;
    if ((is_root && (recvcount < 0 || !layout(recvtype, rl))) || (!in_place && (sendcount < 0 || !layout(sendtype, sl))))
      return f.forward("invalid argument");
    // (Open MPI's root waits for ever for a rank that passes MPI_IN_PLACE: forwarded, the same.)
    if (!is_root && is_in_place(sendbuf)) return f.forward(in_place_not_allowed); // root only
    const bool bad_recv = is_root && is_in_place(recvbuf); // run on scratch, then report
    const std::size_t rc = static_cast<std::size_t>(recvcount);
    const std::size_t block = is_root ? rc * rl.size : static_cast<std::size_t>(sendcount) * sl.size;
    if (block == 0) return f.empty();
    if (is_root && !in_place) check_block(static_cast<std::size_t>(sendcount) * sl.size, block);
    ShimComm& sc = s.comm();
    const std::size_t alg = f.choose(s, Coll::gather, Problem{.m = sc.words(block), .root = r});
    Bytes sstage, rstage;
    // In place, the root's block is already where it belongs: a copy of it is its contribution.
    const std::byte* in = nullptr;
    if (bad_recv && in_place) {
      sstage.assign(block, std::byte{0});
      in = sstage.data();
    } else {
      in = in_place ? copy_bytes(at(recvbuf, me * rc * rl.extent), rc, recvtype, rl, sstage, comm)
                    : send_bytes(sendbuf, static_cast<std::size_t>(sendcount), sendtype, sl, sstage, comm);
    }
    std::byte* out = nullptr;
    if (bad_recv) {
      rstage.resize(p * block);
      out = rstage.data();
    } else if (is_root) {
      out = recv_bytes(recvbuf, p * rc, rl, rstage);
    }
    engine::gather(sc, alg, in, block, out, is_root ? p * block : 0, r);
    if (bad_recv) return f.fail(MPI_ERR_ARG, "MPI_IN_PLACE as the root's receive buffer");
    if (is_root) receive_done(recvbuf, p * rc, recvtype, rl, rstage, comm);
    return f.served(is_root ? p * block : block);
  });
}

// The v-variants whose counts only the root knows: forwarded (see the top of this file).

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
  auto native = [&] {
    return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
  };
  return Frame(Call::scatterv, comm).run(native, [](Frame& f, CommState&) {
    return f.forward("counts known at the root only");
  });
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
  auto native = [&] {
    return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
  };
  return Frame(Call::gatherv, comm).run(native, [](Frame& f, CommState&) {
    return f.forward("counts known at the root only");
  });
}

int MPI_Barrier(MPI_Comm comm)
{
  return Frame(Call::barrier, comm).run([&] { return PMPI_Barrier(comm); }, [](Frame& f, CommState& s) {
    ShimComm& sc = s.comm();
    const std::size_t alg = f.choose(s, Coll::barrier, Problem{});
    engine::barrier(sc, alg);
    return f.served(0);
  });
}

// ---------------------------------------------------------------------------------------
// Reductions
// ---------------------------------------------------------------------------------------

namespace {

/// The element operator for (op, type), or the reason to forward.
const char* resolve_reduction(MPI_Op op, MPI_Datatype type, ElementOp& out)
{
  const OpResolution r = resolve_op(op, type);
  out = r.op;
  return r.forward;
}

} // namespace

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm)
{
  auto native = [&] { return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm); };
  return Frame(Call::reduce, comm).run(native, [&](Frame& f, CommState& s) {
    if (count < 0 || !root_ok(root, s.size())) return f.forward("invalid argument");
    ElementOp eop;
    if (const char* why = resolve_reduction(op, type, eop)) return f.forward(why);
    const std::size_t n = static_cast<std::size_t>(count), r = static_cast<std::size_t>(root);
    const bool is_root = s.rank() == r;
    if (!is_root && is_in_place(sendbuf)) return f.forward(in_place_not_allowed); // root only
    // Open MPI's root rejects a receive buffer that is MPI_IN_PLACE, or the send buffer
    // again (count > 0), and the others finish: run on scratch, then report.
    const char* bad_recv = !is_root                ? nullptr
                           : is_in_place(recvbuf) ? "MPI_IN_PLACE as the root's receive buffer"
                           : n != 0 && sendbuf == recvbuf && sendbuf != MPI_BOTTOM
                             ? "the same buffer as the root's send and receive buffer (pass MPI_IN_PLACE)"
                             : nullptr;
    if (n == 0) return bad_recv != nullptr ? f.fail(MPI_ERR_ARG, bad_recv) : f.empty();
    ShimComm& sc = s.comm();
    const std::size_t alg =
      f.choose(s, Coll::reduce, Problem{.m = sc.words(n * eop.size), .root = r, .commutative = eop.commutative});
    // In place at the root: its contribution is a copy of the receive buffer.
    const bool in_place = is_root && is_in_place(sendbuf);
    Bytes zeros, scratch;
    if (bad_recv != nullptr) {
      scratch.resize(n * eop.size);
      if (in_place) zeros.assign(n * eop.size, std::byte{0}); // no contribution to read
    }
    const Elements in(in_place ? (bad_recv != nullptr ? zeros.data() : recvbuf) : sendbuf, n, eop, true, in_place);
    const Elements out(bad_recv != nullptr ? static_cast<void*>(scratch.data()) : is_root ? recvbuf : nullptr, n, eop,
                       false);
    engine::reduce(sc, alg, eop, in.data(), out.data(), n, r);
    if (bad_recv != nullptr) return f.fail(MPI_ERR_ARG, bad_recv);
    out.copy_out();
    return f.served(n * eop.size);
  });
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
  auto native = [&] { return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm); };
  return Frame(Call::allreduce, comm).run(native, [&](Frame& f, CommState& s) {
    if (count < 0) return f.forward("invalid argument");
    if (is_in_place(recvbuf)) return f.forward(in_place_not_allowed);
    // The same buffer twice instead of MPI_IN_PLACE: Open MPI's MPI_ERR_BUFFER (it lets
    // one element through, as here).
    if (count > 1 && sendbuf == recvbuf && sendbuf != MPI_BOTTOM) return f.forward("invalid argument");
    ElementOp eop;
    if (const char* why = resolve_reduction(op, type, eop)) return f.forward(why);
    const std::size_t n = static_cast<std::size_t>(count);
    if (n == 0) return f.empty();
    const bool in_place = is_in_place(sendbuf);
    ShimComm& sc = s.comm();
    const std::size_t alg = f.choose(s, Coll::allreduce, Problem{.m = sc.words(n * eop.size), .commutative = eop.commutative, .in_place = in_place});
    const Elements out(recvbuf, n, eop, in_place);
    const Elements in(in_place ? nullptr : sendbuf, n, eop, true);
    engine::allreduce(sc, alg, eop, in.data(), out.data(), n);
    out.copy_out();
    return f.served(n * eop.size);
  });
}

namespace {

int reduce_scatter_blocks(Frame& f, CommState& s, const void* sendbuf, void* recvbuf, std::size_t block, MPI_Op op,
                          MPI_Datatype type)
{
  if (is_in_place(recvbuf)) return f.forward(in_place_not_allowed);
  ElementOp eop;
  if (const char* why = resolve_reduction(op, type, eop)) return f.forward(why);
  const std::size_t p = s.size();
  if (block == 0) return f.empty();
  const bool in_place = is_in_place(sendbuf);
  ShimComm& sc = s.comm();
  const std::size_t alg = f.choose(s, Coll::reduce_scatter, Problem{.m = sc.words(block * eop.size), .commutative = eop.commutative});
  // In place: recvbuf holds the p blocks and gets the result in its first block.
  const Elements in(in_place ? nullptr : sendbuf, p * block, eop, true);
  const Elements out(recvbuf, in_place ? p * block : block, eop, in_place);
  engine::reduce_scatter(sc, alg, eop, in.data(), out.data(), block);
  out.copy_out(block);
  return f.served(p * block * eop.size);
}

} // namespace

int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type, MPI_Op op,
                             MPI_Comm comm)
{
  auto native = [&] { return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm); };
  return Frame(Call::reduce_scatter_block, comm).run(native, [&](Frame& f, CommState& s) {
    if (recvcount < 0) return f.forward("invalid argument");
    return reduce_scatter_blocks(f, s, sendbuf, recvbuf, static_cast<std::size_t>(recvcount), op, type);
  });
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm)
{
  auto native = [&] { return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm); };
  return Frame(Call::reduce_scatter, comm).run(native, [&](Frame& f, CommState& s) {
    if (!counts_ok(recvcounts, nullptr, s.size())) return f.forward("invalid argument");
    // recvcounts is the same on every rank, so blocks of different sizes are forwarded
    // everywhere (the library's reduce-scatter schedules take equal blocks).
    for (std::size_t j = 1; j < s.size(); ++j)
      if (recvcounts[j] != recvcounts[0]) return f.forward("blocks of different sizes");
    return reduce_scatter_blocks(f, s, sendbuf, recvbuf, static_cast<std::size_t>(recvcounts[0]), op, type);
  });
}

namespace {

int scan_common(Call call, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                MPI_Comm comm, bool exclusive)
{
  auto native = [&] {
    return exclusive ? PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm)
                     : PMPI_Scan(sendbuf, recvbuf, count, type, op, comm);
  };
  return Frame(call, comm).run(native, [&](Frame& f, CommState& s) {
    if (count < 0) return f.forward("invalid argument");
    if (is_in_place(recvbuf)) return f.forward(in_place_not_allowed);
    ElementOp eop;
    if (const char* why = resolve_reduction(op, type, eop)) return f.forward(why);
    const std::size_t n = static_cast<std::size_t>(count);
    if (n == 0) return f.empty();
    const Coll coll = exclusive ? Coll::exscan : Coll::scan;
    // MPI_IN_PLACE may differ between ranks here: it is not part of the problem.
    const bool in_place = is_in_place(sendbuf);
    ShimComm& sc = s.comm();
    const std::size_t alg =
      f.choose(s, coll, Problem{.m = sc.words(n * eop.size), .commutative = eop.commutative});
    const Elements out(recvbuf, n, eop, in_place || exclusive);
    const Elements in(in_place ? nullptr : sendbuf, n, eop, true);
    engine::scan(sc, alg, eop, in.data(), out.data(), n, exclusive);
    if (!(exclusive && s.rank() == 0)) out.copy_out(); // MPI_Exscan leaves rank 0's buffer alone
    return f.served(n * eop.size);
  });
}

} // namespace

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
  return scan_common(Call::scan, sendbuf, recvbuf, count, type, op, comm, false);
}

int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
  return scan_common(Call::exscan, sendbuf, recvbuf, count, type, op, comm, true);
}

// ---------------------------------------------------------------------------------------
// Set-up and tear-down; user operators
// ---------------------------------------------------------------------------------------

namespace {

int after_init(int rc)
{
  if (rc != MPI_SUCCESS) return rc;
  const int shim = initialize(true);
  if (shim != MPI_SUCCESS) PMPI_Comm_call_errhandler(MPI_COMM_WORLD, shim);
  return shim;
}

} // namespace

int MPI_Init(int* argc, char*** argv) { return after_init(PMPI_Init(argc, argv)); }

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided)
{
  return after_init(PMPI_Init_thread(argc, argv, required, provided));
}

int MPI_Finalize(void)
{
  finalize();
  return PMPI_Finalize();
}

int MPI_Op_create(MPI_User_function* function, int commute, MPI_Op* op)
{
  const int rc = PMPI_Op_create(function, commute, op);
  if (rc == MPI_SUCCESS) remember_user_op(*op, function, commute != 0);
  return rc;
}

int MPI_Op_free(MPI_Op* op)
{
  if (op != nullptr) forget_user_op(*op);
  return PMPI_Op_free(op);
}

int MPI_Type_commit(MPI_Datatype* type)
{
  const int rc = PMPI_Type_commit(type);
  if (rc == MPI_SUCCESS && type != nullptr) remember_committed(*type);
  return rc;
}

int MPI_Type_dup(MPI_Datatype type, MPI_Datatype* newtype)
{
  const int rc = PMPI_Type_dup(type, newtype);
  // The duplicate is committed if the original is (MPI 3.1, 4.1.10).
  if (rc == MPI_SUCCESS && newtype != nullptr && committed(type)) remember_committed(*newtype);
  return rc;
}

int MPI_Type_free(MPI_Datatype* type)
{
  if (type != nullptr) forget_committed(*type);
  return PMPI_Type_free(type);
}
