#!/usr/bin/env bash
# CQLite against what a user does today without it: Spark reading the table
# from a running Cassandra node through the Spark Cassandra Connector and
# writing it to an Iceberg table, for the first load and after about 1% of the
# rows changed, in the same run.
#
#   bench/run_spark_bench.sh [--small] [--work DIR] [--skip-spark] [--skip-cqlite]
#
#   --small        the 600-partition dataset (~60 MB, 969,649 rows), a smoke test
#   --work DIR     the node's directories, the table copies and both warehouses
#                  (default /tmp/cqlite-spark-bench, on disk)
#   --skip-spark / --skip-cqlite   one contender only (no equality check then)
#
# The dataset is tools/bench/gen_dataset.sh's (8 SSTables of ~160 MiB, 19.8M
# rows, cached), the change tools/bench/gen_update.sh's (two more SSTables).
#
# Spark: a Cassandra 5.0.6 node (tools/oracle/oracle.sh node: loopback only,
# heap ORACLE_NODE_HEAP, default 4g) is given the keyspace and the table of
# the dataset's schema.cql and the dataset's SSTables (hard-linked copies) as
# `nodetool import` does; SELECT COUNT(*) must equal the generator's row
# count. Then tools/bench/spark (SparkLoad.java, built and cached through
# tools/maven_tool.sh; Spark 3.5 local[2], driver heap SPARK_BENCH_HEAP, default
# 6g) reads the whole table through the connector and creates an Iceberg table
# in a fresh SQLite JDBC catalog (load 1). The two SSTables of the change are
# imported the same way, the count checked again, and Spark reads the whole
# table again and overwrites the Iceberg table with it (load 2: without CQLite
# there is no way to read only what changed). The node is stopped at the end,
# on failure too.
#
# CQLite: `cqlite materialize` (Release, build-rel/) of a hard-linked copy of
# the same 8 SSTables into a fresh warehouse (run 1), then with the two
# SSTables of the change linked in (run 2), each under /usr/bin/time -v, with
# one pinned --now.
#
# Equality: DuckDB's iceberg extension (bench/iceberg_content_hash.py) reads
# Spark's and CQLite's tables after the first load (their first snapshots'
# metadata files) and after the change, and their row counts and content
# hashes must be equal; the script fails if they are not.
#
# Writes build-rel/spark_report.md; raw outputs in build-rel/spark_bench_out/.
# Timings are reported as measured; they decide nothing.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$ROOT/build-rel"
WORK=/tmp/cqlite-spark-bench
SMALL=0
DO_SPARK=1
DO_CQLITE=1
die() { echo "run_spark_bench.sh: $*" >&2; exit 2; }
log() { echo "run_spark_bench.sh: $*" >&2; }
while [[ $# -gt 0 ]]; do
    case "$1" in
        --small) SMALL=1; shift ;;
        --work) WORK="$2"; shift 2 ;;
        --skip-spark) DO_SPARK=0; shift ;;
        --skip-cqlite) DO_CQLITE=0; shift ;;
        *) die "unknown argument: $1" ;;
    esac
done
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing (Debian package 'time')"
JAVA="${JAVA:-java}"

# shellcheck source=bench_setup.sh
source "$ROOT/bench/bench_setup.sh"
bench_python tests/integration/requirements.txt duckdb pyarrow pyiceberg

bench_out_dir spark_bench_out
if [[ $DO_CQLITE == 1 ]]; then
    bench_build_cqlite "$OUT"
fi
if [[ $DO_SPARK == 1 ]]; then
    # shellcheck source=../tools/maven_tool.sh
    source "$ROOT/tools/maven_tool.sh"
    maven_tool_build bench-spark "$ROOT/tools/bench/spark" || die "could not build tools/bench/spark"
    SPARK_CP="$MAVEN_TOOL_CLASSPATH"
    "$ROOT/tools/oracle/oracle.sh" build || die "could not build the Cassandra oracle"
fi

