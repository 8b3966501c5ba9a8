#!/usr/bin/env bash
# Parquet writing throughput and file size of CQLite's ParquetWriter against
# DuckDB and pyarrow writing the same rows, one thread each, in the same run.
#
#   bench/run_parquet_bench.sh [--rows N] [--data DIR] [--small]
#
#   --rows N    current rows to write (default 2000000)
#   --data DIR  a table directory (default: the 1-generation ~1.2 GiB dataset
#               of tools/bench/gen_dataset.sh)
#   --small     the example table only (seconds, for a smoke test)
#
# Builds parquet_write_bench in Release in build-bench/ and runs it: it folds
# the table, converts the first N current rows with the CQL -> Parquet type
# mapping of the envelope files, writes them once row by row (WriteRow) to
# build-bench/parquet_bench_out/input.parquet, keeps them in memory as column
# batches (RowBatch, 65,536 rows each) and then times ParquetWriter (SNAPPY)
# writing them with WriteBatch 3 times ("cqlite"), and 3 times more refilling
# each batch value by value through the Append* calls first ("cqlite (fill +
# write)": a producer's cost of handing typed values over, levels included).
# Then, in one Python process (.venv, see
# tests/integration/requirements.txt):
#   DuckDB   SET threads=1; the input file loaded into an in-memory table,
#            then COPY t TO 'duckdb.parquet' (FORMAT parquet, COMPRESSION snappy)
#            timed 3 times;
#   pyarrow  pa.set_cpu_count(1), pa.set_io_thread_count(1); the input file read
#            into an Arrow table, then pyarrow.parquet.write_table(table, ...,
#            compression='snappy') timed 3 times.
# Every writer is reported by the median of its 3 runs (the best run beside
# it). DuckDB then checks that the three output files hold the same rows (row
# count and a hash sum of every column) and the report goes to
# build-bench/parquet_report.md. MB are 10^6 bytes.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$ROOT/build-bench"
ROWS=2000000
DATA=""
SMALL=0
die() { echo "run_parquet_bench.sh: $*" >&2; exit 2; }
while [[ $# -gt 0 ]]; do
    case "$1" in
        --rows) ROWS="$2"; shift 2 ;;
        --data) DATA="$2"; shift 2 ;;
        --small) SMALL=1; shift ;;
        *) die "unknown argument: $1" ;;
    esac
done

PY="$ROOT/.venv/bin/python"
if ! [[ -x $PY ]] || ! "$PY" -c 'import duckdb, pyarrow' 2>/dev/null; then
    echo "run_parquet_bench.sh: setting up $ROOT/.venv" >&2
    [[ -x $PY ]] || python3 -m venv "$ROOT/.venv"
    "$PY" -m pip install --quiet --disable-pip-version-check -r "$ROOT/tests/integration/requirements.txt"
fi

echo "run_parquet_bench.sh: building parquet_write_bench (Release) in $BUILD" >&2
mkdir -p "$BUILD"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >"$BUILD/parquet_bench.cmake.log" 2>&1 ||
    { cat "$BUILD/parquet_bench.cmake.log" >&2; die "cmake failed"; }
cmake --build "$BUILD" --target parquet_write_bench -j2 >"$BUILD/parquet_bench.build.log" 2>&1 ||
    { tail -50 "$BUILD/parquet_bench.build.log" >&2; die "build failed"; }
BIN="$BUILD/bench/parquet_write_bench"
OUT="$BUILD/parquet_bench_out"
rm -rf "$OUT"
mkdir -p "$OUT"

if [[ $SMALL == 1 ]]; then
    DATA="$(ls -d "$ROOT"/examples/data/shop/orders-*)"
elif [[ -z $DATA ]]; then
    dataset="$("$ROOT/tools/bench/gen_dataset.sh" --generations 1 --max-sstable-mib 100000)"
    DATA="$(ls -d "$dataset"/data/bench/sensor_readings-*)"
fi
find "$DATA" -type f -name '*.db' -exec cat {} + >/dev/null

echo "run_parquet_bench.sh: cqlite: BM_WriteParquet, $ROWS rows of $DATA" >&2
"$BIN" --data="$DATA" --rows="$ROWS" --out="$OUT" --benchmark_out="$OUT/cqlite.json" \
    --benchmark_out_format=json >&2

