#pragma once
// Routes: the sequence of directed links a message crosses, generated lazily from a
// topology's next_hop, so a route costs O(1) memory whatever its length.

#include <collectives/detail/require.hpp>

#include <cstddef>
#include <iterator>

namespace collectives {

namespace detail {

/// Throws std::invalid_argument naming `call` unless `node` is one of the p nodes (a
/// compile error in constant evaluation): a topology's functions of a node take no other.
constexpr void require_node(std::size_t node, std::size_t p, const char* call)
{
  if (node >= p) throw_invalid({"collectives: ", call, ": node ", node, " is not a node of a topology of ", p, " nodes"});
}

/// The same for a dimension of a topology of n dimensions.
constexpr void require_dim(std::size_t dim, std::size_t n, const char* call)
{
  if (dim >= n) throw_invalid({"collectives: ", call, ": dimension ", dim, " is not one of the topology's ", n});
}

} // namespace detail

/// One directed link of a route: from -> to.
struct Link {
  std::size_t from = 0;
  std::size_t to = 0;
  friend constexpr bool operator==(const Link&, const Link&) = default;
};

/// The route from `source` to `dest` on topology T, as a forward range of Links.
/// Requires T::next_hop(a, b): the neighbour of a on the way to b (a != b), and both nodes
/// of T (std::invalid_argument otherwise; a compile error when constant).
template <class T>
class RouteView {
public:
  struct sentinel {};
  class iterator {
  public:
    using value_type = Link;
    using difference_type = std::ptrdiff_t;
    constexpr iterator() = default;
    constexpr iterator(const T* topo, std::size_t at, std::size_t dest)
      : topo_(topo), at_(at), dest_(dest) {}
    constexpr Link operator*() const { return Link{at_, topo_->next_hop(at_, dest_)}; }
    constexpr iterator& operator++()
    {
      at_ = topo_->next_hop(at_, dest_);
      return *this;
    }
    constexpr iterator operator++(int)
    {
      auto old = *this;
      ++*this;
      return old;
    }
    friend constexpr bool operator==(const iterator& a, const iterator& b)
    {
      return a.at_ == b.at_ && a.dest_ == b.dest_;
    }
    friend constexpr bool operator==(const iterator& it, sentinel) { return it.at_ == it.dest_; }

  private:
    const T* topo_ = nullptr;
    std::size_t at_ = 0;
    std::size_t dest_ = 0;
  };

  constexpr RouteView(T topo, std::size_t source, std::size_t dest)
    : topo_(topo), source_(source), dest_(dest)
  {
    detail::require_node(source, topo_.size(), "route");
    detail::require_node(dest, topo_.size(), "route");
  }
  constexpr iterator begin() const { return iterator(&topo_, source_, dest_); }
  constexpr sentinel end() const { return {}; }
  /// Number of links (hops); walks the route.
  constexpr std::size_t size() const
  {
    std::size_t n = 0;
    for (auto it = begin(); it != end(); ++it) ++n;
    return n;
  }

private:
  T topo_;
  std::size_t source_;
  std::size_t dest_;
};

/// The route from source to dest on any topology with next_hop.
template <class T>
constexpr RouteView<T> route(const T& topo, std::size_t source, std::size_t dest)
{
  return RouteView<T>(topo, source, dest);
}

} // namespace collectives
