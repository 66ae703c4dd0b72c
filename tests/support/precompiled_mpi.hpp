// The MPI test executables' precompiled header: tests/support/precompiled.hpp and the MPI
// transport (a target of its own: its compile flags carry MPI's include directories).
#pragma once

#include "precompiled.hpp"

#include <collectives/transport/mpi.hpp>
