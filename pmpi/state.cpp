// The shim's global and per-communicator state.

#include "state.hpp"

#include "datatype.hpp"
#include "stats.hpp"

#include <collectives/tuning/calibrate.hpp>

#include <unistd.h> // environ

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <string>

namespace collectives::pmpi {

namespace {

struct Global {
  Config config;
  std::atomic<bool> active{false};
  int keyval = MPI_KEYVAL_INVALID;
  std::mutex mutex; // guards live and next_id
  std::vector<CommState*> live; // in creation order
  std::size_t next_id = 0;
  std::atomic<std::uint64_t> deletions{0}; // states deleted so far (invalidates state_of's cache)
  int world_rank = 0, world_size = 1;
  std::string world_topology = "(no collective on MPI_COMM_WORLD)";
  std::string world_model; ///< MPI_COMM_WORLD's model, once a collective ran on it
};

Global& global()
{
  static Global g;
  return g;
}

int delete_state(MPI_Comm, int, void* attr, void*)
{
  delete static_cast<CommState*>(attr);
  return MPI_SUCCESS;
}

void check(int rc, const char* call)
{
  if (rc != MPI_SUCCESS) mpi::detail::check(rc, call, static_cast<std::size_t>(global().world_rank));
}

std::string model_text(const CostModel& m)
{
  const auto number = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return std::string(buf);
  };
  std::string text = "t_s=" + number(m.t_s) + " s, t_w=" + number(m.t_w) + " s/word, t_h=" + number(m.t_h) +
                     " s/hop, t_r=" + number(m.t_r) + " s/word";
  // One node's terms, when set (model.hpp).
  if (m.t_sync != 0) text += ", t_sync=" + number(m.t_sync) + " s/step";
  if (m.lanes != 0) text += ", lanes=" + std::to_string(m.lanes);
  if (m.half_duplex) text += ", half_duplex";
  if (m.crossbar) text += ", crossbar";
  if (m.t_fresh != 0) text += ", t_fresh=" + number(m.t_fresh) + " s/word";
  return text;
}

} // namespace

const Config& config() { return global().config; }
bool active() { return global().active.load(std::memory_order_acquire); }

int initialize(bool collective)
{
  Global& g = global();
  PMPI_Comm_rank(MPI_COMM_WORLD, &g.world_rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &g.world_size);

  // World rank 0's environment, so every rank configures alike.
  std::string text;
  if (g.world_rank == 0 || !collective) text = config_text(environ);
  if (collective) {
    unsigned long long n = text.size();
    PMPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    text.resize(static_cast<std::size_t>(n));
    if (n > 0) PMPI_Bcast(text.data(), static_cast<int>(n), MPI_CHAR, 0, MPI_COMM_WORLD);
  }
  try {
    g.config = parse_config(text);
  } catch (const std::exception& e) {
    if (g.world_rank == 0 || !collective) {
      std::fprintf(stderr, "collectives-pmpi: error: %s\n", e.what());
      std::fflush(stderr);
    }
    return MPI_ERR_ARG;
  }
  if (!g.config.enabled) return MPI_SUCCESS;

  init_datatypes();
  if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &g.keyval, nullptr) != MPI_SUCCESS)
    return MPI_ERR_INTERN;

  if (g.world_rank == 0)
    for (const std::string& name : g.config.unknown)
      std::fprintf(stderr, "collectives-pmpi: warning: %s is not a variable of the shim or the library (ignored); %s\n",
                   name.c_str(), variables_read());
  if (g.config.calibrate) {
    if (collective) {
      try {
        mpi::Endpoint ep(MPI_COMM_WORLD);
        CalibrationOptions options;
        options.word_bytes = g.config.word_bytes;
        g.config.model = calibrate(ep, options);
      } catch (const std::exception& e) {
        if (g.world_rank == 0) std::fprintf(stderr, "collectives-pmpi: error: calibration failed: %s\n", e.what());
        return MPI_ERR_INTERN;
      }
    } else if (g.world_rank == 0) {
      std::fprintf(stderr, "collectives-pmpi: warning: COLLECTIVES_MODEL=calibrate needs MPI_Init through the shim; "
                           "using the default model\n");
    }
  }
  CostModel in_use = g.config.model;
  if (!g.config.model_save.empty() && !g.config.model_given && collective) {
    // No model given: MPI_COMM_WORLD's endpoint's is the one in use there.
    try {
      in_use = mpi::Endpoint(MPI_COMM_WORLD).cost_model();
    } catch (const std::exception& e) {
      if (g.world_rank == 0) std::fprintf(stderr, "collectives-pmpi: error: %s\n", e.what());
      return MPI_ERR_INTERN;
    }
  }
  if (!g.config.model_save.empty() && g.world_rank == 0) {
    std::ofstream out(g.config.model_save);
    out << model_file_text(in_use, g.config.word_bytes);
    if (!out) std::fprintf(stderr, "collectives-pmpi: warning: cannot write %s\n", g.config.model_save.c_str());
  }
  if (g.config.verbose >= 2 && g.world_rank == 0)
    std::fprintf(stderr, "collectives-pmpi: active on %d ranks; cost model %s (%s), word %zu bytes\n", g.world_size,
                 g.config.model_given ? model_text(g.config.model).c_str() : "of each communicator",
                 g.config.model_source.c_str(), g.config.word_bytes);
  g.active.store(true, std::memory_order_release);
  return MPI_SUCCESS;
}

