#pragma once
// Umbrella header: everything of collectives except the MPI transport (include
// <collectives/transport/mpi.hpp> for that) and the endpoint wrappers that trace and
// inject faults (transport/tracing.hpp, transport/faulty.hpp). Layers, bottom up:
//   detail/, topology/     what every layer uses; the networks
//   schedule/              block sets, the schedule concept, operation specs, the verifier
//   algorithm/             each algorithm's schedule and facts; each collective's list
//   cost/                  the cost model, the schedule-derived estimate, selection
//   transport/             endpoints (threads, MPI, recording)
//   execution/             the executor and the Communicator
//   collective/            the collectives users call (one header each)
//   tuning/                calibration, which runs the executor on a transport

#include <collectives/topology.hpp>

#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/schedule/verify.hpp>

#include <collectives/algorithm/operators.hpp>

#include <collectives/cost.hpp>

#include <collectives/transport/concepts.hpp>
#include <collectives/transport/recording.hpp>
#include <collectives/transport/threads.hpp>

#include <collectives/execution/communicator.hpp>
#include <collectives/execution/executor.hpp>

#include <collectives/collective/allgather.hpp>
#include <collectives/collective/allreduce.hpp>
#include <collectives/collective/alltoall.hpp>
#include <collectives/collective/alltoallv.hpp>
#include <collectives/collective/barrier.hpp>
#include <collectives/collective/blocks.hpp>
#include <collectives/collective/broadcast.hpp>
#include <collectives/collective/gather.hpp>
#include <collectives/collective/reduce.hpp>
#include <collectives/collective/reduce_scatter.hpp>
#include <collectives/collective/scan.hpp>
#include <collectives/collective/scatter.hpp>
#include <collectives/collective/shift.hpp>

#include <collectives/tuning/calibrate.hpp>
