#pragma once
// The endpoint the compile-fail cases build a Communicator on: a collective named with an
// algorithm that cannot fit is rejected from the types alone, so this endpoint moves
// nothing. (Included by the cases as "fake_endpoint.hpp"; not a case itself: only
// compile_fail/*.cpp are.)

#include <collectives/transport/concepts.hpp>

#include <cstddef>
#include <span>

namespace collectives::testing {

/// A minimal endpoint of P ranks: rank 0, an exchange that does nothing.
template <std::size_t P>
struct FakeEndpoint {
  std::size_t rank() const { return 0; }
  std::size_t size() const { return P; }
  void exchange(std::span<const SendRequest>, std::span<const RecvRequest>) {}
};

} // namespace collectives::testing
