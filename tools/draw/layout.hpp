#pragma once
// Where collectives-draw puts the nodes, as the seeds do: a ring (and a fully connected
// network) on a circle, a mesh as a grid whose wraparound links leave one edge and come
// back at the other, a 3-D torus as grids one behind the other, a hypercube as the seeds' cube
// projection (dimension 0 across, 1 up, 2 in depth; a 4-cube is two cubes side by side).

#include <collectives/topology/concepts.hpp>
#include <collectives/topology/hypercube.hpp>

#include <cmath>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace collectives::draw {

struct Point {
  double x = 0, y = 0;
};

/// A straight piece of a drawn link.
struct Piece {
  Point a, b;
};

/// Node positions (the bounding box starts at 0, 0) and how each link is drawn.
class Layout {
public:
  std::vector<Point> nodes;
  std::vector<std::string> names;    ///< drawn inside the node
  std::vector<std::string> captions; ///< drawn beside the node (hypercube: binary label)
  double width = 0, height = 0;
  double radius = 15;

  /// How link a -> b is drawn: one piece, or two stubs for a wraparound link of a grid
  /// (leaving a outwards, coming back into b from the opposite edge).
  std::vector<Piece> pieces(std::size_t a, std::size_t b) const
  {
    for (const auto& d : dims_) {
      const std::size_t ca = (a / d.stride) % d.extent, cb = (b / d.stride) % d.extent;
      if (ca == cb) continue;
      const bool wrap = d.extent > 2 && (ca > cb ? ca - cb : cb - ca) > 1;
      if (!wrap) break;
      const double sign = cb == (ca + 1) % d.extent ? 1.0 : -1.0;
      const Point pa = nodes[a], pb = nodes[b];
      const Point out{pa.x + sign * d.axis.x * stub_, pa.y + sign * d.axis.y * stub_};
      const Point in{pb.x - sign * d.axis.x * stub_, pb.y - sign * d.axis.y * stub_};
      return {Piece{pa, out}, Piece{in, pb}};
    }
    return {Piece{nodes[a], nodes[b]}};
  }

  /// Grid dimensions whose wraparound links are drawn as stubs.
  void add_wrapping_dim(std::size_t extent, std::size_t stride, Point axis) { dims_.push_back({extent, stride, axis}); }
  void set_stub(double s) { stub_ = s; }

  /// Shifts every node so the bounding box starts at (margin, margin).
  void normalise(double margin)
  {
    double x0 = 1e300, y0 = 1e300, x1 = -1e300, y1 = -1e300;
    for (const auto& n : nodes) {
      x0 = std::min(x0, n.x);
      y0 = std::min(y0, n.y);
      x1 = std::max(x1, n.x);
      y1 = std::max(y1, n.y);
    }
    for (auto& n : nodes) n = {n.x - x0 + margin, n.y - y0 + margin};
    width = x1 - x0 + 2 * margin;
    height = y1 - y0 + 2 * margin;
  }

private:
  struct Dim {
    std::size_t extent, stride;
    Point axis;
  };
  std::vector<Dim> dims_;
  double stub_ = 30;
};

namespace detail {

template <class T>
inline constexpr bool is_hypercube = false;
template <std::size_t D>
inline constexpr bool is_hypercube<Hypercube<D>> = true;

inline Layout circle(std::size_t p)
{
  Layout l;
  const double r = std::max(90.0, 16.0 * static_cast<double>(p));
  for (std::size_t i = 0; i < p; ++i) {
    const double a = -M_PI / 2 + 2 * M_PI * static_cast<double>(i) / static_cast<double>(p);
    l.nodes.push_back({r * std::cos(a), r * std::sin(a)});
    l.names.push_back(std::to_string(i));
  }
  l.captions.assign(p, "");
  return l;
}

inline Layout cube(std::size_t dims)
{
  // Offsets of dimensions 0..5: across, up, in depth, then copies of the 3-cube, shifted
  // off the axes so that links between copies miss the nodes in between.
  static constexpr Point offset[] = {{160, 0}, {0, -160}, {85, -70}, {400, 90}, {90, 360}, {860, 160}};
  Layout l;
  const std::size_t p = std::size_t{1} << dims;
  for (std::size_t r = 0; r < p; ++r) {
    Point at{};
    for (std::size_t d = 0; d < dims; ++d)
      if ((r >> d) & 1u) at = {at.x + offset[d].x, at.y + offset[d].y};
    l.nodes.push_back(at);
    l.names.push_back(std::to_string(r));
    std::string bits;
    for (std::size_t d = dims; d-- > 0;) bits += ((r >> d) & 1u) ? '1' : '0';
    l.captions.push_back("(" + bits + ")");
  }
  return l;
}

} // namespace detail

/// The seeds' layout of `topo`. Hypercubes up to 6 dimensions and tori up to 3 are drawn
/// as such; anything else on a circle.
template <topology T>
Layout layout_of(const T& topo)
{
  const std::size_t p = topo.size();
  Layout l;
  if constexpr (detail::is_hypercube<T>) {
    if (topo.ndims() <= 6 && topo.ndims() >= 1) l = detail::cube(topo.ndims());
    else l = detail::circle(p);
  } else if constexpr (product_topology<T>) {
    const std::size_t nd = topo.ndims();
    if (nd == 2 || nd == 3) {
      const double s = 140;
      const std::size_t rows = topo.extent(nd - 2), cols = topo.extent(nd - 1);
      const std::size_t layers = nd == 3 ? topo.extent(0) : 1;
      const Point layer_step{0.42 * s, -0.36 * s}; // depth, as the hypercube's third dimension
      for (std::size_t r = 0; r < p; ++r) {
        const std::size_t c = topo.coord(r, nd - 1), row = topo.coord(r, nd - 2), layer = nd == 3 ? topo.coord(r, 0) : 0;
        l.nodes.push_back({static_cast<double>(c) * s + static_cast<double>(layer) * layer_step.x,
                           static_cast<double>(row) * s + static_cast<double>(layer) * layer_step.y});
        l.names.push_back(std::to_string(r));
        l.captions.push_back("");
      }
      l.add_wrapping_dim(cols, topo.stride(nd - 1), {1, 0});
      l.add_wrapping_dim(rows, topo.stride(nd - 2), {0, 1});
      if (nd == 3) {
        const double n = std::hypot(layer_step.x, layer_step.y);
        l.add_wrapping_dim(layers, topo.stride(0), {layer_step.x / n, layer_step.y / n});
      }
    } else {
      l = detail::circle(p);
    }
  } else {
    l = detail::circle(p);
  }
  l.normalise(48);
  return l;
}

/// The topology's links (each pair of neighbours once, a < b), by distance().
template <topology T>
std::vector<std::pair<std::size_t, std::size_t>> links_of(const T& topo)
{
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t a = 0; a < topo.size(); ++a)
    for (std::size_t b = a + 1; b < topo.size(); ++b)
      if (topo.distance(a, b) == 1) out.emplace_back(a, b);
  return out;
}

} // namespace collectives::draw
