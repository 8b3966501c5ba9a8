#!/usr/bin/env bash
# `cqlite maintain` against Iceberg's own maintenance procedures run by Spark,
# on a table that 50 small commits left behind, in the same run: how long each
# takes, what it leaves, and how much faster readers scan the table after it.
#
#   bench/run_maintain_bench.sh [--small] [--runs N] [--reps N] [--threads N] [--work DIR]
#                               [--skip-cqlite] [--skip-spark]
#
#   --small        the 600-partition dataset (~60 MB, 969,649 rows), a smoke test
#   --runs N       materialize runs after the first, each after one ~1% change
#                  (default 50, at most 100)
#   --reps N       timed repetitions of each reader scan (default 3; medians)
#   --threads N    materialize's --threads while the table is built (default:
#                  its own, the machine's cores)
#   --work DIR     the table directory, the two warehouse copies (default
#                  /tmp/cqlite-maintain-bench, on disk)
#   --skip-cqlite / --skip-spark   one contender only (the other copy is left
#                  as it was; the equality check covers what ran)
#
# The table: tools/bench/gen_dataset.sh's dataset (8 SSTables of ~160 MiB,
# 19.8M rows; --small: 600 partitions) materialized by `cqlite materialize`
# (Release, build-rel/) into a fresh warehouse, then N more times, each run
# after the two SSTables of one round of `tools/bench/gen_update.sh --rounds N`
# were linked into the table directory (round k: ~0.9% of the rows written
# again with new values, ~0.1% deleted, rows no other round touches; cached).
# Every run commits one snapshot: its new rows in small data files, the rows
# they replace or delete in position delete files. All runs use one --now.
# The warehouse is then copied (cp -a): one copy for cqlite, one for Spark.
# Table files name absolute paths, so the copies take turns at one path,
# <work>/warehouse, a symbolic link to <work>/copies/cqlite or
# <work>/copies/spark.
#
# Then, in this order:
#   before   tools/bench/iceberg_scan_times.py on the table: PyIceberg
#            (load_table + scan().to_arrow()), DuckDB (iceberg_scan count(*),
#            and count(*) + a hash of every row, bench/iceberg_content_hash.py's),
#            each --reps times, plus the table's file counts;
#   cqlite   cqlite maintain bench.sensor_readings --delete-threshold 0.2
#            --small-file-size 64MiB --target-file-size 512MiB
#            --expire-older-than 0s --retain-last 5 --orphan-age 0s --json on
#            the cqlite copy, under /usr/bin/time -v; then the scans again;
#   Spark    tools/bench/spark's SparkMaintain (built and cached through
#            tools/maven_tool.sh; Spark 3.5.8 local[2], iceberg-spark-runtime
#            1.10.1, sqlite-jdbc; driver heap SPARK_MAINTAIN_HEAP, default 6g)
#            on the Spark copy through Iceberg's JdbcCatalog on the same SQLite
#            catalog: CALL rewrite_data_files (delete-ratio-threshold 0.2,
#            min-file-size-bytes 64 MiB, target-file-size-bytes 512 MiB,
#            min-input-files 1, remove-dangling-deletes), rewrite_position_delete_files
#            (which Iceberg 1.10 fails on this table's list and map columns,
#            apache/iceberg#15080: recorded, not fatal), expire_snapshots
#            (older_than now, retain_last 5) and the orphan files removed
#            (older than now, under data/ and metadata/: cqlite's fold state
#            lives beside them; through SparkActions.deleteOrphanFiles, as the
#            remove_orphan_files procedure refuses ages under 24 hours), under
#            /usr/bin/time -v; the JVM times the procedures alone (no JVM
#            start, no SparkSession start); then the scans again.
# Equality: the table before, the cqlite copy after and the Spark copy after
# must hold the same rows (count and content hash, by DuckDB), the count the
# generator's (rows less every round's deletes), and every reader must count
# the same; the script fails if not. Timings are reported as measured; they
# decide nothing.
#
# Writes build-rel/maintain_report.md; raw outputs in build-rel/maintain_bench_out/.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$ROOT/build-rel"
WORK=/tmp/cqlite-maintain-bench
SMALL=0
RUNS=50
REPS=3
THREADS=""
DO_CQLITE=1
DO_SPARK=1
# The maintenance both contenders are asked for (cqlite maintain's defaults,
# but for the ages: everything is old enough).
DELETE_THRESHOLD=0.2
SMALL_FILE=64MiB
SMALL_FILE_BYTES=$((64 * 1024 * 1024))
TARGET_FILE=512MiB
TARGET_FILE_BYTES=$((512 * 1024 * 1024))
RETAIN_LAST=5
die() { echo "run_maintain_bench.sh: $*" >&2; exit 2; }
log() { echo "run_maintain_bench.sh: $*" >&2; }
while [[ $# -gt 0 ]]; do
    case "$1" in
        --small) SMALL=1; shift ;;
        --runs) RUNS="$2"; shift 2 ;;
        --reps) REPS="$2"; shift 2 ;;
        --threads) THREADS="$2"; shift 2 ;;
        --work) WORK="$2"; shift 2 ;;
        --skip-cqlite) DO_CQLITE=0; shift ;;
        --skip-spark) DO_SPARK=0; shift ;;
        *) die "unknown argument: $1" ;;
    esac
