#pragma once
// What a transport gives each rank: an endpoint that knows its rank and the team size and
// moves bytes. One primitive, exchange(sends, recvs), posts a step's messages together
// (all-port algorithms post several) and returns when this rank's sends have been taken
// and its receives have arrived. A message is a gather list on the sender and a scatter
// list on the receiver; their total byte counts must agree.

#include <concepts>
#include <cstddef>
#include <span>

namespace collectives {

/// A piece of a message to send.
struct ConstBytes {
  const std::byte* data = nullptr;
  std::size_t size = 0;
};

/// A piece of memory a message lands in.
struct MutableBytes {
  std::byte* data = nullptr;
  std::size_t size = 0;
};

/// One outgoing message: the pieces, in order, go to rank `peer`.
struct SendRequest {
  std::size_t peer = 0;
  std::span<const ConstBytes> pieces;
};

/// One incoming message from rank `peer`, scattered over the pieces in order.
struct RecvRequest {
  std::size_t peer = 0;
  std::span<const MutableBytes> pieces;
};

/// An endpoint of a transport. exchange() may be called with any number of sends and
/// receives; the n-th message from a to b in one call matches the n-th receive b posts
/// from a in its matching call. Errors (a failed peer, a size mismatch) are exceptions.
template <class E>
concept endpoint = requires(E& e, std::span<const SendRequest> s, std::span<const RecvRequest> r) {
  { e.rank() } -> std::convertible_to<std::size_t>;
  { e.size() } -> std::convertible_to<std::size_t>;
  e.exchange(s, r);
};

/// Total bytes of a list of pieces.
template <class Pieces>
constexpr std::size_t total_bytes(const Pieces& pieces)
{
  std::size_t n = 0;
  for (const auto& piece : pieces) n += piece.size;
  return n;
}

} // namespace collectives
