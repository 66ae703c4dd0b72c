#!/bin/bash
# Issue 12's compile-time select, measured: for every collective (its index in
# all_collectives) and each of Hypercube<10>, Ring<1024> and Mesh<32,32>, one TU whose
# static_assert runs select<C>() over the collective's whole list at compile time, compiled
# with the compiler's default constant-evaluation limits (g++: -fconstexpr-ops-limit=2^25,
# clang: -fconstexpr-steps=2^20). Prints "compiler index topology ok|FAIL seconds".
#   bash benchmarks/compile_time/select_limits.sh                 # g++ and clang++
#   COMPILERS=g++ bash benchmarks/compile_time/select_limits.sh
#   EXTRA=-fconstexpr-steps=33554432 COMPILERS=clang++ bash …     # with a raised limit
#   TOPOLOGIES='Ring<1000> Mesh<16,64>' bash …                     # other topologies
#   MODEL='CostModel{1e-6, 1e-9, 5e-8, 1e-10, Routing::cut_through, Ports::all}' \
#   PROBLEM='Problem{1, 0, 3, true, true}' bash …                  # another model or problem
#   MIN_STEPS=1 COMPILERS=clang++ bash …   # and, for each case, the smallest
#                                          # -fconstexpr-steps that compiles it (within 3 %):
#                                          # how much of the default a case uses, or needs
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
include=$(cd "$here/../../include" && pwd)
boost=${BOOST_INCLUDE:-/usr/include}
tu=$(mktemp --suffix=.cpp)
trap 'rm -f "$tu"' EXIT
cat >"$tu" <<'EOF'
#include <collectives/cost.hpp>
using namespace collectives;
constexpr CostModel model = MODEL;
constexpr Problem problem = PROBLEM;
// Every fitting algorithm was a candidate (found() unless none fits the problem).
static_assert(select<all_collectives[INDEX]>(TOPOLOGY{}, model, problem).candidates ==
              fitting_algorithms<all_collectives[INDEX]>(TOPOLOGY{}, problem).size());
EOF
model=${MODEL:-'CostModel{1e-6, 1e-9, 5e-8, 1e-10}'}
problem=${PROBLEM:-'Problem{1024, 0, 3, true, false}'}
for cxx in ${COMPILERS:-g++ clang++}; do
  for i in $(seq 0 11); do
    for topo in ${TOPOLOGIES:-'Hypercube<10>' 'Ring<1024>' 'Mesh<32,32>'}; do
      start=$(date +%s.%N)
      if "$cxx" -std=c++20 -I"$include" -I"$boost" ${EXTRA:-} -DINDEX="$i" -DTOPOLOGY="$topo" -DMODEL="$model" \
        -DPROBLEM="$problem" -fsyntax-only "$tu" \
        >/dev/null 2>&1; then verdict=ok; else verdict=FAIL; fi
      end=$(date +%s.%N)
      printf '%s %2d %-14s %s %.1fs\n' "$cxx" "$i" "$topo" "$verdict" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')"
      if [[ ${MIN_STEPS:-} == 1 && $cxx == clang* ]]; then
        # (Bisection in log scale: a passing limit stays in hi.)
        if [[ $verdict == FAIL ]]; then lo=1048576 hi=67108864; else lo=1024 hi=1048576; fi
        while ((hi > lo * 103 / 100)); do
          mid=$(awk -v a="$lo" -v b="$hi" 'BEGIN { printf "%d", sqrt(a * b) }')
          if "$cxx" -std=c++20 -I"$include" -I"$boost" -fconstexpr-steps="$mid" -DINDEX="$i" -DTOPOLOGY="$topo" \
            -DMODEL="$model" -DPROBLEM="$problem" -fsyntax-only "$tu" >/dev/null 2>&1; then hi=$mid; else lo=$mid; fi
        done
        printf '%s %2d %-14s needs -fconstexpr-steps=%d (%.2fx the default)\n' "$cxx" "$i" "$topo" "$hi" \
          "$(awk -v h="$hi" 'BEGIN { print h / 1048576 }')"
      fi
    done
  done
done
