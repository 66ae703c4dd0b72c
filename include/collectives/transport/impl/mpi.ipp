#pragma once
// The MPI transport's non-template code (transport/mpi.hpp declares it): included by that
// header, or compiled once with COLLECTIVES_SEPARATE_COMPILATION
// (collectives/separate_compilation_mpi.hpp, the library collectives::compiled_mpi).

#include <collectives/detail/cpus.hpp>
#include <collectives/transport/mpi.hpp>

namespace collectives::mpi {

namespace detail {

COLLECTIVES_DECL std::string error_string(int code)
{
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS || length <= 0)
    return "MPI error code " + std::to_string(code);
  return std::string(text, static_cast<std::size_t>(length));
}

COLLECTIVES_DECL void throw_error(int code, const char* call, std::size_t rank)
{
  const std::string where = rank == unknown_rank ? "" : " on rank " + std::to_string(rank);
  throw Error(code, call, std::string("collectives::mpi: ") + call + " failed" + where + ": " + error_string(code));
}

COLLECTIVES_DECL bool is_truncation(int code)
{
  int cls = MPI_SUCCESS;
  return MPI_Error_class(code, &cls) == MPI_SUCCESS && cls == MPI_ERR_TRUNCATE;
}

COLLECTIVES_DECL CostModel machine_model(MPI_Comm comm, std::size_t rank, std::size_t size)
{
  MPI_Comm node = MPI_COMM_NULL;
  check(PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), "MPI_Comm_split_type", rank);
  // The node's cores: those any of its ranks may run on (the union of their affinity masks:
  // a rank bound to one core still shares the node's others; a cpuset or a batch job's
  // share leaves out the rest of the machine).
  int local = 1;
  const ::collectives::detail::CpuMask mask = ::collectives::detail::allowed_cpus();
  ::collectives::detail::CpuMask all{};
  int rc = PMPI_Comm_size(node, &local);
  if (rc == MPI_SUCCESS)
    rc = PMPI_Allreduce(mask.data(), all.data(), static_cast<int>(mask.size()), MPI_UINT64_T, MPI_BOR, node);
  PMPI_Comm_free(&node);
  check(rc, "MPI_Comm_size and MPI_Allreduce on the node", rank);
  const std::size_t cores = ::collectives::detail::cpu_count(all);
  // {ranks per core on this node, whether some rank is not on this node}: the max of each.
  double mine[2] = {static_cast<double>(local) / static_cast<double>(cores),
                    static_cast<std::size_t>(local) == size ? 0.0 : 1.0};
  double worst[2] = {0, 0};
  check(PMPI_Allreduce(mine, worst, 2, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce", rank);
  const double per_core = worst[0];
  CostModel m = default_cost_model;
  if (per_core > 1) {
    // Each core runs per_core ranks: p / per_core of them at once. Open MPI's waiting ranks
    // poll (yielding), so every step waits for a round of the core's ranks, each turn
    // about 4 t_s (a switch between processes, a poll, a yield). And a word a rank wrote
    // during the call and then sends (a tree's partial sums, what a ring forwards) costs
    // half a word's time more than one sent from the input: the core's other ranks run
    // between the write and the send, so it goes to memory and back. Fitted offline
    // (benchmarks/picks_offline.py) to mpi_collectives at 4, 6 and 8 ranks on 2 cores,
    // with every algorithm of the lists (the linear ones included), and checked on runs
    // the fit had not seen (docs/performance-history.md, forty-second session).
    m.lanes = std::max<std::size_t>(1, static_cast<std::size_t>(static_cast<double>(size) / per_core));
    m.t_sync = 4 * m.t_s * per_core;
    m.t_fresh = 0.5 * m.t_w;
  }
  // One node: shared memory, which any rank reaches directly.
  m.half_duplex = m.crossbar = worst[1] == 0;
  return m;
}

} // namespace detail

COLLECTIVES_DECL Endpoint::Endpoint(MPI_Comm comm, Options options) : options_(options)
{
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized)
    throw std::logic_error("collectives::mpi::Endpoint: MPI must be initialised (MPI_Init) and not finalised");
  if (options_.max_message_bytes == 0 || options_.max_message_bytes > static_cast<std::size_t>(INT_MAX))
    throw std::invalid_argument("collectives::mpi::Endpoint: max_message_bytes must be in 1 .. INT_MAX, not " +
                                std::to_string(options_.max_message_bytes));
  // (Before the first call on it: the caller's communicator keeps the caller's error
  // handler, by default one that aborts the job.)
  if (comm == MPI_COMM_NULL)
    throw std::invalid_argument("collectives::mpi::Endpoint: the communicator is MPI_COMM_NULL");
  int inter = 0;
  detail::check(MPI_Comm_test_inter(comm, &inter), "MPI_Comm_test_inter", detail::unknown_rank);
  if (inter != 0)
    throw std::invalid_argument("collectives::mpi::Endpoint: the communicator is an inter-communicator; the "
                                "collectives run within one group (MPI_Intercomm_merge makes one)");
  int rank = 0, size = 0;
  detail::check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank", detail::unknown_rank);
  detail::check(MPI_Comm_size(comm, &size), "MPI_Comm_size", static_cast<std::size_t>(rank));
  rank_ = static_cast<std::size_t>(rank);
  size_ = static_cast<std::size_t>(size);
  detail::check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup", rank_);
  const int rc = MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  if (rc != MPI_SUCCESS) {
    MPI_Comm_free(&comm_);
    detail::check(rc, "MPI_Comm_set_errhandler", rank_);
  }
  try {
    model_ = detail::machine_model(comm_, rank_, size_);
  } catch (...) {
    MPI_Comm_free(&comm_);
    throw;
  }
  // Tag layout from MPI_TAG_UB (at least 32767 by the standard, 2^31 - 1 in Open MPI).
  int* ub = nullptr;
  int found = 0;
  MPI_Comm_get_attr(comm_, MPI_TAG_UB, &ub, &found);
  const long long tag_ub = found && ub != nullptr ? *ub : 32767;
  int bits = 0;
  while (bits < 31 && (1LL << (bits + 1)) - 1 <= tag_ub) ++bits;
  step_bits_ = std::min(11, bits / 3);
  call_window_ = (std::uint64_t{1} << (bits - step_bits_)) - 1;
  field_ = 1 + (field_call_ - 1) % call_window_; // call_field(0), kept
  check_calls_ = options_.check_calls;
  if (const char* env = std::getenv("COLLECTIVES_MPI_CHECK"); !check_calls_ && env != nullptr && *env != '\0') {
    if (std::strcmp(env, "0") != 0 && std::strcmp(env, "1") != 0) {
      MPI_Comm_free(&comm_);
      throw std::invalid_argument(std::string("collectives::mpi::Endpoint: COLLECTIVES_MPI_CHECK must be 0 or 1, not '") +
                                  env + "'");
    }
    check_calls_ = env[0] == '1';
  }
  timeout_ = options_.timeout_seconds;
  if (timeout_ == 0)
    if (const char* env = std::getenv("COLLECTIVES_MPI_TIMEOUT"); env != nullptr && *env != '\0') {
      char* end = nullptr;
      timeout_ = std::strtod(env, &end);
      if (end == env || *end != '\0' || !(timeout_ >= 0)) {
        MPI_Comm_free(&comm_);
        throw std::invalid_argument(std::string("collectives::mpi::Endpoint: COLLECTIVES_MPI_TIMEOUT must be a "
                                                "number of seconds, not '") + env + "'");
      }
    }
}

