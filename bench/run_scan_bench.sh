#!/usr/bin/env bash
# Scan throughput of CQLite against Cassandra's sstabledump and the
# decompression-only bound, over the same SSTables in one run.
#
#   bench/run_scan_bench.sh [--data DIR] [--small] [--reps N] [--no-sstabledump]
#
#   (default)         generate or reuse the ~1.2 GiB dataset (tools/bench/gen_dataset.sh)
#   --data DIR        use SSTables already under DIR instead
#   --small           use the example table in examples/data (seconds, for a smoke test)
#   --reps N          repetitions of each scan_bench benchmark (default 1)
#   --no-sstabledump  skip sstabledump (its part of the report is left empty)
#   --report-only     rewrite the report from the last run's build-bench/scan_bench_out/
#
# Builds scan_bench in Release in build-bench/, reads every SSTable file once
# so all three are timed with a warm page cache, runs
#   1. scan_bench BM_Scan under /usr/bin/time -v (peak RSS of the scan alone),
#   2. scan_bench BM_DecompressOnly and BM_CodecOnly,
#   3. tools/oracle/oracle.sh sstabledump <Data.db> > /dev/null, one JVM per
#      file, wall clock per process (full JIT: ORACLE_JAVA_OPTS=-XX:TieredStopAtLevel=4),
# and prints the report, also written to build-bench/scan_report.md.
# MB are 10^6 bytes; throughputs are uncompressed Data.db bytes per second.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$ROOT/build-bench"
DATA=""
SMALL=0
REPS=1
SSTABLEDUMP=1
REPORT_ONLY=0

die() { echo "run_scan_bench.sh: $*" >&2; exit 2; }

while [[ $# -gt 0 ]]; do
    case "$1" in
        --data) DATA="$2"; shift 2 ;;
        --small) SMALL=1; shift ;;
        --reps) REPS="$2"; shift 2 ;;
        --no-sstabledump) SSTABLEDUMP=0; shift ;;
        --report-only) REPORT_ONLY=1; shift ;;
        *) die "unknown argument: $1" ;;
    esac
done

