#pragma once
// Topologies: Torus<Z...> (with Ring<P> and Mesh<R,C>), Hypercube<D>, Grid (dimensions
// with or without wraparound), and the concepts a user-defined topology satisfies.

#include <collectives/topology/concepts.hpp>
#include <collectives/topology/extents.hpp>
#include <collectives/topology/grid.hpp>
#include <collectives/topology/hypercube.hpp>
#include <collectives/topology/product.hpp>
#include <collectives/topology/route.hpp>
#include <collectives/topology/torus.hpp>