echo "run_parquet_bench.sh: DuckDB and pyarrow" >&2
"$PY" - "$OUT" "$BUILD/parquet_report.md" "$DATA" <<'PY'
import json, os, statistics, sys, time
import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

out, report_path, data = sys.argv[1:4]
REPS = 3
path = lambda name: os.path.join(out, name)

cpu = {}

def timed(name, fn):
    times, cpu_times = [], []
    for _ in range(REPS):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        times.append(time.perf_counter() - start)
        cpu_times.append(time.process_time() - start_cpu)
    cpu[name] = cpu_times
    return times

# cqlite, from the benchmark's JSON
doc = json.load(open(path("cqlite.json")))
def cqlite_runs(name):
    runs = [b for b in doc["benchmarks"] if b["name"].split("/")[0] == name and b.get("run_type") == "iteration"]
    for b in runs:
        if b.get("error_occurred"):
            sys.exit(f"cqlite {name}: {b.get('error_message')}")
    return runs
runs = cqlite_runs("BM_WriteParquet")
fill_runs = cqlite_runs("BM_WriteParquetFillBatch")
cqlite_times = [b["real_time"] for b in runs]  # seconds (kSecond)
cpu["cqlite"] = [b["cpu_time"] for b in runs]
cpu["cqlite (fill + write)"] = [b["cpu_time"] for b in fill_runs]
rows = int(runs[0]["rows"])
value_bytes = int(runs[0]["value_bytes"])
same_as_row_path = all(b["same_as_row_path"] == 1 for b in runs + fill_runs)

# DuckDB, one thread
con = duckdb.connect()
con.execute("SET threads=1")
con.execute("SET preserve_insertion_order=true")
con.execute(f"CREATE TABLE t AS SELECT * FROM read_parquet('{path('input.parquet')}')")
assert con.execute("SELECT count(*) FROM t").fetchone()[0] == rows
duck_out = path("duckdb.parquet")
duck_times = timed("DuckDB", lambda: con.execute(f"COPY t TO '{duck_out}' (FORMAT parquet, COMPRESSION snappy)"))
con.execute("DROP TABLE t")

# pyarrow, one thread
pa.set_cpu_count(1)
pa.set_io_thread_count(1)
table = pq.read_table(path("input.parquet"), use_threads=False)
assert table.num_rows == rows
arrow_out = path("pyarrow.parquet")
arrow_times = timed("pyarrow", lambda: pq.write_table(table, arrow_out, compression="snappy"))
del table

# Same rows in all three: count and a hash sum of every column.
files = {"cqlite": path("cqlite.parquet"), "DuckDB": duck_out, "pyarrow": arrow_out}
columns = [r[0] for r in con.execute(f"DESCRIBE SELECT * FROM read_parquet('{files['cqlite']}')").fetchall()]
select = ", ".join([f'sum(hash("{c}")::HUGEINT)' for c in columns])
checks = {name: con.execute(f"SELECT count(*), {select} FROM read_parquet('{f}')").fetchone()
          for name, f in files.items()}
same = all(v == checks["cqlite"] for v in checks.values())
if not same:
    for name, v in checks.items():
        print(name, v, file=sys.stderr)

def layout(f):
    md = pq.ParquetFile(f).metadata
    groups = md.num_row_groups
    col = md.row_group(0).column(0)
    encodings = sorted({e for g in range(groups) for c in range(md.num_columns)
                        for e in md.row_group(g).column(c).encodings})
    return {"groups": groups, "rows_per_group": md.row_group(0).num_rows,
            "dict": any(md.row_group(0).column(c).has_dictionary_page for c in range(md.num_columns)),
            "encodings": ", ".join(encodings), "created_by": md.created_by}

results = {"cqlite": cqlite_times, "cqlite (fill + write)": [b["real_time"] for b in fill_runs],
           "DuckDB": duck_times, "pyarrow": arrow_times}
sizes = {name: os.path.getsize(f) for name, f in files.items()}
sizes["cqlite (fill + write)"] = os.path.getsize(path("cqlite_fill.parquet"))
median = {name: statistics.median(t) for name, t in results.items()}
median_cpu = {name: statistics.median(t) for name, t in cpu.items()}
load = os.getloadavg()
MB = 1e6

