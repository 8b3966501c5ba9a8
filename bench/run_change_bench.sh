#!/usr/bin/env bash
# What a `cqlite materialize` run costs for changes of about 1% of the bench
# table's rows of the kinds a live cluster makes, against the first run of
# the table, in the same run (bench/change_bench.py says how each is run and
# checked):
#   1. updates and deletes newer than the table, in one run;
#   2. the same as two runs, the deletes' timestamps interleaving with the
#      updates' (two flushes a watcher sees one at a time);
#   3. rows rewritten whole with timestamps older than the table's newest
#      write (gen_update.sh --timestamps after-row);
#   4. row, range and partition deletions of old rows (--kind deletions);
#   5. one column of old rows set with a timestamp older than the row's
#      other cells (--kind column);
#   6. 1% of the partitions rewritten whole (--kind partitions);
#   7. a compaction of consumed generations that purges nothing (the
#      consumed updates of 1 taken away and written again as a new
#      generation, as a single-SSTable compaction rewrites one);
#   9. rows whose TTL runs out (--kind ttl: 1% of the rows written with a
#      TTL of a day; the measured run is a day later, with nothing new).
# (8, a compaction that purges tombstones with what they deleted, needs a
# real node's compaction: test_live_fidelity.py and test_touched_rows.py run
# it on one.) Every run is at the clock the TTL change was written at (its
# generation.txt), plus a day for the last of 9.
# Each with 1 and 2 threads, and with --fold-everything (2 threads) for
# comparison; each reports wall, CPU and peak RSS (/usr/bin/time -v) and the
# rows written and deleted, checked exactly against what the generator
# changed (a mismatch fails the bench).
#
#   bench/run_change_bench.sh [--small] [--work DIR]
#
#   --small     the 600-partition dataset (~60 MB), a smoke test
#   --work DIR  the table copy and the warehouse (default
#               /tmp/cqlite-change-bench; on disk, so that fsyncs are real)
#
# Builds `cqlite` in Release in build-rel/. Writes build-rel/change_report.md;
# raw outputs in build-rel/change_bench_out/.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$ROOT/build-rel"
WORK=/tmp/cqlite-change-bench
SMALL=0
die() { echo "run_change_bench.sh: $*" >&2; exit 2; }
log() { echo "run_change_bench.sh: $*" >&2; }
while [[ $# -gt 0 ]]; do
    case "$1" in
        --small) SMALL=1; shift ;;
        --work) WORK="$2"; shift 2 ;;
        *) die "unknown argument: $1" ;;
    esac
done
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing (Debian package 'time')"
# shellcheck source=bench_setup.sh
source "$ROOT/bench/bench_setup.sh"
bench_out_dir change_bench_out
bench_build_cqlite "$OUT"

size_args=()
[[ $SMALL == 1 ]] && size_args=(--partitions 600)
dataset="$("$ROOT/tools/bench/gen_dataset.sh" "${size_args[@]}")"
changes=(
    "changes=$("$ROOT/tools/bench/gen_update.sh" "${size_args[@]}")"
    "after-row=$("$ROOT/tools/bench/gen_update.sh" "${size_args[@]}" --timestamps after-row)"
    "deletions=$("$ROOT/tools/bench/gen_update.sh" "${size_args[@]}" --kind deletions)"
    "column=$("$ROOT/tools/bench/gen_update.sh" "${size_args[@]}" --kind column)"
    "partitions=$("$ROOT/tools/bench/gen_update.sh" "${size_args[@]}" --kind partitions)"
    "ttl=$("$ROOT/tools/bench/gen_update.sh" "${size_args[@]}" --kind ttl)"
)
change_args=()
for change in "${changes[@]}"; do
    change_args+=(--change "$change")
    cp "${change#*=}/generation.txt" "$OUT/${change%%=*}.generation.txt"
done
cp "$dataset/generation.txt" "$OUT/dataset.generation.txt"
base_table="$(ls -d "$dataset"/data/bench/sensor_readings-*)"
# The SSTables in the page cache before the first run, as for every later one.
find "$base_table" -type f -name '*.db' -exec cat {} + >/dev/null

# The TTL change's rows live a day from when they were written.
ttl_generation="$OUT/ttl.generation.txt"
now="$(grep -o 'written_from=[0-9]*' "$ttl_generation" | cut -d= -f2)"
written_to="$(grep -o 'written_to=[0-9]*' "$ttl_generation" | cut -d= -f2)"
[[ -n $now && -n $written_to ]] || die "$ttl_generation gives no written_from and written_to"
(( written_to - now < 100 )) || die "the TTL change took more than 100 s to write; its rows expire over too long a time"
rc=0
python3 "$ROOT/bench/change_bench.py" --cqlite "$CQLITE" --table "$base_table" --work "$WORK" --out "$OUT" \
    --now "$now" "${change_args[@]}" || rc=$?
cp "$OUT/report.md" "$BUILD/change_report.md" 2>/dev/null || true
log "report: $BUILD/change_report.md"
exit "$rc"