void finalize()
{
  Global& g = global();
  if (!active()) return;
  if (g.config.verbose >= 1 && g.world_rank == 0)
    print_report(stderr, "report of world rank 0 of " + std::to_string(g.world_size) + "; MPI_COMM_WORLD on " +
                           g.world_topology + "; cost model " +
                           (g.world_model.empty() ? model_text(g.config.model) : g.world_model) + " (" +
                           g.config.model_source + ")");
  std::vector<CommState*> live;
  {
    std::lock_guard lock(g.mutex);
    live = g.live;
  }
  // Newest first; each deletion runs delete_state, which frees the duplicate.
  for (auto it = live.rbegin(); it != live.rend(); ++it) PMPI_Comm_delete_attr((*it)->user(), g.keyval);
  PMPI_Comm_free_keyval(&g.keyval);
  g.active.store(false, std::memory_order_release);
}

// ---------------------------------------------------------------------------------------

CommState::CommState(MPI_Comm user) : user_(user)
{
  int flag = 0, rank = 0, size = 0;
  check(PMPI_Comm_test_inter(user, &flag), "MPI_Comm_test_inter");
  check(PMPI_Comm_rank(user, &rank), "MPI_Comm_rank");
  check(PMPI_Comm_size(user, &size), "MPI_Comm_size");
  inter_ = flag != 0;
  rank_ = static_cast<std::size_t>(rank);
  size_ = static_cast<std::size_t>(size);
  Global& g = global();
  std::lock_guard lock(g.mutex);
  id_ = g.next_id++;
  g.live.push_back(this);
}

CommState::~CommState()
{
  comm_.reset();
  ep_.reset(); // frees the duplicate (unless MPI is finalised)
  Global& g = global();
  g.deletions.fetch_add(1, std::memory_order_release);
  std::lock_guard lock(g.mutex);
  g.live.erase(std::remove(g.live.begin(), g.live.end(), this), g.live.end());
}