done
[[ $RUNS =~ ^[0-9]+$ && $RUNS -ge 1 && $RUNS -le 100 ]] || die "--runs must be between 1 and 100"
[[ $REPS =~ ^[0-9]+$ && $REPS -ge 1 ]] || die "--reps must be a positive number"
[[ -z $THREADS || $THREADS =~ ^[0-9]+$ ]] || die "--threads must be a number"
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing (Debian package 'time')"
JAVA="${JAVA:-java}"

# shellcheck source=bench_setup.sh
source "$ROOT/bench/bench_setup.sh"
bench_python tests/integration/requirements.txt duckdb pyarrow pyiceberg

bench_out_dir maintain_bench_out
mkdir -p "$OUT/materialize"
bench_build_cqlite "$OUT"
if [[ $DO_CQLITE == 1 ]] && ! "$CQLITE" maintain --help >/dev/null 2>&1; then
    die "this cqlite has no 'maintain' command (build a revision that has it, or run with --skip-cqlite)"
fi
if [[ $DO_SPARK == 1 ]]; then
    # shellcheck source=../tools/maven_tool.sh
    source "$ROOT/tools/maven_tool.sh"
    maven_tool_build bench-spark "$ROOT/tools/bench/spark" || die "could not build tools/bench/spark"
    SPARK_CP="$MAVEN_TOOL_CLASSPATH"
    # shellcheck source=../tools/spark_jvm_options.sh
    source "$ROOT/tools/spark_jvm_options.sh"
fi

