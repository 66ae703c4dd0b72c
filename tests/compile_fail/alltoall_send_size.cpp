// expect: collectives::alltoall: the send range.s size is not a multiple of the communicator.s size
//
// With a static topology and a std::array send buffer both sizes are known at compile time,
// so a send size that is not p*m is a compile error rather than an exception: 10 elements
// cannot be cut into 6 equal blocks. The twin, 12 elements (m = 2), compiles.
#include <collectives/collectives.hpp>

#include <array>

#ifndef COLLECTIVES_TWIN
constexpr std::size_t n = 10;
#else
constexpr std::size_t n = 12;
#endif

void exchange(collectives::threads::Team& team)
{
  team.run([](collectives::threads::Endpoint& ep) {
    collectives::Communicator comm(ep, collectives::Ring<6>{});
    const std::array<int, n> send{};
    std::array<int, n> recv{};
    collectives::alltoall(comm, send, recv);
  });
}