COLLECTIVES_DECL Endpoint& Endpoint::operator=(Endpoint&& other) noexcept
{
  if (this != &other) {
    release();
    take(other);
  }
  return *this;
}

COLLECTIVES_DECL std::uint64_t Endpoint::begin_call()
{
  ++calls_;
  if (calls_ % stale_check_interval == 0 && comm_ != MPI_COMM_NULL) check_leftovers(nullptr);
  return calls_;
}

COLLECTIVES_DECL void Endpoint::exchange_step(std::span<const SendRequest> sends, std::span<const RecvRequest> recvs,
                                              const StepInfo* info, const StepWork* work)
{
  // The work runs once: where the posting paths run it (a small step), else at the end.
  struct WorkGuard {
    const StepWork*& work;
    ~WorkGuard() { work = nullptr; }
  } work_guard{work_};
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
  info_ = info;
  tag_ = tag_for(info);
  if (info != nullptr && info->call != 0) remember(*info);
  if (sends.empty() && recvs.empty()) {
    if (work != nullptr) (*work)();
    return;
  }
  work_ = work;

  // The common one-port step, at most one message each way in at most one contiguous
  // piece (a tree's send or receive, an exchange, a barrier's empty signal): skip the
  // planning below (it is most of the transport's cost on tiny messages).
  const auto one_piece = [&](const auto& req) {
    return req.pieces.size() <= 1 && (req.pieces.empty() || req.pieces[0].size <= options_.max_message_bytes);
  };
  if (sends.size() <= 1 && recvs.size() <= 1 && (sends.empty() || one_piece(sends[0])) &&
      (recvs.empty() || one_piece(recvs[0]))) {
    exchange_one(sends.empty() ? nullptr : sends.data(), recvs.empty() ? nullptr : recvs.data());
    run_work(0, true);
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

  post_and_wait(first_send);

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
  run_work(0, true);
}

COLLECTIVES_DECL void Endpoint::release() noexcept
{
  if (comm_ == MPI_COMM_NULL) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) {
    try {
      check_none_left(); // no later call of this endpoint will take a message
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s (found when the endpoint was destroyed)\n", e.what());
      std::fflush(stderr);
    }
    MPI_Comm_free(&comm_);
  }
  comm_ = MPI_COMM_NULL;
}

