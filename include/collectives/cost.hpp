#pragma once
// The cost layer: the model (cost/model.hpp), the schedule-derived estimate
// (cost/schedule_cost.hpp), closed forms, the seeds' formulas and lower bounds
// (cost/closed_forms.hpp), selection and crossovers over every collective's list of
// algorithms (cost/select.hpp), the selection policy a communicator carries
// (cost/policy.hpp), and FullyConnected, the network of the standard any-p formulas
// (cost/fully_connected.hpp). Calibration on a transport runs the executor, so it sits
// above it: <collectives/tuning/calibrate.hpp>.

#include <collectives/algorithm/allgather.hpp>
#include <collectives/algorithm/allreduce.hpp>
#include <collectives/algorithm/alltoall.hpp>
#include <collectives/algorithm/alltoallv.hpp>
#include <collectives/algorithm/barrier.hpp>
#include <collectives/algorithm/broadcast.hpp>
#include <collectives/algorithm/gather.hpp>
#include <collectives/algorithm/reduce.hpp>
#include <collectives/algorithm/reduce_scatter.hpp>
#include <collectives/algorithm/scan.hpp>
#include <collectives/algorithm/scatter.hpp>
#include <collectives/algorithm/shift.hpp>
#include <collectives/cost/compiled_once.hpp>

#include <collectives/cost/closed_forms.hpp>
#include <collectives/cost/fully_connected.hpp>
#include <collectives/cost/model.hpp>
#include <collectives/cost/policy.hpp>
#include <collectives/cost/schedule_cost.hpp>
#include <collectives/cost/select.hpp>
