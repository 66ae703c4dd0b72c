#pragma once
// Umbrella header: everything of collectives except the MPI transport
// (include <collectives/transport/mpi.hpp> for that).

#include <collectives/topology.hpp>

#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/schedule/verify.hpp>

#include <collectives/transport/concepts.hpp>
#include <collectives/transport/recording.hpp>
#include <collectives/transport/threads.hpp>

#include <collectives/execution/communicator.hpp>
#include <collectives/execution/executor.hpp>

#include <collectives/algorithm/alltoall.hpp>