COLLECTIVES_DECL void Endpoint::take(Endpoint& other) noexcept
{
  comm_ = std::exchange(other.comm_, MPI_COMM_NULL);
  rank_ = other.rank_;
  size_ = other.size_;
  options_ = other.options_;
  step_bits_ = other.step_bits_;
  call_window_ = other.call_window_;
  field_call_ = other.field_call_;
  field_ = other.field_;
  timeout_ = other.timeout_;
  check_calls_ = other.check_calls_;
  model_ = other.model_;
  calls_ = other.calls_;
  history_ = other.history_;
}

COLLECTIVES_DECL void Endpoint::describe(Chunk& c)
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

COLLECTIVES_DECL void Endpoint::pack(const Chunk& c)
{
  std::byte* to = stage_.data() + c.stage;
  for (std::size_t k = 0; k < c.nsegs; ++k) {
    const Segment& s = segments_[c.seg + k];
    std::memcpy(to, s.data, s.size);
    to += s.size;
  }
}

COLLECTIVES_DECL void Endpoint::throw_length(const Chunk& c, long long got) const
{
  std::string what = "collectives::mpi: rank " + std::to_string(rank_) + " expects " +
                     std::to_string(c.msg_bytes) + " bytes from rank " + std::to_string(c.peer) + ", ";
  if (c.bytes != c.msg_bytes || c.index > 0)
    what += "chunk " + std::to_string(c.index) + " of " + std::to_string(c.bytes) + " bytes (max_message_bytes " +
            std::to_string(options_.max_message_bytes) + "): ";
  const bool whole = c.bytes == c.msg_bytes && c.index == 0; // element counts of the message, not a chunk
  if (got == truncated)
    what += "which sent more" + (whole ? collectives::detail::element_counts(c.msg_bytes, c.msg_bytes, info_, false) : "");
  else
    what += "received " + std::to_string(got) +
            (whole ? collectives::detail::element_counts(c.msg_bytes, static_cast<std::size_t>(got), info_) : "");
  throw std::length_error(what + ", in " + collectives::detail::describe_step(info_) + ". " +
                          collectives::detail::mismatch_causes);
}

COLLECTIVES_DECL long long Endpoint::received_bytes(MPI_Status& status, int code, MPI_Datatype type,
                                                    const char* call) const
{
  if (code != MPI_SUCCESS) {
    if (detail::is_truncation(code)) return truncated;
    detail::check(code, call, rank_);
  }
  // MPI_Get_count for MPI_BYTE receives (cheap), the byte elements of the datatype
  // otherwise (MPI_Get_count would say MPI_UNDEFINED for a partial one).
  if (type == MPI_BYTE) {
    int n = 0;
    detail::check(MPI_Get_count(&status, MPI_BYTE, &n), "MPI_Get_count", rank_);
    return n;
  }
  MPI_Count n = 0;
  detail::check(MPI_Get_elements_x(&status, type, &n), "MPI_Get_elements_x", rank_);
  const long long count = n; // (MPI_Count: long long in Open MPI and MPICH)
  return count;
}

