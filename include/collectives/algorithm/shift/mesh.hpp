#pragma once
// Circular q-shift on a 2-D wraparound mesh (seed 001, Figure 3.22). Ranks are row-major,
// rank = row * C + col, so shifting rank r to r + q, with q = a*C + b (b = q mod C), moves
// a block b columns along its row and a rows down its column, plus one more row when the
// column move wrapped round the end of the row (col + b >= C: it passed into the next row).
// Three stages, as in the seed:
//   1. row shift by b: min(b, C - b) hops the shorter way along every row;
//   2. compensation: the blocks that wrapped (now in columns 0..b-1) move one row down;
//   3. column shift by a: min(a, R - a) hops the shorter way along every column.
// Blocks that wrapped make one hop more than the others, so where a block waits between
// hops is counted per block (two scratch blocks).

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/shift/common.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/rings.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>

#include <concepts>
#include <cstddef>
#include <type_traits>

namespace collectives {

/// Mesh q-shift: min(b, C - b) row hops, one compensation hop for the columns 0..b-1 when
/// b != 0 and R > 1, then min(a, R - a) column hops (q mod p = a*C + b), on a rows x cols
/// mesh or torus with ranks row-major. Cost (one-port): (t_s + t_w m)(2 floor(sqrt p / 2) + 1)
/// at most on a square mesh.
class ShiftMeshSchedule {
public:
  /// Shift by q (any integer; reduced mod p) on a rows x cols mesh, ranks row-major.
  constexpr ShiftMeshSchedule(std::size_t rows, std::size_t cols, std::ptrdiff_t q)
    : p_(rows * cols), rows_(rows), cols_(cols), q_(detail::reduce_shift(q, p_))
  {
  }
  constexpr std::size_t size() const { return p_; }
  /// q mod p.
  constexpr std::size_t shift() const { return q_; }
  /// Row stage: hops, and whether towards column + 1.
  constexpr std::size_t row_hops() const { return row_forward() ? col_shift() : cols_ - col_shift(); }
  constexpr bool row_forward() const { return col_shift() <= cols_ - col_shift(); }
  /// 1 when the compensation step runs (some blocks wrapped and there is another row).
  constexpr std::size_t compensation_steps() const { return col_shift() != 0 && rows_ > 1 ? 1 : 0; }
  /// Column stage: hops, and whether towards row + 1.
  constexpr std::size_t column_hops() const { return column_forward() ? row_shift() : rows_ - row_shift(); }
  constexpr bool column_forward() const { return row_shift() <= rows_ - row_shift(); }