ShimComm& CommState::comm()
{
  if (comm_) return *comm_;
  CartesianInfo cart;
  bool is_cart = false;
  int status = MPI_UNDEFINED;
  check(PMPI_Topo_test(user_, &status), "MPI_Topo_test");
  if (status == MPI_CART) {
    int ndims = 0;
    check(PMPI_Cartdim_get(user_, &ndims), "MPI_Cartdim_get");
    std::vector<int> dims(static_cast<std::size_t>(ndims)), periods(dims.size()), coords(dims.size());
    if (ndims > 0) check(PMPI_Cart_get(user_, ndims, dims.data(), periods.data(), coords.data()), "MPI_Cart_get");
    for (int i = 0; i < ndims; ++i) {
      cart.extents.push_back(static_cast<std::size_t>(dims[static_cast<std::size_t>(i)]));
      cart.periodic.push_back(periods[static_cast<std::size_t>(i)] != 0);
    }
    is_cart = ndims > 0;
  }
  const Config& cfg = config();
  TopologyChoice choice = choose_topology(size_, is_cart ? &cart : nullptr, cfg.topology);
  topology_ = choice.topology.describe() + " (" + choice.source + ")";
  ep_ = std::make_unique<mpi::Endpoint>(user_, cfg.transport);
  const CostModel model = cfg.model_given ? cfg.model : ep_->cost_model();
  comm_.emplace(*ep_, choice.topology, model, cfg.word_bytes);
  if (user_ == MPI_COMM_WORLD) {
    global().world_topology = topology_;
    global().world_model = model_text(model);
  }
  if (cfg.verbose >= 2 && rank_ == 0)
    std::fprintf(stderr, "collectives-pmpi: communicator #%zu (%zu ranks%s): %s; cost model %s\n", id_, size_,
                 user_ == MPI_COMM_WORLD ? ", MPI_COMM_WORLD" : "", topology_.c_str(), model_text(model).c_str());
  return *comm_;
}

CommState::Choice CommState::choose(Call call, Coll c, const Problem& problem)
{
  for (const Pick& p : picks_)
    if (p.call == call && p.coll == c && p.problem.m == problem.m && p.problem.root == problem.root &&
        p.problem.commutative == problem.commutative && p.problem.in_place == problem.in_place) {
      if (p.forced != nullptr) p.forced->add(p.forced_fits);
      return p.choice;
    }
  ShimComm& sc = comm();
  const Config& cfg = config();
  const auto names = algorithms::names(c);
  Pick pick{call, c, problem, {algorithms::npos, nullptr}, nullptr, false};
  std::size_t forced = cfg.forced[static_cast<std::size_t>(c)];
  if (forced == algorithms::npos && cfg.round != algorithms::npos) forced = cfg.round % names.size();
  if (forced != algorithms::npos) {
    pick.forced = &forced_row(coll_name(c), names[forced]);
    pick.forced_fits = algorithms::fits(c, forced, sc.topology(), problem);
    pick.forced->add(pick.forced_fits);
    if (pick.forced_fits) pick.choice.alg = forced;
  }
  if (pick.choice.alg == algorithms::npos) pick.choice.alg = algorithms::cheapest(c, sc.topology(), sc.cost_model(), problem);
  pick.choice.row = &served_row(call, names[pick.choice.alg]);
  // A small cache: a program's collectives use a few sizes; the oldest pick makes room.
  constexpr std::size_t capacity = 64;
  if (picks_.size() < capacity) picks_.push_back(pick);
  else picks_[next_pick_++ % capacity] = pick;
  if (cfg.verbose >= 2 && rank_ == 0)
    std::fprintf(stderr, "collectives-pmpi: communicator #%zu: %s of %g words%s%s: %s\n", id_,
                 std::string(coll_name(c)).c_str(), problem.m, problem.commutative ? "" : ", non-commutative",
                 problem.in_place ? ", in place" : "", std::string(names[pick.choice.alg]).c_str());
  return pick.choice;
}

CommState& state_of(MPI_Comm comm)
{
  Global& g = global();
  // The last communicator this thread used, unless a state was deleted since (its handle
  // may since name another communicator): saves MPI's attribute lookup on most calls.
  thread_local struct {
    MPI_Comm comm = MPI_COMM_NULL;
    CommState* state = nullptr;
    std::uint64_t generation = 0;
  } last;
  const std::uint64_t generation = g.deletions.load(std::memory_order_acquire);
  if (last.comm == comm && last.state != nullptr && last.generation == generation) return *last.state;
  void* attr = nullptr;
  int flag = 0;
  check(PMPI_Comm_get_attr(comm, g.keyval, &attr, &flag), "MPI_Comm_get_attr");
  CommState* state = static_cast<CommState*>(attr);
  if (flag == 0) {
    auto made = std::make_unique<CommState>(comm);
    check(PMPI_Comm_set_attr(comm, g.keyval, made.get()), "MPI_Comm_set_attr");
    state = made.release();
  }
  last = {comm, state, generation};
  return *state;
}

} // namespace collectives::pmpi