COLLECTIVES_DECL int Endpoint::tag_for(const StepInfo* info) const
{
  if (info == nullptr || info->call == 0) return 0;
  const std::uint64_t step = info->step & ((std::uint64_t{1} << step_bits_) - 1);
  return static_cast<int>(call_field(info->call) << step_bits_ | step);
}

COLLECTIVES_DECL Endpoint::TagMeaning Endpoint::classify(int tag, std::uint64_t call, const StepInfo* info) const
{
  TagMeaning m;
  const auto t = static_cast<std::uint64_t>(tag);
  const std::uint64_t field = t >> step_bits_;
  if (tag <= 0 || field == 0 || call == 0) return m;
  m.ours = true;
  m.step = t & ((std::uint64_t{1} << step_bits_) - 1);
  const std::uint64_t behind = (call_field(call) + call_window_ - field) % call_window_;
  if (behind != 0 && behind < call_window_ / 2) {
    m.stale = true;
    m.call = call - behind;
  } else if (behind == 0) {
    m.call = call;
    // An earlier step of the running call (only comparable while steps fit the field).
    m.stale = info != nullptr && info->call == call && info->steps <= (std::size_t{1} << step_bits_) &&
              m.step < info->step;
  } else {
    m.call = call + (call_window_ - behind);
  }
  return m;
}

COLLECTIVES_DECL std::string Endpoint::describe_call(std::uint64_t call, std::uint64_t step) const
{
  const CallRecord& r = history_[call % history_.size()];
  const StepInfo then{r.call == call ? r.collective : std::string_view{"a collective"},
                      r.call == call ? r.algorithm : std::string_view{}, call, step, r.call == call ? r.steps : 0};
  std::string s = collectives::detail::describe_step(&then);
  if (r.call != call) s.resize(s.rfind(" of "));
  return s;
}

COLLECTIVES_DECL void Endpoint::check_probed(const MPI_Status& status, std::uint64_t call, const StepInfo* info,
                                             const char* where) const
{
  const TagMeaning m = classify(status.MPI_TAG, call, info);
  if (!m.stale) return;
  int bytes = 0;
  MPI_Get_count(&status, MPI_BYTE, &bytes);
  throw CallMismatch("collectives::mpi: rank " + std::to_string(rank_) + ", " + where + ", finds a " +
                     std::to_string(bytes) + "-byte message from rank " + std::to_string(status.MPI_SOURCE) +
                     " of " + describe_call(m.call, m.step) +
                     " (as this rank numbers its calls) that no receive took: left over from an earlier call "
                     "or step, it will never be received. " +
                     collectives::detail::mismatch_causes);
}

COLLECTIVES_DECL void Endpoint::check_leftovers(const StepInfo* info, std::size_t peer) const
{
  // The place's text is made only for a stale message: a waiting rank looks often, and a
  // look that finds nothing, or a message of this call, must not allocate.
  const auto check = [&](const MPI_Status& status) {
    if (!classify(status.MPI_TAG, calls_, info).stale) return;
    const std::string where = info != nullptr ? "in " + collectives::detail::describe_step(info)
                                              : "starting call " + std::to_string(calls_);
    check_probed(status, calls_, info, where.c_str());
  };
  int flag = 0;
  MPI_Status status;
  if (peer != ~std::size_t{0}) {
    detail::check(MPI_Iprobe(static_cast<int>(peer), MPI_ANY_TAG, comm_, &flag, &status), "MPI_Iprobe", rank_);
    if (flag) check(status);
    return;
  }
  // Any source first: usually nothing is waiting. Otherwise each source's oldest
  // message (MPI matches a source's messages in order, and a rank sends its calls in
  // order, so a stale one comes before any of a later call).
  detail::check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &flag, &status), "MPI_Iprobe", rank_);
  if (!flag) return;
  check(status);
  for (std::size_t q = 0; q < size_; ++q)
    if (q != rank_) check_leftovers(info, q);
}

