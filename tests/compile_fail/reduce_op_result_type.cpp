// expect: result type is not the buffer's element type
//
// A reduction operator must return the buffer's element type: summing ints into a double
// is a compile error naming the problem. The twin's operator returns int.
#include <collectives/collective/reduce.hpp>
#include <collectives/transport/threads.hpp>

#include <vector>

void reduce_with_wrong_result(collectives::threads::Endpoint& ep)
{
  collectives::Communicator<collectives::threads::Endpoint, collectives::Ring<4>> comm{ep, collectives::Ring<4>{}};
  const std::vector<int> send(3, 1);
  std::vector<int> recv(3);
#ifndef COLLECTIVES_TWIN
  const auto op = [](const int& a, const int& b) { return static_cast<double>(a) + b; };
#else
  const auto op = [](const int& a, const int& b) { return a + b; };
#endif
  collectives::reduce(comm, send, recv, op, 0);
}
