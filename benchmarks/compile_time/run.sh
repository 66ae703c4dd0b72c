#!/bin/bash
# The compile-time budget of issue 12, measured: each variant of tu.cpp compiled with
# `$CXX -std=c++20 -O2 -c` (3 times, interleaved; the median), as a ratio to the variant
# that includes only <vector> <thread> <functional> <iostream> <algorithm>. Prints a table.
#   bash benchmarks/compile_time/run.sh            # g++
#   CXX=clang++ bash benchmarks/compile_time/run.sh
# Variants (see tu.cpp): std_only; collective_header: one collective's header (allreduce's);
# one_header / header_only: three collectives' headers and the threads transport's / the
# whole library, nothing called; one_named / one_default:
# allreduce on Ring<4> through those headers, a named algorithm / the default;
# three_named / three_defaults: alltoall, allreduce and broadcast through the whole library
# (the TU of issue 12), the same two ways; shapes_defaults: three_defaults' calls on five
# static shapes (shapes.cpp: what more shapes cost). The *_compiled variants are the same TUs with
# COLLECTIVES_SEPARATE_COMPILATION (they link collectives::compiled instead of compiling the
# threads transport, the executor core and the error texts themselves); `compiled_library`
# is that library's one source file (src/compiled.cpp), compiled once per build.
# mpi_three_named[_compiled]: three_named on the MPI transport (with Open MPI's compile
# flags from `mpicxx --showme:compile`; left out without them), header-only and linking
# collectives::compiled_mpi (src/compiled_mpi.cpp is mpi_compiled_library).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
include=$(cd "$here/../../include" && pwd)
cxx=${CXX:-g++}
declare -A flags=(
  [std_only]="-DHEADERS=0 -DCALLS=0 -DNAMED=0"
  [collective_header]="-DHEADERS=3 -DCALLS=0 -DNAMED=0"
  [one_header]="-DHEADERS=1 -DCALLS=0 -DNAMED=0"
  [header_only]="-DHEADERS=2 -DCALLS=0 -DNAMED=0"
  [one_named]="-DHEADERS=1 -DCALLS=1 -DNAMED=1"
  [one_default]="-DHEADERS=1 -DCALLS=1 -DNAMED=0"
  [three_named]="-DHEADERS=2 -DCALLS=3 -DNAMED=1"
  [three_defaults]="-DHEADERS=2 -DCALLS=3 -DNAMED=0"
  [shapes_defaults]=""
  [header_only_compiled]="-DHEADERS=2 -DCALLS=0 -DNAMED=0 -DCOLLECTIVES_SEPARATE_COMPILATION"
  [one_named_compiled]="-DHEADERS=1 -DCALLS=1 -DNAMED=1 -DCOLLECTIVES_SEPARATE_COMPILATION"
  [three_named_compiled]="-DHEADERS=2 -DCALLS=3 -DNAMED=1 -DCOLLECTIVES_SEPARATE_COMPILATION"
  [three_defaults_compiled]="-DHEADERS=2 -DCALLS=3 -DNAMED=0 -DCOLLECTIVES_SEPARATE_COMPILATION"
  [compiled_library]="-DCOLLECTIVES_SEPARATE_COMPILATION"
)
tus=(std_only collective_header one_header header_only one_named one_default three_named three_defaults
     shapes_defaults header_only_compiled one_named_compiled three_named_compiled three_defaults_compiled compiled_library)
declare -A sources
for tu in "${tus[@]}"; do sources[$tu]="$here/tu.cpp"; done
sources[compiled_library]="$here/../../src/compiled.cpp"
sources[shapes_defaults]="$here/shapes.cpp"
if mpi_flags=$(mpicxx --showme:compile 2>/dev/null); then
  flags[mpi_three_named]="-DHEADERS=2 -DCALLS=3 -DNAMED=1 -DMPI=1 $mpi_flags"
  flags[mpi_three_named_compiled]="-DHEADERS=2 -DCALLS=3 -DNAMED=1 -DMPI=1 -DCOLLECTIVES_SEPARATE_COMPILATION $mpi_flags"
  flags[mpi_compiled_library]="-DCOLLECTIVES_SEPARATE_COMPILATION $mpi_flags"
  sources[mpi_three_named]="$here/tu.cpp"
  sources[mpi_three_named_compiled]="$here/tu.cpp"
  sources[mpi_compiled_library]="$here/../../src/compiled_mpi.cpp"
  tus+=(mpi_three_named mpi_three_named_compiled mpi_compiled_library)
fi
declare -A times
for round in 1 2 3; do
  for tu in "${tus[@]}"; do
    start=$(date +%s.%N)
    # shellcheck disable=SC2086 # the flags are words
    "$cxx" -std=c++20 -O2 -I"$include" ${flags[$tu]} -c "${sources[$tu]}" -o /dev/null
    end=$(date +%s.%N)
    times[$tu]+="$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }') "
  done
done
median() { tr ' ' '\n' <<<"$1" | grep -v '^$' | sort -n | sed -n 2p; }
base=$(median "${times[std_only]}")
echo "| TU ($cxx -O2) | s (median of 3) | x std-only |"
echo "|---|--:|--:|"
for tu in "${tus[@]}"; do
  t=$(median "${times[$tu]}")
  awk -v tu="$tu" -v t="$t" -v base="$base" 'BEGIN { printf "| %s | %.2f | %.1f |\n", tu, t, t / base }'
done
