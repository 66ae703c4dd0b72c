#pragma once
// The cost layer: the model (cost/model.hpp), the schedule-derived estimate
// (cost/schedule_cost.hpp), closed forms, the seeds' formulas and lower bounds
// (cost/closed_forms.hpp), selection and crossovers (cost/select.hpp), calibration on a
// transport (cost/calibrate.hpp), and FullyConnected, the network of the standard any-p
// formulas (cost/fully_connected.hpp).

#include <collectives/cost/calibrate.hpp>
#include <collectives/cost/closed_forms.hpp>
#include <collectives/cost/collective.hpp>
#include <collectives/cost/fully_connected.hpp>
#include <collectives/cost/model.hpp>
#include <collectives/cost/schedule_cost.hpp>
#include <collectives/cost/select.hpp>