size_args=()
[[ $SMALL == 1 ]] && size_args=(--partitions 600)
dataset="$("$ROOT/tools/bench/gen_dataset.sh" "${size_args[@]}")"
update="$("$ROOT/tools/bench/gen_update.sh" "${size_args[@]}")"
BASE_TABLE="$(ls -d "$dataset"/data/bench/sensor_readings-*)"
UPDATE_TABLE="$(ls -d "$update"/data/bench/sensor_readings-*)"
TABLE_NAME="$(basename "$BASE_TABLE")"
cp "$dataset/generation.txt" "$OUT/dataset.generation.txt"
cp "$update/generation.txt" "$OUT/update.generation.txt"
field() { tr ' ' '\n' <"$1" | sed -n "s/^$2=//p" | head -1; }
ROWS1="$(field "$dataset/generation.txt" rows)"
DELETED="$(field "$update/generation.txt" deleted)"
ROWS2=$((ROWS1 - DELETED))
echo "$ROWS1 $ROWS2" >"$OUT/expected_rows"
NOW="$(date +%s)"
echo "$NOW" >"$OUT/now"
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

rm -rf "$WORK"
mkdir -p "$WORK"
# Hard links when the cache and WORK share a file system, copies otherwise.
link_copy() { cp -al "$1" "$2" 2>/dev/null || cp -a "$1" "$2"; }
# Every contender starts with the SSTables in the page cache.
find "$BASE_TABLE" "$UPDATE_TABLE" -type f -name '*.db' -exec cat {} + >/dev/null

# ---- Spark through the connector, from a running node ----------------------
NODE_JVM=""
stop_node() {
    [[ -n $NODE_JVM ]] || return 0
    log "stopping the Cassandra node"
    { echo quit >&"${NODE[1]}"; } 2>/dev/null || true
    local i
    for i in $(seq 1 60); do kill -0 "$NODE_JVM" 2>/dev/null || break; sleep 1; done
    kill "$NODE_JVM" 2>/dev/null || true
    NODE_JVM=""
}
trap stop_node EXIT
trap 'exit 130' INT TERM

# node_cmd <command...>: one command to the node; its output lines on stdout.
node_cmd() {
    echo "$*" >&"${NODE[1]}"
    local line
    while IFS= read -r line <&"${NODE[0]}"; do
        [[ $line == ok ]] && return 0
        [[ $line == error* ]] && { log "node: $* failed: $line"; return 1; }
        echo "$line"
    done
    die "the node stopped (see $OUT/node.log)"
}

check_count() {
    local want="$1" got
    got="$(node_cmd cql "SELECT COUNT(*) FROM bench.sensor_readings")"
    echo "$got" >>"$OUT/node_counts"
    [[ $got == "$want" ]] || die "the node counts $got rows, the generator wrote $want"
    log "node: SELECT COUNT(*) = $got"
}

# shellcheck source=../tools/spark_jvm_options.sh
source "$ROOT/tools/spark_jvm_options.sh"

# spark_load <name> create|overwrite
spark_load() {
    local name="$1" mode="$2"
    log "$name: Spark $mode"
    loadavg >"$OUT/$name.load_before"
    SPARK_LOCAL_IP=127.0.0.1 /usr/bin/time -v -o "$OUT/$name.time" nice "$JAVA" "-Xmx${SPARK_BENCH_HEAP:-6g}" \
        "${SPARK_JAVA_MODULE_OPTS[@]}" -cp "$SPARK_CP" cqlite.bench.spark.SparkLoad "$mode" 127.0.0.1 "$NATIVE_PORT" \
        bench sensor_readings "$WORK/spark-warehouse/catalog.db" "$WORK/spark-warehouse" spark \
        >"$OUT/$name.out" 2>"$OUT/$name.stderr" || { tail -30 "$OUT/$name.stderr" >&2; die "$name: Spark failed"; }
    loadavg >"$OUT/$name.load_after"
    cat "$OUT/$name.out" >&2
    "$PY" - "$WORK/spark-warehouse/catalog.db" spark >"$OUT/$name.metadata" <<'PY'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
print(con.execute("SELECT metadata_location FROM iceberg_tables WHERE catalog_name = ? AND "
                  "table_namespace = 'bench' AND table_name = 'sensor_readings'", [sys.argv[2]]).fetchone()[0])
PY
}

