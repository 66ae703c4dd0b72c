// expect: every extent must be at least 1
//
// A static extent of 0 is rejected when the type is instantiated, by the static_assert of
// Torus<Z...> (Mesh<R,C> is Torus<R,C>). The twin uses Mesh<1,3>, the smallest valid one.
#include <collectives/topology.hpp>

#ifndef COLLECTIVES_TWIN
collectives::Mesh<0, 3> mesh;
#else
collectives::Mesh<1, 3> mesh;
#endif

std::size_t mesh_size() { return mesh.size(); }