[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing (Debian package 'time')"

GEN_INFO=""
if [[ $SMALL == 1 ]]; then
    DATA="$ROOT/examples/data"
elif [[ -z "$DATA" ]]; then
    gen_start=$(date +%s)
    dataset="$("$ROOT/tools/bench/gen_dataset.sh")"
    DATA="$dataset/data"
    GEN_INFO="$dataset/generation.txt"
    echo "run_scan_bench.sh: dataset ready in $(( $(date +%s) - gen_start )) s: $DATA" >&2
fi
[[ -d "$DATA" ]] || die "no such directory: $DATA"

OUT="$BUILD/scan_bench_out"
mapfile -t DATA_FILES < <(find "$DATA" -name '*-Data.db' | LC_ALL=C sort)
[[ ${#DATA_FILES[@]} -gt 0 ]] || die "no Data.db under $DATA"

if [[ $REPORT_ONLY == 0 ]]; then
echo "run_scan_bench.sh: building scan_bench (Release) in $BUILD" >&2
mkdir -p "$BUILD"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >"$BUILD/scan_bench.cmake.log" 2>&1 ||
    { cat "$BUILD/scan_bench.cmake.log" >&2; die "cmake failed"; }
cmake --build "$BUILD" --target scan_bench -j2 >"$BUILD/scan_bench.build.log" 2>&1 ||
    { tail -50 "$BUILD/scan_bench.build.log" >&2; die "build failed"; }
BIN="$BUILD/bench/scan_bench"
rm -rf "$OUT"
mkdir -p "$OUT"

# Warm page cache for everyone: read every component once.
find "$DATA" -type f -name '*.db' -exec cat {} + >/dev/null

# What else runs on the machine: a top snapshot between phases, and the
# 1-minute load average every 5 s (phase<TAB>load) for the whole run.
snapshot_load() {
    top -b -n 1 -w 160 | sed -n '1p;7,14p' | cut -c1-120 >"$OUT/load_$1.txt"
}
PHASE=start
echo "$PHASE" >"$OUT/phase"
(
    while sleep 5; do
        printf '%s\t%s\n' "$(cat "$OUT/phase" 2>/dev/null)" "$(cut -d' ' -f1 /proc/loadavg)"
    done >"$OUT/load_samples.tsv"
) &
SAMPLER=$!
trap 'kill "$SAMPLER" 2>/dev/null || true' EXIT
phase() { echo "$1" >"$OUT/phase"; }

snapshot_load before
phase cqlite
echo "run_scan_bench.sh: scan_bench BM_Scan" >&2
/usr/bin/time -v -o "$OUT/scan_time.txt" "$BIN" --data="$DATA" --benchmark_filter='^BM_Scan' \
    --benchmark_repetitions="$REPS" --benchmark_out="$OUT/scan.json" --benchmark_out_format=json >&2
echo "run_scan_bench.sh: scan_bench BM_DecompressOnly, BM_CodecOnly" >&2
"$BIN" --data="$DATA" --benchmark_filter='^BM_(DecompressOnly|CodecOnly)' \
    --benchmark_repetitions="$REPS" --benchmark_out="$OUT/decompress.json" --benchmark_out_format=json >&2
snapshot_load middle
phase sstabledump

: >"$OUT/sstabledump.tsv"
if [[ $SSTABLEDUMP == 1 ]]; then
    "$ROOT/tools/oracle/oracle.sh" build
    for f in "${DATA_FILES[@]}"; do
        echo "run_scan_bench.sh: sstabledump $f" >&2
        start=$(date +%s.%N)
        ORACLE_JAVA_OPTS="${ORACLE_JAVA_OPTS:--XX:TieredStopAtLevel=4}" \
            /usr/bin/time -f '%e %U %S %M' -o "$OUT/sstabledump_time.txt" \
            "$ROOT/tools/oracle/oracle.sh" sstabledump "$f" >/dev/null
        end=$(date +%s.%N)
        # file, wall seconds (date), then /usr/bin/time's elapsed, user, sys, max RSS KiB
        printf '%s\t%s\t%s\n' "$f" "$(echo "$end - $start" | bc)" "$(tr ' ' '\t' <"$OUT/sstabledump_time.txt")" \
            >>"$OUT/sstabledump.tsv"
    done
fi
snapshot_load after
phase done
kill "$SAMPLER" 2>/dev/null || true
fi  # REPORT_ONLY

ORACLE_JAVA_OPTS_USED="${ORACLE_JAVA_OPTS:--XX:TieredStopAtLevel=4}" python3 - "$OUT" "$DATA" "$GEN_INFO" "$BUILD/scan_report.md" "${DATA_FILES[@]}" <<'PY'
import json, os, statistics, sys

out, data, gen_info, report_path, files = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
MB = 1e6

def runs(path, name):
    doc = json.load(open(path))
    rs = [b for b in doc["benchmarks"] if b.get("run_type") == "iteration" and b["name"].startswith(name + "/")]
    if not rs:
        sys.exit(f"no {name} result in {path}")
    for r in rs:
        if r.get("error_occurred"):
            sys.exit(f"{name}: {r.get('error_message')}")
    return rs, doc["context"]

def secs(r, key):
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[r["time_unit"]]
    return r[key] * scale

def median_rate(rs, amount):
    wall = statistics.median(amount(r) / secs(r, "real_time") for r in rs)
    cpu = statistics.median(amount(r) / secs(r, "cpu_time") for r in rs)
    return wall, cpu

scan, context = runs(os.path.join(out, "scan.json"), "BM_Scan")
dec, _ = runs(os.path.join(out, "decompress.json"), "BM_DecompressOnly")
codec, _ = runs(os.path.join(out, "decompress.json"), "BM_CodecOnly")
s0 = scan[0]
data_bytes, compressed = s0["data_bytes"], s0["compressed_bytes"]
rows, cells, partitions = s0["rows"], s0["cells"], s0["partitions"]
scan_mb, scan_mb_cpu = median_rate(scan, lambda r: r["data_bytes"] / MB)
scan_cells, scan_cells_cpu = median_rate(scan, lambda r: r["cells"])
dec_mb, dec_mb_cpu = median_rate(dec, lambda r: r["data_bytes"] / MB)
codec_mb, codec_mb_cpu = median_rate(codec, lambda r: r["data_bytes"] / MB)

rss_kib = None
for line in open(os.path.join(out, "scan_time.txt")):
    if "Maximum resident set size" in line:
        rss_kib = int(line.split(":")[1])

on_disk = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(data) for f in fs if f.endswith((".db", ".txt", ".crc32")))

dump = [l.rstrip("\n").split("\t") for l in open(os.path.join(out, "sstabledump.tsv")) if l.strip()]
dump_wall = sum(float(d[1]) for d in dump)
dump_cpu = sum(float(d[3]) + float(d[4]) for d in dump)
dump_rss = max((int(d[5]) for d in dump), default=0)

schema = ""
for d, _, fs in os.walk(data):
    if "schema.cql" in fs:
        schema = open(os.path.join(d, "schema.cql")).read().strip()
gen = open(gen_info).read().strip() if gen_info and os.path.exists(gen_info) else "(not generated by this run)"

samples = {}
for l in open(os.path.join(out, "load_samples.tsv")):
    p = l.rstrip("\n").split("\t")
    if len(p) == 2:
        samples.setdefault(p[0], []).append(float(p[1]))

def load(name):
    return open(os.path.join(out, f"load_{name}.txt")).read().rstrip()

L = []
L.append("# CQLite scan benchmark\n")
L.append("## Dataset\n")
L.append(f"- directory: `{data}`")
L.append(f"- SSTables: {len(files)} (`{os.path.basename(files[0])}` ...)")
L.append(f"- Data.db bytes: {compressed:.0f} compressed, {data_bytes:.0f} uncompressed")
L.append(f"- Data.db: {compressed/MB:.1f} MB compressed ({compressed/2**30:.3f} GiB), "
         f"{data_bytes/MB:.1f} MB uncompressed ({data_bytes/2**30:.3f} GiB), ratio {data_bytes/compressed:.2f}")
L.append(f"- all SSTable components on disk: {on_disk/MB:.1f} MB ({on_disk/2**30:.3f} GiB)")
L.append(f"- partitions {partitions:.0f}, rows {rows:.0f}, cells {cells:.0f}, range tombstone markers {s0['markers']:.0f}")
if rows:
    L.append(f"- per row: {data_bytes/rows:.1f} bytes uncompressed Data.db, {compressed/rows:.1f} bytes compressed, {cells/rows:.2f} cells")
L.append(f"- generation: `{gen.splitlines()[0] if gen else ''}` {' '.join(gen.splitlines()[1:])}")
if schema:
    L.append("\n```sql\n" + schema + "\n```")
L.append("\n## Results (single-threaded, warm page cache)\n")
L.append("| | MB/s wall | MB/s per CPU second | cells/s wall | cells/s per CPU second |")
L.append("|---|---:|---:|---:|---:|")
L.append(f"| cqlite SSTable::Scan (BM_Scan) | {scan_mb:.1f} | {scan_mb_cpu:.1f} | {scan_cells:,.0f} | {scan_cells_cpu:,.0f} |")
if dump:
    L.append(f"| Cassandra 5.0.6 sstabledump > /dev/null (whole process, {len(dump)} JVMs) | {data_bytes/MB/dump_wall:.1f} | {data_bytes/MB/dump_cpu:.1f} (user+sys) | {cells/dump_wall:,.0f} | {cells/dump_cpu:,.0f} |")
L.append(f"| decompression-only bound (BM_DecompressOnly: read + CRC32 + LZ4) | {dec_mb:.1f} | {dec_mb_cpu:.1f} | | |")
L.append(f"| codec only (BM_CodecOnly: read + LZ4, no CRC) | {codec_mb:.1f} | {codec_mb_cpu:.1f} | | |")
L.append("\n## Ratios and targets\n")
if dump:
    r = scan_mb / (data_bytes / MB / dump_wall)
    rc = scan_mb_cpu / (data_bytes / MB / dump_cpu)
    L.append(f"- cqlite / sstabledump: {r:.1f}x wall, {rc:.1f}x per CPU second (target >= 10x: {'met' if r >= 10 else 'MISSED'})")
b = scan_mb / dec_mb
bc = scan_mb_cpu / dec_mb_cpu
L.append(f"- cqlite / decompression-only bound: {100*b:.1f}% wall, {100*bc:.1f}% per CPU second (target >= 25%: {'met' if b >= 0.25 else 'MISSED'})")
L.append(f"- cqlite / codec only: {100*scan_mb/codec_mb:.1f}% wall, {100*scan_mb_cpu/codec_mb_cpu:.1f}% per CPU second")
if rss_kib is not None:
    L.append(f"- peak RSS of the scan process (/usr/bin/time -v): {rss_kib/1024:.1f} MiB (target <= 256 MiB: {'met' if rss_kib <= 256*1024 else 'MISSED'})")
if dump:
    L.append(f"- sstabledump: {dump_wall:.1f} s wall, {dump_cpu:.1f} s CPU in total, peak RSS of one JVM {dump_rss/1024:.0f} MiB")
L.append(f"- scan_bench: {len(scan)} repetition(s); times: BM_Scan real {secs(s0,'real_time'):.2f} s, cpu {secs(s0,'cpu_time'):.2f} s")
L.append(f"\n## Machine\n")
L.append(f"- {context.get('num_cpus')} CPUs at {context.get('mhz_per_cpu')} MHz; scan_bench built Release (-O3); "
         f"the Google Benchmark library itself reports build type '{context.get('library_build_type')}' (Debian package, timing loop only)")
L.append(f"- load average when scan_bench started: {', '.join(f'{x:.1f}' for x in context.get('load_avg', []))} "
         "(the 1-minute figures below include the benchmark's own runnable thread)")
L.append(f"- sstabledump: `tools/oracle/oracle.sh sstabledump <Data.db> > /dev/null`, one JVM per file, "
         f"ORACLE_JAVA_OPTS={os.environ.get('ORACLE_JAVA_OPTS_USED', '')!r}")
for phase in ("cqlite", "sstabledump"):
    if samples.get(phase):
        v = samples[phase]
        L.append(f"- 1-minute load average during the {phase} runs (sampled every 5 s): mean {statistics.mean(v):.1f}, min {min(v):.1f}, max {max(v):.1f}")
L.append("\n```\n" + load("before") + "\n```\n\nafter the cqlite runs:\n\n```\n" + load("middle") + "\n```\n\nafter sstabledump:\n\n```\n" + load("after") + "\n```")
if dump:
    L.append("\n## sstabledump per file\n")
    L.append("| Data.db | wall s | user s | sys s | max RSS MiB |")
    L.append("|---|---:|---:|---:|---:|")
    for d in dump:
        L.append(f"| {os.path.basename(d[0])} | {float(d[1]):.1f} | {d[3]} | {d[4]} | {int(d[5])/1024:.0f} |")
text = "\n".join(L) + "\n"
open(report_path, "w").write(text)
print(text)
PY
