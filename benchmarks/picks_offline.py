#!/usr/bin/env python3
"""A cost model's default picks, checked offline against measured mpi_collectives tables.

mpi_collectives times every algorithm in every cell, so one set of runs can judge many
models without running again: for each cell (collective, size) this asks
collectives-cost which algorithm the model picks on a ring of p, and counts the cells
where that algorithm's measured time (the mean over the runs given) is within 1.1x of the
best algorithm a ring's default may run (the dimensional ones are measured on a mesh and
left out). Prints the count and the cells missed. With --slowest it judges by each
variant's slowest rank instead (runs made with --rows): when the call is over for every
rank, which is what the model prices; the mean over ranks favours schedules whose first
ranks leave early.

  mpirun --oversubscribe -n 8 mpi_collectives --scale 0.3 --no-threads > run1.txt   # (x3)
  python3 benchmarks/picks_offline.py --tool build/release/tools/collectives-cost \\
      --model "--ts 1e-6 --tw 1e-9 --tr 5e-10 --half-duplex --crossbar --lanes 2 --tsync 16e-6 --tfresh 5e-10" \\
      run1.txt run2.txt run3.txt

The model above is the MPI endpoint's at 8 ranks on 2 cores (transport/impl/mpi.ipp,
machine_model). --model may be given several times; each is judged on the same runs.
Sizes are bytes of doubles (m = bytes / 8 words), per block where the collective has
blocks, as in mpi_collectives and the default's own selection.
"""
import argparse
import functools
import re
import subprocess
import sys

# The collectives collectives-cost prices (alltoallv and the barrier are not among them).
OPS = ['broadcast', 'reduce', 'allgather', 'reduce_scatter', 'allreduce', 'scan', 'scatter', 'gather',
       'alltoall']
UNITS = {'B': 1, 'KiB': 1 << 10, 'MiB': 1 << 20}


def parse_run(path, slowest=False):
    """{(collective, size): {column: time / native}} from one run's per-collective tables
    (slowest: from its --rows tables, each variant's max over ranks / native's)."""
    cells, coll, cols, p = {}, None, None, None
    for line in open(path):
        m = re.match(r'### (\w+), p = (\d+)', line)
        if m:
            coll, p, cols = m.group(1), int(m.group(2)), None
            continue
        if line.startswith('## Summary'):
            coll = None
        if coll is None:
            continue
        if slowest:
            row = re.match(r'(\d+ (?:B|KiB|MiB))\s+(\w+)\s+[\d.]+\s+[\d.]+\s+([\d.]+)\s+\d+\s*$', line)
            if row:
                cells.setdefault((coll, row.group(1)), {})[row.group(2)] = float(row.group(3))
            continue
        if line.startswith('| size'):
            # Only the tables of time / native (alltoall's hand-written table is another).
            cols = [c.strip() for c in line.strip().strip('|').split('|')] if 'native us' in line else None
            continue
        if cols and re.match(r'\|\s*\d+ (B|KiB|MiB) ', line):
            values = [c.strip() for c in line.strip().strip('|').split('|')]
            row = {}
            for c, v in zip(cols, values):
                try:
                    row[c] = float(v)
                except ValueError:
                    pass  # size, native us (mean (min-max))
            cells[(coll, values[0])] = row
    if slowest:
        if not cells:
            sys.exit(f'picks_offline: {path}: no per-variant rows (run mpi_collectives with --rows)')
        for key, row in cells.items():
            native = row.pop('native', None)
            if not native:
                sys.exit(f'picks_offline: {path}: no native row for {key} (run mpi_collectives with --rows)')
            cells[key] = {c: t / native for c, t in row.items()}
    return cells, p


def size_bytes(size):
    n, unit = size.split()
    return int(n) * UNITS[unit]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--tool', default='build/release/tools/collectives-cost')
    ap.add_argument('--model', action='append', required=True, help='collectives-cost options of one model')
    ap.add_argument('--slowest', action='store_true',
                    help="judge by the slowest rank (the runs' --rows tables) instead of the mean over ranks")
    ap.add_argument('runs', nargs='+', help='mpi_collectives outputs (one p)')
    args = ap.parse_args()

    parsed = [parse_run(r, args.slowest) for r in args.runs]
    ps = {p for _, p in parsed}
    if len(ps) != 1 or None in ps:
        sys.exit('picks_offline: the runs must be of one p, with per-collective tables')
    p = ps.pop()
    runs = [cells for cells, _ in parsed]
    keys = sorted({k for cells in runs for k in cells if k[0] in OPS},
                  key=lambda k: (OPS.index(k[0]), size_bytes(k[1])))

    for model in args.model:
        @functools.lru_cache(maxsize=None)
        def priced(op, m, model=model):
            out = subprocess.run([args.tool, '--topology', 'ring', '--p', str(p), '--m', str(m), '--op', op] +
                                 model.split(), capture_output=True, text=True, check=True).stdout
            names, pick = [], None
            for line in out.splitlines():
                row = re.match(r'\s+(\*?)\s*(\w+)\s+[\d.e+-]+ s', line)
                if row:
                    names.append(row.group(2))
                    if row.group(1) == '*':
                        pick = row.group(2)
            return pick, names

        good, missed = 0, []
        for key in keys:
            op, size = key
            pick, names = priced(op, max(1, size_bytes(size) // 8))
            rows = [cells[key] for cells in runs if key in cells]
            mean = {c: sum(r[c] for r in rows if c in r) / sum(1 for r in rows if c in r) for c in rows[0]}
            ring = {c: t for c, t in mean.items() if c in names and not c.startswith('dimensional')}
            best = min(ring, key=ring.get)
            if pick in mean and mean[pick] <= 1.1 * ring[best]:
                good += 1
            else:
                missed.append(f'{op} {size}: picks {pick} ({mean.get(pick, float("nan")):.2f}), '
                              f'best {best} ({ring[best]:.2f})')
        print(f'model "{model}": pick within 1.1x of the best in {good} of {len(keys)} cells '
              f'(p = {p}, mean of {len(runs)} runs{", by the slowest rank" if args.slowest else ""})')
        for line in missed:
            print('  missed:', line)


if __name__ == '__main__':
    main()
