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

#include <collectives/algorithm/operators.hpp>

#include <collectives/algorithm/allgather.hpp>
#include <collectives/algorithm/allreduce.hpp>
#include <collectives/algorithm/alltoall.hpp>
#include <collectives/algorithm/alltoallv.hpp>
#include <collectives/algorithm/barrier.hpp>
#include <collectives/algorithm/broadcast.hpp>
#include <collectives/algorithm/reduce.hpp>
#include <collectives/algorithm/reduce_scatter.hpp>
#include <collectives/algorithm/scan.hpp>
#include <collectives/algorithm/scatter.hpp>
#include <collectives/algorithm/shift.hpp>

#include <collectives/cost.hpp>
