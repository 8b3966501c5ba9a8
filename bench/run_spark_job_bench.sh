#!/usr/bin/env bash
# `cqlite materialize` of the bench table as a Spark job (spark/cqlite_spark.py:
# a task per token range, one commit) with 1 and 2 executors, against one
# single-process run of the same table, in the same run; then the same after a
# ~1% change. Reports wall times and speedups, the per-range figures, and a
# projection of what 100 TB would take.
#
#   bench/run_spark_job_bench.sh [--small] [--range-bytes B] [--executors "1 2"]
#                                [--executor-memory M] [--work DIR]
#
#   --small           the 600-partition dataset (~60 MB), a smoke test
#   --range-bytes B   SSTable bytes per range (default 160MiB: the 8 SSTables
#                     of ~160 MiB make 8 ranges)
#   --executors LIST  the executor counts to run (default "1 2"); each executor
#                     has one core, so a job runs as many tasks at once
#   --executor-memory the executors' JVM heap (default 512m; the cqlite a task
#                     runs is a process of its own beside it)
#   --work DIR        the table directories and warehouses (default
#                     /tmp/cqlite-spark-job-bench, on disk)
#
# The table: tools/bench/gen_dataset.sh's dataset (8 SSTables, 19.8M rows), and
# round 1 of tools/bench/gen_update.sh (~1% of the rows changed or deleted, two
# SSTables), both cached. Two table directories of hard links: data0 holds the
# dataset, data1 the dataset and the change. Every contender publishes data0
# into a warehouse of its own, then data1; all with one --now.
#
#   single    cqlite materialize (Release, build-rel/) with --threads 2, the
#             machine's cores, under /usr/bin/time -v;
#   spark-N   spark-submit --master local-cluster[N,1,1024] spark/cqlite_spark.py
#             (PySpark of tests/spark_job/requirements.txt in .venv) with
#             --range-bytes B, a SQLite catalog in its warehouse and a stage root
#             beside it, under /usr/bin/time -v (the wall time includes starting
#             Spark: the driver, the local-cluster's master, worker and
#             executor JVMs). The job's summary gives each task's seconds and
#             peak RSS.
#
# Equality: after each step every contender's table holds the same rows
# (count and content hash by DuckDB, bench/iceberg_content_hash.py), the count
# the generator's; the script fails if not. Timings are reported as measured;
# they decide nothing.
#
# Writes build-rel/spark_job_report.md; raw outputs in build-rel/spark_job_bench_out/.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$ROOT/build-rel"
WORK=/tmp/cqlite-spark-job-bench
SMALL=0
RANGE_BYTES=160MiB
EXECUTORS="1 2"
EXECUTOR_MEMORY=512m
die() { echo "run_spark_job_bench.sh: $*" >&2; exit 2; }
log() { echo "run_spark_job_bench.sh: $*" >&2; }
while [[ $# -gt 0 ]]; do
    case "$1" in
        --small) SMALL=1; shift ;;
        --range-bytes) RANGE_BYTES="$2"; shift 2 ;;
        --executors) EXECUTORS="$2"; shift 2 ;;
        --executor-memory) EXECUTOR_MEMORY="$2"; shift 2 ;;
        --work) WORK="$2"; shift 2 ;;
        *) die "unknown argument: $1" ;;
    esac
done
for n in $EXECUTORS; do [[ $n =~ ^[1-9][0-9]*$ ]] || die "--executors takes numbers, not $n"; done
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing (Debian package 'time')"

# shellcheck source=bench_setup.sh
source "$ROOT/bench/bench_setup.sh"
bench_python tests/spark_job/requirements.txt duckdb pyarrow pyiceberg pyspark
SPARK_SUBMIT="$ROOT/.venv/bin/spark-submit"
[[ -x $SPARK_SUBMIT ]] || die "no spark-submit in $ROOT/.venv (pyspark did not install)"
SPARK_HOME="$("$PY" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')"
export SPARK_HOME PYSPARK_PYTHON="$PY" SPARK_LOCAL_IP=127.0.0.1

bench_out_dir spark_job_bench_out
bench_build_cqlite "$OUT"
"$CQLITE" commit --help >/dev/null 2>&1 || die "this cqlite has no 'commit' command"

