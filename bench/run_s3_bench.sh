#!/usr/bin/env bash
# `cqlite materialize` of the ~1.2 GiB dataset into an s3:// warehouse on an
# S3 server on loopback, against the same runs into a local warehouse, in the
# same run: what publishing through S3 costs.
#
#   bench/run_s3_bench.sh [--small] [--work DIR] [--threads N] [--mem-limit GIB]
#
#   --small          the 600-partition dataset (~60 MB), a smoke test
#   --work DIR       the table copy, the local warehouse, the S3 server's
#                    storage and both catalogs (default /tmp/cqlite-s3-bench;
#                    on disk, so the fsyncs of the local warehouse are real)
#   --threads N      --threads of every run (default: $(nproc))
#   --mem-limit GIB  address-space limit (ulimit -v) of each materialize run
#                    (default: 60% of MemTotal)
#
# The S3 server is S3Proxy (tools/bench/s3proxy, the version pinned in its
# pom.xml, resolved and cached by tools/maven_tool.sh), started by this
# script on 127.0.0.1 at a free port, with its filesystem storage under
# --work (one directory per bucket, one file per object) and Signature V4
# authentication with a key and secret it is configured with; it is stopped
# when the script exits, however it exits. cqlite reaches it as any S3
# store: CQLITE_S3_ENDPOINT, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY.
#
# Builds `cqlite` in Release in build-rel/ (nice, -j2). The dataset is
# tools/bench/gen_dataset.sh's, the ~1% change tools/bench/gen_update.sh's
# (both cached); the table directory is copied into --work with hard links.
# Then, each under /usr/bin/time -v, with the same --now and --threads, and
# each catalog a SQLite file in --work beside (not in) its warehouse:
#   run 1  the 8 SSTables: materialize into a fresh local warehouse, then
#          into a fresh warehouse s3://bench/warehouse;
#   run 2  the 2 SSTables of changes hard-linked in; both again.
# Bytes written per run: the bytes of the files (local) or objects (S3, read
# from the server's storage directory) that are new or changed after the
# run, i.e. what the run uploaded and kept. The S3 server's CPU seconds per
# run are read from /proc, since it shares the machine's cores with cqlite.
# After each run DuckDB (bench/iceberg_content_hash.py; httpfs for the S3
# table) reads both tables: row counts and content hashes must be equal, and
# the row counts equal to the generator's, or the script fails. Timing
# never fails it.
#
# Writes build-rel/s3_report.md: wall, user and system seconds, peak RSS,
# bytes written, the ratio S3 / local of each run and the load average before
# and after every run. Raw outputs in build-rel/s3_bench_out/. MB are 10^6
# bytes.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$ROOT/build-rel"
WORK=/tmp/cqlite-s3-bench
SMALL=0
THREADS="$(nproc)"
MEM_LIMIT_GIB=""
BUCKET=bench
die() { echo "run_s3_bench.sh: $*" >&2; exit 2; }
log() { echo "run_s3_bench.sh: $*" >&2; }
while [[ $# -gt 0 ]]; do
    case "$1" in
        --small) SMALL=1; shift ;;
        --work) WORK="$2"; shift 2 ;;
        --threads) THREADS="$2"; shift 2 ;;
        --mem-limit) MEM_LIMIT_GIB="$2"; shift 2 ;;
        *) die "unknown argument: $1" ;;
    esac
done
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing (Debian package 'time')"
JAVA="${JAVA:-java}"

# shellcheck source=bench_setup.sh
source "$ROOT/bench/bench_setup.sh"
bench_python tests/integration/requirements.txt duckdb pyarrow pyiceberg

bench_out_dir s3_bench_out
bench_build_cqlite "$OUT"
# shellcheck source=../tools/maven_tool.sh
source "$ROOT/tools/maven_tool.sh"
maven_tool_build bench-s3proxy "$ROOT/tools/bench/s3proxy" || die "could not build tools/bench/s3proxy"
S3PROXY_CP="$MAVEN_TOOL_CLASSPATH"
sed -n 's:.*<s3proxy.version>\(.*\)</s3proxy.version>.*:\1:p' "$ROOT/tools/bench/s3proxy/pom.xml" >"$OUT/s3proxy_version"
"$JAVA" -version 2>&1 | head -1 >"$OUT/java_version"