lines = ["# Parquet writing benchmark", "",
         f"Table: `{data}`; the first {rows:,} current rows (folded), CQL -> Parquet mapping of the envelope "
         "files, one top-level column per CQL column. Each writer holds the rows in memory, writes them with "
         f"SNAPPY on one thread, {REPS} times in this run; seconds are the median run (best in brackets). "
         f"In-memory value bytes (4/8 per number, string lengths): {value_bytes / MB:,.1f} MB. "
         f"CPU seconds are the writing thread's (cqlite) or the process's (Python) for the median run. "
         f"Load average at the end: {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f} (2 cores: wall times are only "
         "as good as the machine is quiet).", "",
         "| writer | rows | seconds | CPU seconds | rows/s | rows/CPU s | value MB/s | file size | output MB/s |",
         "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
for name in results:
    s = median[name]
    c = median_cpu[name]
    lines.append(f"| {name} | {rows:,} | {s:.3f} ({min(results[name]):.3f}) | {c:.3f} | {rows / s:,.0f} "
                 f"| {rows / c:,.0f} "
                 f"| {value_bytes / MB / s:,.1f} | {sizes[name]:,} B ({sizes[name] / 2**20:,.1f} MiB) "
                 f"| {sizes[name] / MB / s:,.1f} |")
speed_vs_duck = median["DuckDB"] / median["cqlite"]
size_vs_duck = sizes["cqlite"] / sizes["DuckDB"]
lines += ["",
          f"- speed cqlite / DuckDB: **{speed_vs_duck:.2f}x** (target >= 1.00: "
          f"{'met' if speed_vs_duck >= 1 else 'NOT met'})",
          f"- speed cqlite / pyarrow: {median['pyarrow'] / median['cqlite']:.2f}x",
          f"- speed cqlite (fill + write) / DuckDB: {median['DuckDB'] / median['cqlite (fill + write)']:.2f}x; "
          f"/ pyarrow: {median['pyarrow'] / median['cqlite (fill + write)']:.2f}x",
          f"- CPU time DuckDB / cqlite: {median_cpu['DuckDB'] / median_cpu['cqlite']:.2f}x; "
          f"pyarrow / cqlite: {median_cpu['pyarrow'] / median_cpu['cqlite']:.2f}x",
          f"- size cqlite / DuckDB: **{size_vs_duck:.3f}** (target <= 1.10: "
          f"{'met' if size_vs_duck <= 1.10 else 'NOT met'})",
          f"- size cqlite / pyarrow: {sizes['cqlite'] / sizes['pyarrow']:.3f}",
          f"- same rows in all three files (count and per-column hash sums, read back by DuckDB): "
          f"{'yes' if same else 'NO'} ({checks['cqlite'][0]:,} rows)",
          f"- cqlite's WriteBatch files byte-identical to its WriteRow file (input.parquet): "
          f"{'yes' if same_as_row_path else 'NO'}", "",
          "## Writer settings", "",
          "| writer | settings | row groups | rows in the first | dictionary pages | encodings | created_by |",
          "|---|---|---:|---:|---|---|---|"]
settings = {
    "cqlite": "ParquetWriter defaults but SNAPPY: row group at 128 MiB buffered (compressed) page bytes, "
              "data pages v1 of ~1 MiB uncompressed, dictionary per column chunk falling back to PLAIN past 1 MiB "
              "or once more than half of its first 8192+ values were distinct",
    "DuckDB": f"duckdb {duckdb.__version__} defaults but SNAPPY and threads=1: ROW_GROUP_SIZE 122,880 rows, "
              "dictionary when it pays off (its own heuristic), data pages v1",
    "pyarrow": f"pyarrow {pa.__version__} defaults but SNAPPY: row_group_size 1 Mi rows, data_page_size 1 MiB, "
               "use_dictionary=True (dictionary_pagesize_limit 1 MiB, then PLAIN), data page v1, format 2.6",
}
for name, f in files.items():
    l = layout(f)
    lines.append(f"| {name} | {settings[name]} | {l['groups']} | {l['rows_per_group']:,} | "
                 f"{'yes' if l['dict'] else 'no'} | {l['encodings']} | {l['created_by']} |")
lines.append("")
open(report_path, "w").write("\n".join(lines))
print("\n".join(lines))
if not same:
    sys.exit("run_parquet_bench.sh: the three files do not hold the same rows")
PY