size_args=()
[[ $SMALL == 1 ]] && size_args=(--partitions 600)
dataset="$("$ROOT/tools/bench/gen_dataset.sh" "${size_args[@]}")"
update="$("$ROOT/tools/bench/gen_update.sh" "${size_args[@]}" --rounds 1)"
BASE_TABLE="$(ls -d "$dataset"/data/bench/sensor_readings-*)"
UPDATE_TABLE="$(ls -d "$update"/data/bench/sensor_readings-*)"
TABLE_NAME="$(basename "$BASE_TABLE")"
field() { head -1 "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
ROWS="$(field "$dataset/generation.txt" rows)"
DELETED="$(field "$update/generation.txt" deleted)"
NOW="$(date +%s)"
echo "$NOW" >"$OUT/now"
nproc >"$OUT/cores"

rm -rf "$WORK"
for step in 0 1; do
    mkdir -p "$WORK/data$step/bench"
    cp "$dataset/data/bench/schema.cql" "$WORK/data$step/bench/"
    cp -al "$BASE_TABLE" "$WORK/data$step/bench/$TABLE_NAME" 2>/dev/null ||
        cp -a "$BASE_TABLE" "$WORK/data$step/bench/$TABLE_NAME"
done
for f in "$UPDATE_TABLE"/*-1001-big-* "$UPDATE_TABLE"/*-1002-big-*; do
    ln "$f" "$WORK/data1/bench/$TABLE_NAME/" 2>/dev/null || cp -a "$f" "$WORK/data1/bench/$TABLE_NAME/"
done
du -sb "$BASE_TABLE" | cut -f1 >"$OUT/data_bytes"
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# check <contender> <step>: the table's count and content hash, which must be every contender's.
check() {
    local name="$1" step="$2" expected metadata
    expected=$((ROWS - (step == 1 ? DELETED : 0)))
    metadata="$("$PY" -c 'import sqlite3, sys
row = sqlite3.connect(sys.argv[1]).execute("SELECT metadata_location FROM iceberg_tables WHERE "
    "table_namespace = ? AND table_name = ?", ("bench", "sensor_readings")).fetchone()
print(row[0] if row else "")' "$WORK/$name/catalog.db")"
    [[ -n $metadata ]] || die "$name: no table bench.sensor_readings in its catalog after step $step"
    nice "$PY" "$ROOT/bench/iceberg_content_hash.py" "$metadata" >"$OUT/$name.step$step.hash.json" \
        2>"$OUT/$name.step$step.hash.stderr" ||
        { tail -20 "$OUT/$name.step$step.hash.stderr" >&2; die "$name: could not read its table after step $step"; }
    "$PY" -c 'import json, sys; d = json.loads(open(sys.argv[1]).readline()); print(d["rows"], d["hash"])' \
        "$OUT/$name.step$step.hash.json" >"$OUT/$name.step$step.hash"
    local count
    count="$(cut -d' ' -f1 "$OUT/$name.step$step.hash")"
    [[ $count == "$expected" ]] || die "$name: $count rows after step $step, not $expected"
    if [[ -f $OUT/reference.step$step.hash ]]; then
        cmp -s "$OUT/reference.step$step.hash" "$OUT/$name.step$step.hash" ||
            die "$name: its table after step $step differs from the single run's"
    else
        cp "$OUT/$name.step$step.hash" "$OUT/reference.step$step.hash"
    fi
}

for step in 0 1; do
    table_dir="$WORK/data$step/bench/$TABLE_NAME"
    log "step $step: single-process cqlite materialize"
    loadavg >"$OUT/single.step$step.load"
    /usr/bin/time -v -o "$OUT/single.step$step.time" nice "$CQLITE" materialize "$table_dir" \
        --warehouse "$WORK/single" --now "$NOW" --threads 2 --json >"$OUT/single.step$step.json" \
        2>"$OUT/single.step$step.stderr" || { tail -5 "$OUT/single.step$step.stderr" >&2; die "single run failed"; }
    check single "$step"
    for n in $EXECUTORS; do
        name="spark$n"
        log "step $step: Spark job, $n executor(s)"
        mkdir -p "$WORK/$name"
        loadavg >"$OUT/$name.step$step.load"
        /usr/bin/time -v -o "$OUT/$name.step$step.time" nice "$SPARK_SUBMIT" \
            --master "local-cluster[$n,1,1024]" --conf spark.ui.enabled=false \
            --conf "spark.executor.memory=$EXECUTOR_MEMORY" --driver-memory 1g \
            "$ROOT/spark/cqlite_spark.py" --cqlite "$CQLITE" --warehouse "$WORK/$name" \
            --catalog "sqlite:$WORK/$name/catalog.db" --stage-root "$WORK/$name-stage" \
            --range-bytes "$RANGE_BYTES" --now "$NOW" --json "$table_dir" \
            >"$OUT/$name.step$step.out" 2>"$OUT/$name.step$step.stderr" ||
            { tail -30 "$OUT/$name.step$step.stderr" >&2; die "$name: the Spark job failed"; }
        grep '^{"job"' "$OUT/$name.step$step.out" | tail -1 >"$OUT/$name.step$step.json" ||
            die "$name: no summary in its output"
        check "$name" "$step"
    done
done

log "writing $BUILD/spark_job_report.md"
"$PY" "$ROOT/bench/spark_job_report.py" "$OUT" "$EXECUTORS" "$RANGE_BYTES" >"$BUILD/spark_job_report.md"
cat "$BUILD/spark_job_report.md"