size_args=()
[[ $SMALL == 1 ]] && size_args=(--partitions 600)
dataset="$("$ROOT/tools/bench/gen_dataset.sh" "${size_args[@]}")"
update="$("$ROOT/tools/bench/gen_update.sh" "${size_args[@]}" --rounds "$RUNS")"
BASE_TABLE="$(ls -d "$dataset"/data/bench/sensor_readings-*)"
UPDATE_TABLE="$(ls -d "$update"/data/bench/sensor_readings-*)"
TABLE_NAME="$(basename "$BASE_TABLE")"
cp "$dataset/generation.txt" "$OUT/dataset.generation.txt"
cp "$update/generation.txt" "$OUT/update.generation.txt"
field() { head -1 "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
ROWS="$(field "$dataset/generation.txt" rows)"
DELETED="$(field "$update/generation.txt" deleted)"
EXPECTED=$((ROWS - DELETED))
echo "$EXPECTED" >"$OUT/expected_rows"
echo "$RUNS" >"$OUT/runs"
NOW="$(date +%s)"
echo "$NOW" >"$OUT/now"
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
thread_args=()
[[ -n $THREADS ]] && thread_args=(--threads "$THREADS")
echo "${THREADS:-default}" >"$OUT/threads"

# ---- the table of RUNS + 1 materialize runs ----------------------------------
rm -rf "$WORK"
mkdir -p "$WORK/data/bench" "$WORK/copies/cqlite"
# Hard links when the cache and WORK share a file system, copies otherwise.
cp -al "$BASE_TABLE" "$WORK/data/bench/$TABLE_NAME" 2>/dev/null || cp -a "$BASE_TABLE" "$WORK/data/bench/$TABLE_NAME"
# The table's CREATE TABLE beside it, as a snapshot keeps it: the SSTables
# alone do not name the key columns.
cp "$dataset/data/bench/schema.cql" "$WORK/data/bench/"
ln -sfn copies/cqlite "$WORK/warehouse"
TABLE_DIR="$WORK/data/bench/$TABLE_NAME"

materialize_run() {
    local k="$1"
    nice "$CQLITE" materialize "$TABLE_DIR" --warehouse "$WORK/warehouse" --now "$NOW" --json "${thread_args[@]}" \
        >"$OUT/materialize/run$k.json" 2>"$OUT/materialize/run$k.stderr" ||
        { tail -5 "$OUT/materialize/run$k.stderr" >&2; die "materialize run $k failed"; }
    grep -q '"committed" : true' "$OUT/materialize/run$k.json" || die "materialize run $k committed nothing"
}

log "building the table: materialize of the dataset, then $RUNS runs after one ~1% change each, into $WORK/warehouse"
loadavg >"$OUT/build.load_before"
start=$(date +%s.%N)
materialize_run 0
for k in $(seq 1 "$RUNS"); do
    first=$((1001 + 2 * (k - 1)))
    for f in "$UPDATE_TABLE"/*-"$first"-big-* "$UPDATE_TABLE"/*-"$((first + 1))"-big-*; do
        ln "$f" "$TABLE_DIR/" 2>/dev/null || cp -a "$f" "$TABLE_DIR/"
    done
    materialize_run "$k"
    if ((k % 10 == 0 || k == RUNS)); then log "  materialize run $k of $RUNS done"; fi
done
echo "$(date +%s.%N) - $start" | bc >"$OUT/build.seconds"
loadavg >"$OUT/build.load_after"

log "copying the warehouse: $WORK/copies/cqlite and $WORK/copies/spark"
cp -a "$WORK/copies/cqlite" "$WORK/copies/spark"

# scan <name>: the readers' times, counts, hash and file counts of the table now at $WORK/warehouse.
scan() {
    local name="$1"
    log "$name: PyIceberg and DuckDB scans ($REPS each)"
    loadavg >"$OUT/$name.load_before"
    nice "$PY" "$ROOT/tools/bench/iceberg_scan_times.py" "$WORK/warehouse/catalog.db" "$WORK/warehouse" cqlite \
        bench sensor_readings "$REPS" >"$OUT/$name.json" 2>"$OUT/$name.stderr" ||
        { tail -20 "$OUT/$name.stderr" >&2; die "$name: the scans failed"; }
    loadavg >"$OUT/$name.load_after"
}

scan scan_before

# ---- cqlite maintain on copy 1 -------------------------------------------------
if [[ $DO_CQLITE == 1 ]]; then
    log "cqlite maintain on $WORK/copies/cqlite"
    loadavg >"$OUT/cqlite.load_before"
    /usr/bin/time -v -o "$OUT/cqlite.time" nice "$CQLITE" maintain bench.sensor_readings \
        --warehouse "$WORK/warehouse" --delete-threshold "$DELETE_THRESHOLD" --small-file-size "$SMALL_FILE" \
        --target-file-size "$TARGET_FILE" --expire-older-than 0s --retain-last "$RETAIN_LAST" --orphan-age 0s \
        --json >"$OUT/cqlite.json" 2>"$OUT/cqlite.stderr" ||
        { tail -20 "$OUT/cqlite.stderr" >&2; die "cqlite maintain failed"; }
    loadavg >"$OUT/cqlite.load_after"
    scan scan_cqlite
fi

# ---- Spark's procedures on copy 2 ------------------------------------------------
if [[ $DO_SPARK == 1 ]]; then
    ln -sfn copies/spark "$WORK/warehouse"
    log "Spark: rewrite_data_files, rewrite_position_delete_files, expire_snapshots, orphan files on $WORK/copies/spark"
    loadavg >"$OUT/spark.load_before"
    # Spark may leave directories in its working directory: run it in OUT.
    (cd "$OUT" && SPARK_LOCAL_IP=127.0.0.1 /usr/bin/time -v -o "$OUT/spark.time" nice "$JAVA" \
        "-Xmx${SPARK_MAINTAIN_HEAP:-6g}" "${SPARK_JAVA_MODULE_OPTS[@]}" -cp "$SPARK_CP" cqlite.bench.spark.SparkMaintain \
        "$WORK/warehouse/catalog.db" "$WORK/warehouse" cqlite bench sensor_readings \
        "$DELETE_THRESHOLD" "$SMALL_FILE_BYTES" "$TARGET_FILE_BYTES" "$RETAIN_LAST" yes \
        >"$OUT/spark.json" 2>"$OUT/spark.stderr") ||
        { grep -v '^\s*at ' "$OUT/spark.stderr" | tail -30 >&2; die "Spark failed (see $OUT/spark.stderr)"; }
    loadavg >"$OUT/spark.load_after"
    scan scan_spark
fi

# ---- equality, then the report -------------------------------------------------------
"$PY" - "$OUT" "$BUILD/maintain_report.md" "$DO_CQLITE" "$DO_SPARK" "$WORK" <<'PY'
import json, os, re, statistics, sys
out, report_path, do_cqlite, do_spark, work = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4] == "1", sys.argv[5]

def read(name):
    return open(os.path.join(out, name)).read().strip()

def time_v(name):
    text = read(name + ".time")
    def get(label):
        return re.search(re.escape(label) + r": (.*)", text).group(1).strip()
    secs = 0.0
    for part in get("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":"):
        secs = secs * 60 + float(part)
    return {"wall": secs, "user": float(get("User time (seconds)")), "sys": float(get("System time (seconds)")),
            "rss_mib": int(get("Maximum resident set size (kbytes)")) / 1024}

def med(xs):
    return statistics.median(xs)

mem_gib = int(re.search(r"MemTotal:\s+(\d+)", open("/proc/meminfo").read()).group(1)) / 1048576
runs = int(read("runs"))
expected = int(read("expected_rows"))
gen = read("dataset.generation.txt").splitlines()[0]
upd = read("update.generation.txt").splitlines()[0]
mat = [json.load(open(os.path.join(out, "materialize", f"run{k}.json")))["tables"][0] for k in range(runs + 1)]
mat_seconds = [json.load(open(os.path.join(out, "materialize", f"run{k}.json")))["seconds"] for k in range(runs + 1)]

scans = {"before": json.loads(read("scan_before.json"))}
if do_cqlite:
    scans["cqlite"] = json.loads(read("scan_cqlite.json"))
if do_spark:
    scans["spark"] = json.loads(read("scan_spark.json"))
labels = {"before": "before (the table of the runs)", "cqlite": "after cqlite maintain", "spark": "after Spark"}

lines = ["# cqlite maintain vs Iceberg's Spark procedures, on a table of %d commits" % (runs + 1), "",
         f"Machine: {os.cpu_count()} CPUs (nproc), {mem_gib:.1f} GiB memory. Every process ran under `nice`; "
         "figures are as measured on this machine at that time (see the load averages).", "",
         f"Dataset: `{gen}`", "", f"Changes: `tools/bench/gen_update.sh --rounds {runs}`: `{upd}`", "",
         f"The table: `cqlite materialize` of the dataset into a fresh warehouse, then {runs} more runs, each after "
         f"one round's two SSTables (~0.9% of the rows updated, ~0.1% deleted) were linked in "
         f"(`--now {read('now')}`, `--threads {read('threads')}`): {float(read('build.seconds')):.1f} s in all, "
         f"run 0 {mat_seconds[0]:.1f} s, the later runs {med(mat_seconds[1:]):.2f} s median "
         f"({min(mat_seconds[1:]):.2f} to {max(mat_seconds[1:]):.2f}; slowest: "
         + ", ".join(f"run {k} {mat_seconds[k]:.1f} s ({mat[k]['folded']})"
                     for k in sorted(range(1, runs + 1), key=lambda k: -mat_seconds[k])[:3])
         + f"); load {read('build.load_before')} before, "
         f"{read('build.load_after')} after. Rows: {mat[-1]['rows_total']} "
         f"(expected {expected}: the dataset's rows less every round's deletes).", ""]

# Files.
fields = [("data files", "data_files"), ("rows in data files", "data_rows"), ("data MB", "data_bytes"),
          ("delete files", "delete_files"), ("of them not dangling", "delete_files_applicable"),
          ("deleted positions", "deleted_positions"), ("delete MB", "delete_bytes"),
          ("snapshots", "snapshots"), ("manifests (current snapshot)", "manifests"),
          ("current snapshot's operation", "snapshot_operation"),
          ("files under data/", "files_under_data"), ("MB under data/", "bytes_under_data"),
          ("files under metadata/", "files_under_metadata"), ("MB under metadata/", "bytes_under_metadata")]
keys = list(scans)
lines += ["## Files", "", "| | " + " | ".join(labels[k] for k in keys) + " |", "|---|" + "---|" * len(keys)]
for label, f in fields:
    vals = []
    for k in keys:
        v = scans[k]["table"][f]
        vals.append(f"{v / 1e6:.1f}" if "bytes" in f else str(v))
    lines.append(f"| {label} | " + " | ".join(vals) + " |")
lines += ["", "From the current snapshot's manifests (PyIceberg) and the directories of the table. A delete file "
          "is dangling when its data sequence number is below every live data file's: no reader applies it. "
          "Both contenders keep the newest 5 snapshots, among them the last 4 before maintenance, and with them "
          "every file those reference: the files on disk cannot shrink much until later snapshots push them out.", ""]

# Maintenance.
lines += ["## Maintenance", "",
          "| contender | wall s | user s | sys s | peak RSS MiB | load before | load after | detail |",
          "|---|---|---|---|---|---|---|---|"]
t_c = t_s = spark = None
if do_cqlite:
    t_c = time_v("cqlite")
    detail = "`cqlite maintain` (Release), the whole process"
    lines.append(f"| cqlite | {t_c['wall']:.2f} | {t_c['user']:.2f} | {t_c['sys']:.2f} | {t_c['rss_mib']:.0f} | "
                 f"{read('cqlite.load_before')} | {read('cqlite.load_after')} | {detail} |")
if do_spark:
    t_s = time_v("spark")
    spark = json.loads(read("spark.json"))
    lines.append(f"| Spark | {t_s['wall']:.2f} | {t_s['user']:.2f} | {t_s['sys']:.2f} | {t_s['rss_mib']:.0f} | "
                 f"{read('spark.load_before')} | {read('spark.load_after')} | the whole JVM: JVM start "
                 f"{spark['jvm_start_ms']} ms, SparkSession {spark['session_ms'] / 1000:.1f} s, procedures "
                 f"{spark['maintain_ms'] / 1000:.2f} s |")
lines.append("")
if do_spark:
    lines += ["Spark's procedures, timed inside the JVM (no JVM start, no SparkSession start):", "",
              "| procedure | s | result |", "|---|---|---|"]
    for step in spark["steps"]:
        name = step["name"]
        if name == "delete_orphan_files":
            name += " (" + os.path.basename(step["call"].rstrip(")")) + "/)"
        if "error" in step:
            result = "FAILED (tolerated: Iceberg 1.10 on tables with list/map columns, apache/iceberg#15080): " + \
                     step["error"][:160]
        else:
            result = ", ".join(f"{k} {v}" for k, v in step["result"].items())
        lines.append(f"| {name} | {step['ms'] / 1000:.2f} | {result} |")
    lines.append("")
if do_cqlite:
    # What cqlite maintain says it did: the scalar fields of its --json report.
    try:
        cj = json.loads(read("cqlite.json"))
        table = (cj.get("tables") or [{}])[0]
        facts = [(k, v) for k, v in table.items() if isinstance(v, (int, float, bool)) and not k.endswith("_id")]
        lines += [f"cqlite maintain's report (`--json`): {cj.get('seconds', '?')} s by its own clock; "
                  + ", ".join(f"{k} {v}" for k, v in facts), ""]
    except ValueError:
        lines += ["cqlite maintain printed no JSON report (see cqlite.json).", ""]
if do_cqlite and do_spark:
    lines += ["| | Spark s | cqlite s | Spark / cqlite |", "|---|---|---|---|",
              f"| Spark's procedures in the JVM vs cqlite's whole process | {spark['maintain_ms'] / 1000:.2f} | "
              f"{t_c['wall']:.2f} | {spark['maintain_ms'] / 1000 / t_c['wall']:.1f}x |",
              f"| both processes, wall | {t_s['wall']:.2f} | {t_c['wall']:.2f} | {t_s['wall'] / t_c['wall']:.1f}x |",
              f"| both processes, CPU (user + sys) | {t_s['user'] + t_s['sys']:.2f} | {t_c['user'] + t_c['sys']:.2f} | "
              f"{(t_s['user'] + t_s['sys']) / max(t_c['user'] + t_c['sys'], 1e-3):.1f}x |", ""]

# Scans.
readers = [("pyiceberg", "PyIceberg load_table + scan().to_arrow()"),
           ("duckdb_count", "DuckDB iceberg_scan count(*)"),
           ("duckdb_hash", "DuckDB iceberg_scan count(*) + content hash")]
reps = len(scans["before"]["pyiceberg"]["seconds"])
head = "| reader | " + " | ".join(labels[k] + ", median s" for k in keys)
head += "".join(f" | before / {k}" for k in keys if k != "before") + " |"
lines += ["## Reader scans", "", f"Each reader {reps} times per table, median (min in parentheses); "
          "each scan starts from the table's name (PyIceberg) or metadata file (DuckDB).", "",
          head, "|---|" + "---|" * (len(keys) + len(keys) - 1)]
for r, label in readers:
    row = f"| {label} | " + " | ".join(f"{med(scans[k][r]['seconds']):.3f} ({min(scans[k][r]['seconds']):.3f})" for k in keys)
    for k in keys:
        if k != "before":
            row += f" | {med(scans['before'][r]['seconds']) / med(scans[k][r]['seconds']):.1f}x"
    lines.append(row + " |")
lines += ["", "Load average before/after the scans: " +
          ", ".join(f"{k} {read('scan_' + k + '.load_before')} / {read('scan_' + k + '.load_after')}" for k in keys), ""]

# Equality.
lines += ["## Equality", "", "| table | PyIceberg rows | DuckDB rows | content hash |", "|---|---|---|---|"]
ok = True
for k in keys:
    s = scans[k]
    lines.append(f"| {labels[k]} | {s['pyiceberg']['rows']} | {s['duckdb_hash']['rows']} | {s['duckdb_hash']['hash']} |")
    if not (s["pyiceberg"]["rows"] == s["duckdb_count"]["rows"] == s["duckdb_hash"]["rows"] == expected):
        ok = False
    if (s["duckdb_hash"]["rows"], s["duckdb_hash"]["hash"]) != (scans["before"]["duckdb_hash"]["rows"],
                                                              scans["before"]["duckdb_hash"]["hash"]):
        ok = False
lines += ["", f"Expected rows: {expected}. Equal: " + ("yes" if ok else "NO"), "",
          "Columns hashed: " + ", ".join(scans["before"]["duckdb_hash"]["columns"]), "",
          f"Raw outputs: `{out}`; the copies: `{work}/copies/`.", ""]
open(report_path, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
if not ok:
    sys.exit("run_maintain_bench.sh: the tables differ (rows or content), see the report")
PY
log "report: $BUILD/maintain_report.md"