COLLECTIVES_DECL void Endpoint::check_none_left() const
{
  if (comm_ == MPI_COMM_NULL) return;
  int flag = 0;
  MPI_Status status;
  detail::check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &flag, &status), "MPI_Iprobe", rank_);
  if (!flag) return;
  const TagMeaning m = classify(status.MPI_TAG, calls_, nullptr);
  if (!m.ours) return;
  const std::string where = "after call " + std::to_string(calls_);
  check_probed(status, calls_, nullptr, where.c_str()); // an earlier call's
  int bytes = 0;
  MPI_Get_count(&status, MPI_BYTE, &bytes);
  const std::string whose = m.call == calls_ ? "this rank's latest call, " + describe_call(m.call, m.step) +
                                                 ", which no receive of it took"
                                             : "call " + std::to_string(m.call) + " (as this rank numbers its calls), a "
                                               "call this rank has not made: rank " +
                                                 std::to_string(status.MPI_SOURCE) +
                                                 " made more collective calls on the communicator than this rank";
  throw CallMismatch("collectives::mpi: rank " + std::to_string(rank_) + ", " + where + ", finds a " +
                     std::to_string(bytes) + "-byte message from rank " + std::to_string(status.MPI_SOURCE) + " of " +
                     whose + ". " + collectives::detail::mismatch_causes);
}

template <class Done, class Peer, class Records>
COLLECTIVES_ALWAYS_INLINE void Endpoint::wait_all(std::size_t n, std::size_t nrecv, MPI_Request* req, int* index,
                                                  MPI_Status* status, Done&& done_one, Peer&& peer, Records&& records)
{
  // MPI_Testsome rather than MPI_Testall: each receive is checked as it completes, so
  // a size mismatch that leaves later chunks of a message unmatched is reported
  // instead of waited on for ever, and Open MPI 4.1's MPI_Waitall never returns when
  // a request completes with an error (a truncated receive) if MPI was initialised
  // with MPI_THREAD_FUNNELED or above.
  unsigned polls = 0;
  std::chrono::steady_clock::time_point since{}, last_look{};
  std::size_t open_recv = nrecv;
  std::size_t last = n; // the one request left, once only one is (n: not looked for yet)
  for (std::size_t open = n; open > 0;) {
    if (open_recv == 0 && timeout_ == 0) {
      // Only sends left and no watchdog: MPI_Wait, which waits as long as polling would
      // and skips the full fence Open MPI's MPI_Test* begin with. Right after an eager
      // send has written the peer's queue, that fence holds the core until the write has
      // left it (perf puts the time there). benchmarks/mpi_overhead's "send on its own"
      // table, 8 bytes at p = 2 on a machine whose cores pass a cache line slowly:
      // MPI_Isend with MPI_Testsome polls 3.15-3.34x MPI_Isend with MPI_Wait; the
      // library's broadcast root 3.51-3.60x Open MPI's before this, 1.41-1.56x after.
      for (std::size_t i = nrecv; i < n; ++i)
        if (req[i] != MPI_REQUEST_NULL) detail::check(MPI_Wait(&req[i], MPI_STATUS_IGNORE), "MPI_Wait", rank_);
      break;
    }
    if (open == 1) {
      // One request left (a lone receive, or an exchange's receive once its send is done):
      // MPI_Test on it alone, a shorter poll than MPI_Testsome over all n. Three interleaved
      // pairs of mpi_overhead runs, 8 bytes at p = 2: the barrier 1.11-1.20x Open MPI's
      // before, 1.06-1.13x after, the all-to-all 1.24-1.25x and 1.20-1.22x; four pairs of
      // mpi_collectives, 8 B-2 KiB: the mean of the cells' median ratios 1.19 and 1.17.
      if (last == n)
        for (last = 0; last < n && req[last] == MPI_REQUEST_NULL; ++last) {
        }
      if (last == n) break;
      int flag = 0;
      const int rc = MPI_Test(&req[last], &flag, &status[0]);
      if (flag != 0) {
        // A request that completed with an error (a truncated receive) reports it here.
        done_one(last, status[0], rc);
        break;
      }
      if (rc != MPI_SUCCESS) detail::check(rc, "MPI_Test", rank_);
    } else {
      int done = 0;
      const int rc = MPI_Testsome(static_cast<int>(n), req, &done, index, status);
      if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) detail::check(rc, "MPI_Testsome", rank_);
      if (done == MPI_UNDEFINED) break;
      if (done > 0) {
        for (int k = 0; k < done; ++k) {
          const auto i = static_cast<std::size_t>(index[k]);
          if (i < nrecv) --open_recv;
          done_one(i, status[k], rc == MPI_ERR_IN_STATUS ? status[k].MPI_ERROR : MPI_SUCCESS);
        }
        open -= static_cast<std::size_t>(done);
        polls = 0;
        continue;
      }
    }
    if (++polls % clock_every != 0) continue;
    // Polls are counted and timed: with more ranks than cores each poll may yield the
    // core for a whole time slice, and a count alone would look for leftovers only
    // seconds later (after the peer's next message may have come and hidden them).
    const auto now = std::chrono::steady_clock::now();
    if (polls == clock_every) {
      since = last_look = now;
      continue;
    }
    if (now - last_look < look_time && (polls < quiet_polls || polls % look_every != 0)) continue;
    last_look = now;
    // Waiting: a stale message from a peer this rank waits for will never be taken,
    // and may be why the peer's message does not come.
    for (std::size_t i = 0; i < nrecv; ++i)
      if (req[i] != MPI_REQUEST_NULL) check_leftovers(info_, peer(i));
    if (timeout_ > 0 && std::chrono::duration<double>(now - since).count() > timeout_) {
      records();
      watchdog(nrecv, now - since);
    }
  }
}