size_args=()
[[ $SMALL == 1 ]] && size_args=(--partitions 600)
dataset="$("$ROOT/tools/bench/gen_dataset.sh" "${size_args[@]}")"
update="$("$ROOT/tools/bench/gen_update.sh" "${size_args[@]}")"
BASE_TABLE="$(ls -d "$dataset"/data/bench/sensor_readings-*)"
UPDATE_TABLE="$(ls -d "$update"/data/bench/sensor_readings-*)"
echo "$dataset" >"$OUT/dataset"
echo "$update" >"$OUT/update"
cp "$dataset/generation.txt" "$OUT/dataset.generation.txt"
cp "$update/generation.txt" "$OUT/update.generation.txt"
field() { tr ' ' '\n' <"$1" | sed -n "s/^$2=//p" | head -1; }
ROWS1="$(field "$dataset/generation.txt" rows)"
DELETED="$(field "$update/generation.txt" deleted)"
echo "$ROWS1 $((ROWS1 - DELETED))" >"$OUT/expected_rows"
# One clock for every run, so that the runs differ only in their input.
NOW="$(date +%s)"
echo "$NOW" >"$OUT/now"
echo "$THREADS" >"$OUT/threads"
nproc >"$OUT/nproc"
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
if [[ -z $MEM_LIMIT_GIB ]]; then
    MEM_LIMIT_KIB=$(awk '/^MemTotal:/ {printf "%d", $2 * 0.6}' /proc/meminfo)
else
    MEM_LIMIT_KIB=$(awk -v g="$MEM_LIMIT_GIB" 'BEGIN {printf "%d", g * 1048576}')
fi

rm -rf "$WORK"
mkdir -p "$WORK/data/bench"
TABLE="$WORK/data/bench/$(basename "$BASE_TABLE")"
# Hard links when the cache and WORK share a file system, copies otherwise.
cp -al "$BASE_TABLE" "$TABLE" 2>/dev/null || cp -a "$BASE_TABLE" "$TABLE"
cp "$dataset/data/bench/schema.cql" "$WORK/data/bench/"
du -sb --apparent-size "$TABLE" | cut -f1 >"$OUT/run1.input_bytes"
find "$TABLE" -name '*-Data.db' | wc -l >"$OUT/run1.sstables"
du -sb --apparent-size "$UPDATE_TABLE" | cut -f1 >"$OUT/run2.input_bytes"
find "$UPDATE_TABLE" -name '*-Data.db' | wc -l >"$OUT/run2.sstables"
# Every run starts with the SSTables in the page cache.
find "$BASE_TABLE" "$UPDATE_TABLE" -type f -name '*.db' -exec cat {} + >/dev/null

LOCAL_WAREHOUSE="$WORK/warehouse-local"
LOCAL_CATALOG="$WORK/catalog-local.db"
S3_STORAGE="$WORK/s3proxy-storage"
S3_WAREHOUSE="s3://$BUCKET/warehouse"
S3_CATALOG="$WORK/catalog-s3.db"
mkdir -p "$LOCAL_WAREHOUSE" "$S3_STORAGE/$BUCKET"