if [[ $DO_SPARK == 1 ]]; then
    mkdir -p "$WORK/import" "$WORK/spark-warehouse"
    link_copy "$BASE_TABLE" "$WORK/import/base"
    link_copy "$UPDATE_TABLE" "$WORK/import/update"
    { echo "CREATE KEYSPACE bench WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};"
      cat "$dataset/data/bench/schema.cql"; } >"$WORK/schema.cql"
    log "starting a Cassandra node in $WORK/node"
    coproc NODE { ORACLE_LOG_LEVEL=WARN exec nice "$ROOT/tools/oracle/oracle.sh" node "$WORK/node" 2>"$OUT/node.log"; }
    NODE_JVM="$NODE_PID"
    read -r ready <&"${NODE[0]}" || die "the node did not start (see $OUT/node.log)"
    [[ $ready == ready* ]] || die "the node said '$ready'"
    NATIVE_PORT="${ready#ready }"
    node_cmd schema "$WORK/schema.cql" >/dev/null
    start=$(date +%s.%N)
    node_cmd import bench sensor_readings "$WORK/import/base" >"$OUT/import1.out"
    echo "$(date +%s.%N) - $start" | bc >"$OUT/import1.seconds"
    check_count "$ROWS1"
    spark_load spark1 create
    start=$(date +%s.%N)
    node_cmd import bench sensor_readings "$WORK/import/update" >"$OUT/import2.out"
    echo "$(date +%s.%N) - $start" | bc >"$OUT/import2.seconds"
    check_count "$ROWS2"
    spark_load spark2 overwrite
    stop_node
fi

# ---- cqlite materialize from the SSTables ------------------------------------
cqlite_run() {
    local name="$1"
    log "$name: cqlite materialize"
    loadavg >"$OUT/$name.load_before"
    /usr/bin/time -v -o "$OUT/$name.time" nice "$CQLITE" materialize "$WORK/data/bench/$TABLE_NAME" \
        --warehouse "$WORK/cqlite-warehouse" --now "$NOW" --json >"$OUT/$name.json" 2>"$OUT/$name.stderr" ||
        { tail -5 "$OUT/$name.stderr" >&2; die "$name: cqlite failed"; }
    loadavg >"$OUT/$name.load_after"
    "$PY" - "$WORK/cqlite-warehouse/catalog.db" cqlite >"$OUT/$name.metadata" <<'PY'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
print(con.execute("SELECT metadata_location FROM iceberg_tables WHERE catalog_name = ? AND "
                  "table_namespace = 'bench' AND table_name = 'sensor_readings'", [sys.argv[2]]).fetchone()[0])
PY
}