COLLECTIVES_DECL void Endpoint::exchange_one(const SendRequest* send, const RecvRequest* recv)
{
  // The requests and statuses live on the stack: no chunk records, no lists to reset
  // (callgrind: about a quarter of the transport's own instructions per message). A
  // failure or a long wait makes the general path's records (one_as_chunks) for its
  // report.
  MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  MPI_Status status[2];
  int index[2];
  const std::size_t nrecv = recv != nullptr ? 1 : 0;
  const std::size_t n = nrecv + (send != nullptr ? 1 : 0);
  std::size_t recv_bytes = 0;
  const void* send_buf = send == nullptr || send->pieces.empty() ? nullptr : send->pieces[0].data;
  const int send_bytes = send == nullptr || send->pieces.empty() ? 0 : static_cast<int>(send->pieces[0].size);
  if (recv == nullptr && timeout_ == 0) {
    // A lone send and no watchdog: MPI_Send returns when MPI_Isend and MPI_Wait would
    // (wait_all's only-sends case), with less of Open MPI's work (mpi_overhead, 8 bytes at
    // p = 2: the broadcast root 1.33-1.48x Open MPI's root instead of 1.36-1.65x).
    detail::check(MPI_Send(send_buf, send_bytes, MPI_BYTE, static_cast<int>(send->peer), tag_, comm_), "MPI_Send",
                  rank_);
    return;
  }
  try {
    // The send first, then the receive, both before the first poll: in a chain of
    // exchanges the peer's next message waits for this one, so the time MPI_Irecv takes is
    // on the path only if it comes first. Nothing is matched out of order (MPI matches a
    // receive to what arrives whenever it is posted), and Open MPI takes arrivals in its
    // progress loop, which the polls run after the receive is posted. Three interleaved pairs
    // of mpi_overhead runs, 8 bytes at p = 2: the exchange 0.96-0.98x the same calls by hand
    // (receive first) before, 0.84-0.91x after; the default all-reduce 1.18-1.25x Open MPI's
    // before, 1.06-1.07x after; the barrier 1.08-1.14x and 0.97-1.03x.
    if (send != nullptr)
      detail::check(MPI_Isend(send_buf, send_bytes, MPI_BYTE, static_cast<int>(send->peer), tag_, comm_, &req[nrecv]),
                    "MPI_Isend", rank_);
    if (recv != nullptr) {
      void* buf = nullptr;
      if (!recv->pieces.empty()) {
        buf = recv->pieces[0].data;
        recv_bytes = recv->pieces[0].size;
      }
      detail::check(MPI_Irecv(buf, static_cast<int>(recv_bytes), MPI_BYTE, static_cast<int>(recv->peer), tag_,
                              comm_, &req[0]),
                    "MPI_Irecv", rank_);
    }
    run_work(recv_bytes + static_cast<std::size_t>(send_bytes));
    wait_all(n, nrecv, req, index, status,
             [&](std::size_t i, MPI_Status& st, int code) {
               if (i >= nrecv) {
                 detail::check(code, "MPI_Testsome", rank_);
                 return;
               }
               const long long got = received_bytes(st, code, MPI_BYTE, "MPI_Testsome");
               if (got != static_cast<long long>(recv_bytes)) one_failed(send, recv, req, got);
             },
             [&](std::size_t) { return recv->peer; }, [&] { one_as_chunks(send, recv, req); });
  } catch (...) {
    abandon(req, n, nrecv);
    throw;
  }
}