# ---- the S3 server ---------------------------------------------------------
PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
ENDPOINT="http://127.0.0.1:$PORT"
KEY_ID=cqlite-bench
SECRET="$(head -c 24 /dev/urandom | base64 | tr -d '/+=')"
# The configuration holds the secret: readable by its owner only.
(umask 077 && cat >"$WORK/s3proxy.properties" <<EOF
s3proxy.endpoint=$ENDPOINT
s3proxy.authorization=aws-v2-or-v4
s3proxy.identity=$KEY_ID
s3proxy.credential=$SECRET
jclouds.provider=filesystem
jclouds.identity=$KEY_ID
jclouds.credential=$SECRET
jclouds.filesystem.basedir=$S3_STORAGE
EOF
)
S3PROXY_PID=""
stop_server() {
    [[ -n $S3PROXY_PID ]] || return 0
    log "stopping S3Proxy (pid $S3PROXY_PID)"
    kill "$S3PROXY_PID" 2>/dev/null || true
    local i
    for i in $(seq 1 30); do kill -0 "$S3PROXY_PID" 2>/dev/null || break; sleep 1; done
    kill -9 "$S3PROXY_PID" 2>/dev/null || true
    S3PROXY_PID=""
}
trap stop_server EXIT
trap 'exit 130' INT TERM
log "starting S3Proxy $(cat "$OUT/s3proxy_version") at $ENDPOINT, storage $S3_STORAGE"
# shellcheck disable=SC2086
"$JAVA" ${S3PROXY_JAVA_OPTS:--Xmx1g} -cp "$S3PROXY_CP" org.gaul.s3proxy.Main \
    --properties "$WORK/s3proxy.properties" >"$OUT/s3proxy.log" 2>&1 &
S3PROXY_PID=$!
for i in $(seq 1 120); do
    kill -0 "$S3PROXY_PID" 2>/dev/null || { tail -20 "$OUT/s3proxy.log" >&2; die "S3Proxy exited"; }
    curl -s -o /dev/null -m 2 "$ENDPOINT/" && break
    [[ $i == 120 ]] && { tail -20 "$OUT/s3proxy.log" >&2; die "S3Proxy did not answer at $ENDPOINT in 60 s"; }
    sleep 0.5
done
export CQLITE_S3_ENDPOINT="$ENDPOINT" AWS_ACCESS_KEY_ID="$KEY_ID" AWS_SECRET_ACCESS_KEY="$SECRET" AWS_REGION=us-east-1
unset AWS_SESSION_TOKEN AWS_PROFILE AWS_ENDPOINT_URL AWS_ENDPOINT_URL_S3 CQLITE_S3_PART_SIZE
CLK_TCK="$(getconf CLK_TCK)"
# CPU seconds the server has used so far (user + system, /proc/<pid>/stat).
server_cpu() {
    awk -v hz="$CLK_TCK" '{sub(/^.*\) /, ""); printf "%.2f\n", ($12 + $13) / hz}' "/proc/$S3PROXY_PID/stat"
}

# ---- the runs ----------------------------------------------------------------
# files <dir>: size, modification time and path of every file under it.
files() { find "$1" -type f -printf '%s %T@ %P\n' | LC_ALL=C sort -k3; }

# run <name> <warehouse> <catalog> <storage dir>: one `cqlite materialize`
# under /usr/bin/time -v, with the file listings of <storage dir> before and
# after.
run() {
    local name="$1" warehouse="$2" catalog="$3" storage="$4"
    log "$name: cqlite materialize --warehouse $warehouse"
    files "$storage" >"$OUT/$name.files_before"
    server_cpu >"$OUT/$name.server_cpu_before"
    loadavg >"$OUT/$name.load_before"
    local rc=0
    (ulimit -v "$MEM_LIMIT_KIB" && exec /usr/bin/time -v -o "$OUT/$name.time" "$CQLITE" materialize "$TABLE" \
        --warehouse "$warehouse" --catalog "$catalog" --now "$NOW" --threads "$THREADS" --json) \
        >"$OUT/$name.json" 2>"$OUT/$name.stderr" || rc=$?
    loadavg >"$OUT/$name.load_after"
    server_cpu >"$OUT/$name.server_cpu_after"
    files "$storage" >"$OUT/$name.files_after"
    echo "$rc" >"$OUT/$name.rc"
    if [[ $rc != 0 ]]; then
        tail -5 "$OUT/$name.stderr" >&2
        die "$name failed (exit $rc)"
    fi
    "$PY" - "$catalog" >"$OUT/$name.metadata" <<'PY'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
print(con.execute("SELECT metadata_location FROM iceberg_tables WHERE catalog_name = 'cqlite' AND "
                  "table_namespace = 'bench' AND table_name = 'sensor_readings'").fetchone()[0])
PY
}

