#pragma once
// The shim's global state (configuration, whether it is active) and each communicator's:
// its duplicate (inside the mpi::Endpoint), its topology and the algorithms picked so far,
// cached in an attribute of the user's communicator whose delete callback frees them at
// MPI_Comm_free (and at MPI_Finalize, where the shim deletes what is left).

#include "config.hpp"
#include "engine.hpp"
#include "stats.hpp"
#include <collectives/transport/mpi.hpp> // <mpi.h>, without the MPI-2 C++ bindings

#include <collectives/algorithm/collective.hpp>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace collectives::pmpi {

/// The configuration (valid while active()).
const Config& config();
/// True between a successful shim initialisation and MPI_Finalize.
bool active();

/// Called after PMPI_Init(_thread): reads the configuration (world rank 0's, broadcast),
/// creates the attribute key, calibrates if asked. Returns MPI_SUCCESS, or an error code
/// after printing why (the shim then stays inactive and every call goes to Open MPI).
int initialize(bool collective);
/// Before PMPI_Finalize: prints the report, frees every communicator's state.
void finalize();

/// One user communicator's state.
class CommState {
public:
  explicit CommState(MPI_Comm user);
  ~CommState();
  CommState(const CommState&) = delete;
  CommState& operator=(const CommState&) = delete;

  MPI_Comm user() const { return user_; }
  bool inter() const { return inter_; }
  std::size_t rank() const { return rank_; }
  std::size_t size() const { return size_; }

  /// The communicator the engine runs on, created on first use: duplicates the user's
  /// communicator (collective: every rank reaches its first served call together) and
  /// chooses its topology.
  ShimComm& comm();

  /// What a call runs: an algorithm of its collective, and the report's row to count it in.
  struct Choice {
    std::size_t alg;
    Counter* row;
  };

  /// The algorithm for call `call` running collective c on `problem`: the forced one if it
  /// fits (counted in the report either way), otherwise the cost model's pick; decided
  /// once per problem and remembered.
  Choice choose(Call call, Coll c, const Problem& problem);

private:
  struct Pick {
    Call call;
    Coll coll;
    Problem problem;
    Choice choice;
    ForcedCounter* forced; ///< null: nothing forced
    bool forced_fits;
  };

  MPI_Comm user_;
  bool inter_ = false;
  std::size_t rank_ = 0, size_ = 0;
  std::size_t id_ = 0;
  std::unique_ptr<mpi::Endpoint> ep_;
  std::optional<ShimComm> comm_;
  std::string topology_;
  std::vector<Pick> picks_;
  std::size_t next_pick_ = 0;
};

/// The state of `comm` (created and attached on first use). Requires active().
CommState& state_of(MPI_Comm comm);

} // namespace collectives::pmpi