COLLECTIVES_DECL void Endpoint::one_as_chunks(const SendRequest* send, const RecvRequest* recv,
                                              const MPI_Request* req)
{
  chunks_.clear();
  requests_.clear();
  const auto add = [&](const auto& r, MPI_Request q) {
    Chunk& c = chunks_.emplace_back();
    c.peer = r.peer;
    c.bytes = c.msg_bytes = r.pieces.empty() ? 0 : r.pieces[0].size;
    requests_.push_back(q);
  };
  if (recv != nullptr) add(*recv, req[0]);
  if (send != nullptr) add(*send, req[recv != nullptr ? 1 : 0]);
}

COLLECTIVES_DECL void Endpoint::one_failed(const SendRequest* send, const RecvRequest* recv, const MPI_Request* req,
                                           long long got)
{
  one_as_chunks(send, recv, req);
  throw_length(chunks_[0], got);
}

COLLECTIVES_DECL void Endpoint::post_and_wait(std::size_t first_send)
{
  const std::size_t n = chunks_.size();
  requests_.assign(n, MPI_REQUEST_NULL);
  statuses_.resize(n);
  indices_.resize(n);
  try {
    // Receives first, so no message arrives unexpected (a lone exchange, exchange_one,
    // posts its send first: there the receive's own time is on the path).
    for (std::size_t i = 0; i < first_send; ++i) {
      const Chunk& c = chunks_[i];
      detail::check(MPI_Irecv(c.buf, c.count, c.type, static_cast<int>(c.peer), tag_, comm_, &requests_[i]),
                    "MPI_Irecv", rank_);
    }
    for (std::size_t i = first_send; i < n; ++i) {
      const Chunk& c = chunks_[i];
      if (c.how == How::packed) pack(c);
      detail::check(MPI_Isend(c.buf, c.count, c.type, static_cast<int>(c.peer), tag_, comm_, &requests_[i]),
                    "MPI_Isend", rank_);
    }
    if (work_ != nullptr) {
      std::size_t bytes = 0;
      for (const Chunk& c : chunks_) bytes += c.bytes;
      run_work(bytes);
    }
    wait_all(n, first_send, requests_.data(), indices_.data(), statuses_.data(),
             [&](std::size_t i, MPI_Status& st, int code) { finish(i, first_send, st, code, "MPI_Testsome"); },
             [&](std::size_t i) { return chunks_[i].peer; }, [] {});
  } catch (...) {
    abandon(requests_.data(), n, first_send);
    throw;
  }
}