run run1-local "$LOCAL_WAREHOUSE" "$LOCAL_CATALOG" "$LOCAL_WAREHOUSE"
run run1-s3 "$S3_WAREHOUSE" "$S3_CATALOG" "$S3_STORAGE/$BUCKET"
for f in "$UPDATE_TABLE"/*; do
    ln "$f" "$TABLE/" 2>/dev/null || cp -a "$f" "$TABLE/"
done
run run2-local "$LOCAL_WAREHOUSE" "$LOCAL_CATALOG" "$LOCAL_WAREHOUSE"
run run2-s3 "$S3_WAREHOUSE" "$S3_CATALOG" "$S3_STORAGE/$BUCKET"

# ---- equality, then the report -----------------------------------------------
log "DuckDB: row counts and content hashes of both tables after each run"
"$PY" "$ROOT/bench/iceberg_content_hash.py" "$(cat "$OUT/run1-local.metadata")" "$(cat "$OUT/run1-s3.metadata")" \
    "$(cat "$OUT/run2-local.metadata")" "$(cat "$OUT/run2-s3.metadata")" >"$OUT/hashes.jsonl"
stop_server

"$PY" - "$OUT" "$BUILD/s3_report.md" <<'PY'
import json, os, re, sys
out, report_path = sys.argv[1], sys.argv[2]
MB = 1e6

def read(name):
    return open(os.path.join(out, name)).read().strip()

def time_v(name):
    text = read(name + ".time")
    get = lambda label: re.search(re.escape(label) + r": (.*)", text).group(1).strip()
    secs = 0.0
    for part in get("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":"):
        secs = secs * 60 + float(part)
    return {"wall": max(secs, 0.005), "user": float(get("User time (seconds)")),
            "sys": float(get("System time (seconds)")),
            "rss_mib": int(get("Maximum resident set size (kbytes)")) / 1024}

def listing(name):
    files = {}
    for line in read(name).splitlines():
        size, mtime, path = line.split(" ", 2)
        files[path] = (int(size), mtime)
    return files

def written(name):
    """Files or objects new or changed by the run: (count, bytes); and the bytes after it."""
    before, after = listing(name + ".files_before"), listing(name + ".files_after")
    new = [size for path, (size, mtime) in after.items() if before.get(path) != (size, mtime)]
    return len(new), sum(new), sum(size for size, _ in after.values())

def report_of(name):
    doc = json.loads(read(name + ".json"))
    return doc["tables"][0]

hashes = {h["metadata"]: h for h in map(json.loads, read("hashes.jsonl").splitlines())}
expected = [int(x) for x in read("expected_rows").split()]
gen = read("dataset.generation.txt").splitlines()[0]
upd = read("update.generation.txt").splitlines()[0]
mem_gib = int(re.search(r"MemTotal:\s+(\d+)", open("/proc/meminfo").read()).group(1)) / 1048576
lines = ["# cqlite materialize: an S3 warehouse against a local one", "",
         f"Dataset `{read('dataset')}` ({gen}).", "", f"Changes `{read('update')}` ({upd}).", "",
         f"Machine: {read('nproc')} CPUs, {mem_gib:.1f} GiB; {read('java_version')}. Every run: "
         f"`--threads {read('threads')} --now {read('now')}`, SSTables in the page cache, each catalog a SQLite "
         "file beside its warehouse.", "",
         f"S3 server: S3Proxy {read('s3proxy_version')} on 127.0.0.1 (loopback), filesystem storage on the same "
         "disk as the local warehouse (one file per object), Signature V4 authentication; cqlite's default "
         "part size (8 MiB: larger files go up as multipart uploads). The local warehouse fsyncs every "
         "file it publishes; S3Proxy's filesystem storage does not fsync the objects it writes.", "",
         "| run | warehouse | input | wall s | user s | sys s | peak RSS | rows in table | rows written "
         "| rows deleted | files / objects written | MB written | S3 server CPU s | load avg before -> after |",
         "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
ok = True
walls = {}
sstables = lambda run: f"{read(run + '.sstables')} SSTable{'' if read(run + '.sstables') == '1' else 's'}"
for run, label in (("run1", "1: {}, fresh warehouse"), ("run2", "2: +{} (~1% changed)")):
    for where in ("local", "s3"):
        name = f"{run}-{where}"
        t, r = time_v(name), report_of(name)
        walls[name] = t["wall"]
        count, nbytes, _ = written(name)
        server = (f"{float(read(name + '.server_cpu_after')) - float(read(name + '.server_cpu_before')):.2f}"
                  if where == "s3" else "")
        lines.append(f"| {label.format(sstables(run))} | {'s3://' if where == 's3' else 'local'} "
                     f"| {int(read(run + '.input_bytes')) / MB:,.1f} MB | {t['wall']:.2f} | {t['user']:.2f} "
                     f"| {t['sys']:.2f} | {t['rss_mib']:,.1f} MiB | {r.get('rows_total', 0):,} "
                     f"| {r.get('rows_written', 0):,} | {r.get('rows_deleted', 0):,} | {count:,} "
                     f"| {nbytes / MB:,.1f} | {server} | {read(name + '.load_before')} -> {read(name + '.load_after')} |")
lines += ["", "Files / objects written, MB written: the files of the local warehouse, or the objects of the bucket "
          "(read from S3Proxy's storage directory), that are new or changed after the run: what it wrote (uploaded) "
          "and kept (the local warehouse holds one more, the table's empty lock file under .cqlite-watch/). S3 server "
          "CPU s: S3Proxy's user + system seconds during the run (it shares the CPUs with cqlite).", ""]
for i, run in enumerate(("run1", "run2")):
    local, s3 = hashes[read(f"{run}-local.metadata")], hashes[read(f"{run}-s3.metadata")]
    same = (local["rows"], local["hash"]) == (s3["rows"], s3["hash"])
    rows_ok = local["rows"] == expected[i]
    ok = ok and same and rows_ok
    _, local_bytes, _ = written(f"{run}-local")
    _, s3_bytes, _ = written(f"{run}-s3")
    cpu = {where: time_v(f"{run}-{where}")["user"] + time_v(f"{run}-{where}")["sys"] for where in ("local", "s3")}
    server = float(read(run + "-s3.server_cpu_after")) - float(read(run + "-s3.server_cpu_before"))
    lines.append(f"- run {run[-1]}: S3 / local wall **{walls[run + '-s3'] / walls[run + '-local']:.2f}x** "
                 f"({walls[run + '-s3']:.2f} s / {walls[run + '-local']:.2f} s); cqlite's CPU S3 / local "
                 f"{cpu['s3'] / max(cpu['local'], 0.01):.2f}x ({cpu['s3']:.2f} s / {cpu['local']:.2f} s), and S3Proxy "
                 f"used {server:.2f} CPU s beside it; bytes written S3 / local "
                 f"{s3_bytes / max(local_bytes, 1):.3f}; same rows (DuckDB, count and content hash): "
                 f"{'yes' if same else 'NO'} ({local['rows']:,} local, {s3['rows']:,} S3; the generator: "
                 f"{expected[i]:,}: {'as expected' if rows_ok else 'DIFFERENT'})")
_, _, local_total = written("run2-local")
_, _, s3_total = written("run2-s3")
lines += [f"- warehouse after run 2: local {local_total / MB:,.1f} MB, bucket {s3_total / MB:,.1f} MB", "",
          "Timing decides nothing; the run fails only when the tables differ. On a loaded machine (see the "
          "load average) compare CPU seconds too.", ""]
open(report_path, "w").write("\n".join(lines))
print("\n".join(lines))
if not ok:
    sys.exit("run_s3_bench.sh: the local and the S3 table do not hold the same rows (see hashes.jsonl)")
PY