  constexpr std::size_t total_steps() const { return row_hops() + compensation_steps() + column_hops(); }
  constexpr std::size_t num_steps() const { return total_steps() > 0 ? total_steps() : 1; }
  constexpr std::size_t scratch_blocks() const { return detail::shift_scratch_counted(total_steps()); }
  constexpr ShiftOp operation() const { return {size(), q_}; }
  /// Row and column steps: every rank does rank 0's step translated along the mesh's
  /// rings; compensation: the ranks of columns 0..b-1, rank 0's step translated.
  constexpr Symmetry symmetry(std::size_t step) const
  {
    Rings rings;
    rings.count = 2;
    rings.extents[0] = cols_;
    rings.strides[0] = 1;
    rings.extents[1] = rows_;
    rings.strides[1] = cols_;
    const RankGroup g = RankGroup::of(rings);
    if (step < row_hops() || step >= row_hops() + compensation_steps() || total_steps() == 0)
      return Symmetry::uniform(g);
    // Compensation: columns 0..b-1 (b >= 1, rows_ > 1) of every row.
    RankClass wrapped = RankClass::everyone(g, 0);
    if (g.kind == RankGroup::Kind::bits) wrapped.free = cols_; // a 2 x 2 mesh: column 0 (b = 1)
    else if (g.kind == RankGroup::Kind::rings) wrapped.count[0] = col_shift();
    else return Symmetry::none();
    return Symmetry::in(g).with(wrapped);
  }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    if (total_steps() == 0) {
      detail::shift_copy_own(v);
      return;
    }
    const std::size_t R = rows_, C = cols_;
    const std::size_t row = r / C, col = r % C;
    const std::size_t sa = row_hops(), sb = compensation_steps();
    if (step < sa) {
      // Every block hops along its row; each one's hop count depends on the column it
      // will reach at the end of the stage (wrapped or not).
      const std::size_t plus = row * C + detail::add_mod(col, 1, C);
      const std::size_t minus = row * C + detail::sub_mod(col, 1, C);
      const std::size_t out_final = along_row(col, sa - step);     // the block leaving
      const std::size_t in_final = along_row(col, sa - step - 1);  // the block arriving
      v.send({row_forward() ? plus : minus, detail::shift_slot_counted(step, hops_of(out_final))});
      v.recv({row_forward() ? minus : plus, detail::shift_slot_counted(step + 1, hops_of(in_final))});
      return;
    }
    if (step < sa + sb) {
      // Compensation: only the wrapped blocks (columns 0..b-1) move, one row down.
      if (col >= col_shift()) return;
      const std::size_t n = hops_of(col);
      v.send({detail::add_mod(row, 1, R) * C + col, detail::shift_slot_counted(sa, n)});
      v.recv({detail::sub_mod(row, 1, R) * C + col, detail::shift_slot_counted(sa + 1, n)});
      return;
    }
    // Column stage: blocks stay in their columns, so sender and receiver agree on n.
    const std::size_t t = step - sa - sb;
    const std::size_t n = hops_of(col);
    const std::size_t done = sa + (wrapped(col) ? 1 : 0) + t;
    const std::size_t plus = detail::add_mod(row, 1, R) * C + col;
    const std::size_t minus = detail::sub_mod(row, 1, R) * C + col;
    v.send({column_forward() ? plus : minus, detail::shift_slot_counted(done, n)});
    v.recv({column_forward() ? minus : plus, detail::shift_slot_counted(done + 1, n)});
  }

  friend constexpr bool operator==(const ShiftMeshSchedule&, const ShiftMeshSchedule&) = default;

private:
  /// b = q mod C and a = floor(q / C), for q already reduced mod p.
  constexpr std::size_t col_shift() const { return q_ % cols_; }
  constexpr std::size_t row_shift() const { return q_ / cols_; }
  /// The column k row hops from `col` in the row stage's direction.
  constexpr std::size_t along_row(std::size_t col, std::size_t k) const
  {
    return row_forward() ? detail::add_mod(col, k % cols_, cols_) : detail::sub_mod(col, k % cols_, cols_);
  }
  /// Whether a block that ends the row stage in column `col` wrapped round its row.
  constexpr bool wrapped(std::size_t col) const { return compensation_steps() != 0 && col < col_shift(); }
  /// Hops of the block that ends the row stage in column `col`.
  constexpr std::size_t hops_of(std::size_t col) const
  {
    return row_hops() + (wrapped(col) ? 1 : 0) + column_hops();
  }

  std::size_t p_;
  std::size_t rows_;
  std::size_t cols_;
  std::size_t q_;
};

namespace shift_algorithm {
/// Row shift, compensation, column shift: at most floor(C/2) + 1 + floor(R/2) steps; 2-D
/// meshes and tori only (Mesh<R, C>, Torus<R, C>).
struct Mesh : AlgorithmBase<Collective::shift> {
  static constexpr const char* name = "mesh";
  static constexpr Needs needs{.two_dims = true};
  template <product_topology T>
  static constexpr auto schedule(const T& t, const Problem& pr) { return ShiftMeshSchedule(t.extent(0), t.extent(1), pr.q); }
};
inline constexpr Mesh mesh{};
} // namespace shift_algorithm

} // namespace collectives