COLLECTIVES_DECL void Endpoint::check_call(const StepInfo& info)
{
  if (comm_ == MPI_COMM_NULL)
    throw std::logic_error("collectives::mpi::Endpoint: check_call() on a moved-from endpoint");
  // What every rank's call must agree on, hashed (FNV-1a) to 62 bits so that one
  // MPI_MAX over {h, -h} gives the largest and the smallest of the ranks' hashes.
  std::uint64_t h = 14695981039346656037ull;
  const auto mix = [&h](std::uint64_t v) {
    for (int i = 0; i < 8; ++i, v >>= 8) h = (h ^ (v & 0xff)) * 1099511628211ull;
  };
  for (const std::string_view text : {info.collective, info.algorithm}) {
    for (const char c : text) mix(static_cast<unsigned char>(c));
    mix(0x100); // the names' boundary
  }
  mix(info.root);
  mix(info.steps);
  mix(info.element_bytes);
  mix(info.count);
  mix(static_cast<std::uint64_t>(info.distance));
  const auto mine = static_cast<std::int64_t>(h >> 2);
  std::int64_t v[2] = {mine, -mine};
  MPI_Request req = MPI_REQUEST_NULL;
  detail::check(MPI_Iallreduce(MPI_IN_PLACE, v, 2, MPI_INT64_T, MPI_MAX, comm_, &req), "MPI_Iallreduce", rank_);
  const auto since = std::chrono::steady_clock::now();
  for (int done = 0; !done;) {
    detail::check(MPI_Test(&req, &done, MPI_STATUS_IGNORE), "MPI_Test", rank_);
    if (!done && timeout_ > 0 && std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count() > timeout_) {
      abort_job("collectives::mpi: rank " + std::to_string(rank_) + ": watchdog: the consistency check of " +
                collectives::detail::describe_step(&info) + " waited " + std::to_string(timeout_) +
                " s for the other ranks (a call they never make?);");
    }
  }
  if (v[0] == mine && -v[1] == mine) return;
  const std::string distance = info.collective == "shift" ? ", distance " + std::to_string(info.distance) : "";
  throw CallMismatch("collectives::mpi: rank " + std::to_string(rank_) + ": the ranks do not make the same call " +
                     std::to_string(info.call) + ": this rank's is " + std::string(info.collective) + " (" +
                     std::string(info.algorithm) + ", root " + std::to_string(info.root) + distance + ", " +
                     std::to_string(info.steps) + " steps, " + std::to_string(info.count) + " elements of " +
                     std::to_string(info.element_bytes) +
                     " bytes), and another rank's collective, algorithm, root, distance, steps, element count or "
                     "element size differ (Options::check_calls). " + collectives::detail::mismatch_causes);
}

COLLECTIVES_DECL void Endpoint::watchdog(std::size_t first_send, std::chrono::steady_clock::duration waited) const
{
  char seconds[64];
  std::snprintf(seconds, sizeof seconds, "%.3g s (timeout %g s)", std::chrono::duration<double>(waited).count(),
                timeout_);
  std::string what = "collectives::mpi: rank " + std::to_string(rank_) + ": watchdog: no message completed for " +
                     seconds + " in " + collectives::detail::describe_step(info_) + ";";
  for (std::size_t i = 0; i < requests_.size(); ++i) {
    if (requests_[i] == MPI_REQUEST_NULL) continue;
    const Chunk& c = chunks_[i];
    what += i < first_send ? " waiting to receive " + std::to_string(c.bytes) + " bytes from rank " + std::to_string(c.peer) + ";"
                           : " waiting for rank " + std::to_string(c.peer) + " to receive " + std::to_string(c.bytes) + " bytes;";
  }
  abort_job(std::move(what));
}

COLLECTIVES_DECL void Endpoint::abort_job(std::string what) const
{
  what += " aborting the job (exit code " + std::to_string(options_.timeout_exit_code) + "). " +
          collectives::detail::mismatch_causes + "\n";
  std::fputs(what.c_str(), stderr);
  std::fflush(stderr);
  MPI_Abort(comm_, options_.timeout_exit_code);
  std::abort(); // MPI_Abort does not return
}

COLLECTIVES_DECL void Endpoint::abandon(MPI_Request* req, std::size_t n, std::size_t first_send) noexcept
{
  for (std::size_t i = 0; i < n; ++i) {
    if (req[i] == MPI_REQUEST_NULL) continue;
    if (i < first_send) {
      MPI_Cancel(&req[i]);
      MPI_Wait(&req[i], MPI_STATUS_IGNORE);
    } else {
      MPI_Request_free(&req[i]);
    }
  }
}

COLLECTIVES_DECL void Endpoint::finish(std::size_t i, std::size_t first_send, MPI_Status& status, int code,
                                       const char* call)
{
  if (i >= first_send) return detail::check(code, call, rank_);
  const Chunk& c = chunks_[i];
  const long long got = received_bytes(status, code, c.type, call);
  if (got != static_cast<long long>(c.bytes)) throw_length(c, got);
}

} // namespace collectives::mpi