if [[ $DO_CQLITE == 1 ]]; then
    mkdir -p "$WORK/data/bench"
    link_copy "$BASE_TABLE" "$WORK/data/bench/$TABLE_NAME"
    # The table's CREATE TABLE beside it, as a snapshot keeps it: the SSTables
    # alone do not name the key columns.
    cp "$dataset/data/bench/schema.cql" "$WORK/data/bench/"
    find "$WORK/data/bench/$TABLE_NAME" -name '*-Data.db' | wc -l >"$OUT/sstables1"
    cqlite_run cqlite1
    for f in "$UPDATE_TABLE"/*; do
        ln "$f" "$WORK/data/bench/$TABLE_NAME/" 2>/dev/null || cp -a "$f" "$WORK/data/bench/$TABLE_NAME/"
    done
    find "$WORK/data/bench/$TABLE_NAME" -name '*-Data.db' | wc -l >"$OUT/sstables2"
    cqlite_run cqlite2
fi

# ---- equality, then the report -------------------------------------------------
if [[ $DO_SPARK == 1 && $DO_CQLITE == 1 ]]; then
    log "DuckDB: row counts and content hashes of both tables"
    "$PY" "$ROOT/bench/iceberg_content_hash.py" "$(cat "$OUT/spark1.metadata")" "$(cat "$OUT/cqlite1.metadata")" \
        "$(cat "$OUT/spark2.metadata")" "$(cat "$OUT/cqlite2.metadata")" >"$OUT/hashes.jsonl"
fi

"$PY" - "$OUT" "$BUILD/spark_report.md" "$DO_SPARK" "$DO_CQLITE" <<'PY'
import json, os, re, sys
out, report_path, do_spark, do_cqlite = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4] == "1"

def read(name):
    return open(os.path.join(out, name)).read().strip()

def time_v(name):
    text = read(name + ".time")
    def get(label):
        return re.search(re.escape(label) + r": (.*)", text).group(1).strip()
    wall = get("Elapsed (wall clock) time (h:mm:ss or m:ss)")
    secs = 0.0
    for part in wall.split(":"):
        secs = secs * 60 + float(part)
    return {"wall": secs, "user": float(get("User time (seconds)")), "sys": float(get("System time (seconds)")),
            "rss_mib": int(get("Maximum resident set size (kbytes)")) / 1024}

mem_gib = int(re.search(r"MemTotal:\s+(\d+)", open("/proc/meminfo").read()).group(1)) / 1048576
rows1, rows2 = read("expected_rows").split()
gen = read("dataset.generation.txt").splitlines()[0]
upd = read("update.generation.txt").splitlines()[0]
lines = ["# Spark + Spark Cassandra Connector vs cqlite materialize", "",
         f"Machine: {os.cpu_count()} CPUs (nproc), {mem_gib:.1f} GiB memory. `--now {read('now')}`.", "",
         f"Dataset: `{gen}`", "", f"Change: `{upd}`", "",
         f"Rows expected: {rows1} after the first load, {rows2} after the change "
         "(the node's `SELECT COUNT(*)` gave " + (", ".join(read("node_counts").split()) if do_spark else "-") + ").", ""]
runs = {}
lines += ["| run | what | wall s | user s | sys s | peak RSS MiB | load before | load after | detail |",
          "|---|---|---|---|---|---|---|---|---|"]
if do_spark:
    for name, what in (("spark1", "Spark: connector read of the whole table, Iceberg create (first load)"),
                       ("spark2", "Spark: connector read of the whole table, Iceberg overwrite (after the change)")):
        t = time_v(name)
        detail = dict(kv.split("=") for kv in read(name + ".out").split())
        runs[name] = t
        lines.append(f"| {name} | {what} | {t['wall']:.1f} | {t['user']:.1f} | {t['sys']:.1f} | {t['rss_mib']:.0f} | "
                     f"{read(name + '.load_before')} | {read(name + '.load_after')} | JVM start {detail['jvm_start_ms']} ms, "
                     f"SparkSession {int(detail['session_ms']) / 1000:.1f} s, read+write+commit "
                     f"{int(detail['load_ms']) / 1000:.1f} s, {detail['rows']} rows |")
if do_cqlite:
    for name, what in (("cqlite1", f"cqlite materialize, {read('sstables1')} SSTables, fresh warehouse"),
                       ("cqlite2", f"cqlite materialize, {read('sstables2')} SSTables (the change added)")):
        t = time_v(name)
        runs[name] = t
        r = json.loads(read(name + ".json"))
        t0 = r["tables"][0]
        lines.append(f"| {name} | {what} | {t['wall']:.1f} | {t['user']:.1f} | {t['sys']:.1f} | {t['rss_mib']:.0f} | "
                     f"{read(name + '.load_before')} | {read(name + '.load_after')} | "
                     f"{', '.join(f'{k} {t0.get(k)}' for k in ('rows_written', 'rows_deleted', 'rows_total', 'data_files', 'delete_files'))} |")
lines.append("")
if do_spark:
    lines.append(f"Node import (as `nodetool import`): {float(read('import1.seconds')):.1f} s for the dataset, "
                 f"{float(read('import2.seconds')):.1f} s for the change (not in Spark's times).")
    lines.append("")
if do_spark and do_cqlite:
    lines += ["| | Spark wall s | cqlite wall s | Spark / cqlite |", "|---|---|---|---|"]
    for label, s, c in (("first load", "spark1", "cqlite1"), ("1% change", "spark2", "cqlite2")):
        lines.append(f"| {label} | {runs[s]['wall']:.1f} | {runs[c]['wall']:.1f} | {runs[s]['wall'] / runs[c]['wall']:.1f}x |")
    lines += ["", "Target: cqlite at least 10x faster than Spark on the first load (the ratio above is as measured).", ""]
    hashes = [json.loads(l) for l in read("hashes.jsonl").splitlines()]
    lines += ["Equality (DuckDB iceberg_scan; rows and the sum of hash() of each row as text):", "",
              "| table | rows | content hash |", "|---|---|---|"]
    names = ["Spark, first load", "cqlite, first load", "Spark, after the change", "cqlite, after the change"]
    for n, h in zip(names, hashes):
        lines.append(f"| {n} | {h['rows']} | {h['hash']} |")
    ok = (hashes[0]["rows"], hashes[0]["hash"]) == (hashes[1]["rows"], hashes[1]["hash"]) and \
         (hashes[2]["rows"], hashes[2]["hash"]) == (hashes[3]["rows"], hashes[3]["hash"]) and \
         str(hashes[0]["rows"]) == rows1 and str(hashes[2]["rows"]) == rows2
    lines += ["", "Equal: " + ("yes" if ok else "NO"), "", "Columns hashed: " + ", ".join(hashes[0]["columns"]), ""]
open(report_path, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
if do_spark and do_cqlite and not ok:
    sys.exit("run_spark_bench.sh: Spark's and cqlite's tables differ")
PY
