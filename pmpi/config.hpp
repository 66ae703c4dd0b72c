#pragma once
// The shim's configuration, from environment variables (docs/pmpi.md lists them). World
// rank 0 reads them and sends them to every rank (config_text), so all ranks select the
// same algorithms even if their environments differ; every rank then parses the same text.

#include "algorithms.hpp"
#include "topology_choice.hpp"

#include <collectives/cost/model.hpp>
#include <collectives/transport/mpi.hpp>

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace collectives::pmpi {

struct Config {
  bool enabled = true; ///< COLLECTIVES_PMPI_DISABLE=1: every call goes to Open MPI (A/B runs)
  int verbose = 0;     ///< COLLECTIVES_PMPI_VERBOSE: 1 the report at MPI_Finalize, 2 also each communicator and pick
  /// COLLECTIVES_<COLLECTIVE>_ALGORITHM: an index into algorithms::names(c), or npos (the cost model picks).
  std::array<std::size_t, num_colls> forced{};
  /// COLLECTIVES_PMPI_ROUND=i (for test suites): every collective not forced by name runs
  /// its algorithm number i mod (its number of algorithms), so rounds 0..7 run them all.
  std::size_t round = algorithms::npos;
  CostModel model = default_cost_model; ///< COLLECTIVES_MODEL (t_w per word of word_bytes)
  /// Whether COLLECTIVES_MODEL gave the model (numbers, a file or calibrate); without it
  /// each communicator takes its endpoint's suggestion (mpi::Endpoint::cost_model(): one
  /// node's terms when its ranks share a node), as a Communicator of the library does.
  bool model_given = false;
  std::size_t word_bytes = 8;
  std::string model_source = "the endpoint's";
  bool calibrate = false;     ///< COLLECTIVES_MODEL=calibrate: measure at MPI_Init
  std::string model_save;     ///< COLLECTIVES_MODEL_SAVE: rank 0 writes the model in use there
  TopologySpec topology;      ///< COLLECTIVES_TOPOLOGY
  std::string topology_text;
  mpi::Options transport{};   ///< COLLECTIVES_PMPI_MAX_MESSAGE_BYTES
  /// COLLECTIVES_* variables neither the shim nor the library reads (a misspelling, as
  /// COLLECTIVES_TOPOLGY): world rank 0 warns of each at MPI_Init.
  std::vector<std::string> unknown;

  Config() { forced.fill(algorithms::npos); }
};

/// The COLLECTIVES_* variables of `environ`, as NAME=VALUE lines; a COLLECTIVES_MODEL that
/// names a file is replaced by the model read from it (so that only rank 0 needs the
/// file). A file that cannot be read becomes COLLECTIVES_MODEL_ERROR=<why>.
std::string config_text(char** environ);

/// "the shim reads COLLECTIVES_PMPI_VERBOSE, ...": the variables read, for messages.
const char* variables_read();

/// Parses config_text's output. Throws std::invalid_argument naming the variable and the
/// valid values (an unknown algorithm lists the collective's algorithms).
Config parse_config(std::string_view text);

/// The model as a model file's text (what COLLECTIVES_MODEL_SAVE writes and a model file holds).
std::string model_file_text(const CostModel& model, std::size_t word_bytes);

} // namespace collectives::pmpi
