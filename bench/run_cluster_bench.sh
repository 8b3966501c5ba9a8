#!/usr/bin/env bash
# `cqlite materialize --cluster` over 3 nodes' worth of the bench table
# (RF 3: every node a full replica) against three single-node runs of the same
# data directories, in the same run (bench/cluster_bench.py).
#
#   bench/run_cluster_bench.sh [--small] [--work DIR] [--threads T] [--heap SIZE]
#
#   --small        the 600-partition dataset (~60 MB), a smoke test
#   --work DIR     the nodes' directories and the warehouses (default
#                  /tmp/cqlite-cluster-bench, on disk; the SSTables are hard links
#                  of the cached dataset, so the dataset's size is not copied)
#   --threads T    --threads of every run (default: the machine's cores)
#   --heap SIZE    each node's Java heap (default 1g)
#
# Builds cqlite in Release in build-rel/, the Cassandra oracle, and the dataset
# (tools/bench/gen_dataset.sh, cached). Writes build-rel/cluster_report.md; raw
# outputs in build-rel/cluster_bench_out/.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$ROOT/build-rel"
WORK=/tmp/cqlite-cluster-bench
SMALL=0
THREADS="$(nproc)"
HEAP=1g
die() { echo "run_cluster_bench.sh: $*" >&2; exit 2; }
log() { echo "run_cluster_bench.sh: $*" >&2; }
while [[ $# -gt 0 ]]; do
    case "$1" in
        --small) SMALL=1; shift ;;
        --work) WORK="$2"; shift 2 ;;
        --threads) THREADS="$2"; shift 2 ;;
        --heap) HEAP="$2"; shift 2 ;;
        -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument: $1" ;;
    esac
done
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing (Debian package 'time')"

# shellcheck source=bench_setup.sh
source "$ROOT/bench/bench_setup.sh"
bench_python tests/integration/requirements.txt duckdb pyarrow pyiceberg

bench_out_dir cluster_bench_out
bench_build_cqlite "$OUT"
"$ROOT/tools/oracle/oracle.sh" build || die "could not build the Cassandra oracle"

size_args=()
[[ $SMALL == 1 ]] && size_args=(--partitions 600)
dataset="$("$ROOT/tools/bench/gen_dataset.sh" "${size_args[@]}")"
TABLE="$(ls -d "$dataset"/data/bench/sensor_readings-*)"
ROWS="$(sed -n 's/.* rows=\([0-9]*\) .*/\1/p' "$dataset/generation.txt")"
[[ -n $ROWS ]] || die "no row count in $dataset/generation.txt"
cp "$dataset/generation.txt" "$OUT/dataset.generation.txt"

"$PY" "$ROOT/bench/cluster_bench.py" --cqlite "$CQLITE" --oracle "$ROOT/tools/oracle/oracle.sh" \
    --table "$TABLE" --schema "$dataset/data/bench/schema.cql" --rows "$ROWS" --work "$WORK" --out "$OUT" \
    --now "$(date +%s)" --threads "$THREADS" --heap "$HEAP"
cp "$OUT/cluster_report.md" "$BUILD/cluster_report.md"
log "report: $BUILD/cluster_report.md"
