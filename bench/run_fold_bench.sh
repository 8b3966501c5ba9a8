#!/usr/bin/env bash
# Fold throughput and memory over a ~1.2 GiB table written as 1, 4 and 16
# overlapping generations (tools/bench/gen_dataset.sh --generations G), against
# scanning the same generations unmerged, in the same run.
#
#   bench/run_fold_bench.sh [--generations "1 4 16"] [--small]
#
#   --generations LIST  which layouts to run (default "1 4 16")
#   --small             the example table only (seconds, for a smoke test)
#
# Builds fold_bench in Release in build-bench/, warms the page cache with
# each table's files, runs BM_Fold and BM_ScanOnly each in its own process
# under /usr/bin/time -v (so peak RSS is the benchmark's own), and writes the
# report to build-bench/fold_report.md. Input rows per second count the rows
# stored in the generations; output rows are the table's current rows.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$ROOT/build-bench"
GENERATIONS="1 4 16"
SMALL=0
die() { echo "run_fold_bench.sh: $*" >&2; exit 2; }
while [[ $# -gt 0 ]]; do
    case "$1" in
        --generations) GENERATIONS="$2"; shift 2 ;;
        --small) SMALL=1; shift ;;
        *) die "unknown argument: $1" ;;
    esac
done
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing (Debian package 'time')"

echo "run_fold_bench.sh: building fold_bench (Release) in $BUILD" >&2
mkdir -p "$BUILD"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >"$BUILD/fold_bench.cmake.log" 2>&1 ||
    { cat "$BUILD/fold_bench.cmake.log" >&2; die "cmake failed"; }
cmake --build "$BUILD" --target fold_bench -j2 >"$BUILD/fold_bench.build.log" 2>&1 ||
    { tail -50 "$BUILD/fold_bench.build.log" >&2; die "build failed"; }
BIN="$BUILD/bench/fold_bench"
OUT="$BUILD/fold_bench_out"
rm -rf "$OUT"
mkdir -p "$OUT"

layouts=()
if [[ $SMALL == 1 ]]; then
    layouts=("example:$(ls -d "$ROOT"/examples/data/shop/orders-*)")
else
    for g in $GENERATIONS; do
        dataset="$("$ROOT/tools/bench/gen_dataset.sh" --generations "$g" --max-sstable-mib 100000)"
        layouts+=("$g:$(ls -d "$dataset"/data/bench/sensor_readings-*)")
    done
fi

for layout in "${layouts[@]}"; do
    name="${layout%%:*}"
    dir="${layout#*:}"
    find "$dir" -type f -name '*.db' -exec cat {} + >/dev/null
    for bm in Fold ScanOnly; do
        echo "run_fold_bench.sh: $name: BM_$bm over $dir" >&2
        /usr/bin/time -v -o "$OUT/$name.$bm.time" "$BIN" --data="$dir" --benchmark_filter="^BM_$bm" \
            --benchmark_out="$OUT/$name.$bm.json" --benchmark_out_format=json >&2
    done
    du -sb --apparent-size "$dir" | cut -f1 >"$OUT/$name.bytes"
done

python3 - "$OUT" "$BUILD/fold_report.md" "${layouts[@]}" <<'PY'
import json, re, sys
out, report_path, layouts = sys.argv[1], sys.argv[2], sys.argv[3:]

def result(name, bm):
    doc = json.load(open(f"{out}/{name}.{bm}.json"))
    (r,) = [b for b in doc["benchmarks"] if b["name"].startswith(f"BM_{bm}/")]
    if r.get("error_occurred"):
        sys.exit(f"{name} BM_{bm}: {r.get('error_message')}")
    return r

def time_v(name, bm, field):
    text = open(f"{out}/{name}.{bm}.time").read()
    return re.search(rf"{re.escape(field)}: (.*)", text).group(1).strip()

lines = ["# Fold benchmark", "",
         "Same run, same files, warm page cache. Fold = TableFold over every generation "
         "(as `cqlite select`, without rendering); scan = SSTable::Scan of the same files, nothing merged.", "",
         "| generations | on disk | uncompressed Data.db | input rows | current rows | fold s | fold input rows/s "
         "| fold peak RSS | scan s | scan rows/s | fold / scan |",
         "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
for layout in layouts:
    name = layout.split(":", 1)[0]
    fold, scan = result(name, "Fold"), result(name, "ScanOnly")
    on_disk = int(open(f"{out}/{name}.bytes").read())
    fold_s, scan_s = fold["real_time"], scan["real_time"]
    rss_mib = int(time_v(name, "Fold", "Maximum resident set size (kbytes)")) / 1024
    lines.append(
        f"| {int(fold['generations'])} | {on_disk / 2**30:.2f} GiB | {fold['data_bytes'] / 2**30:.2f} GiB "
        f"| {int(fold['input_rows']):,} | {int(fold['rows']):,} | {fold_s:.1f} | {fold['input_rows'] / fold_s:,.0f} "
        f"| {rss_mib:.1f} MiB | {scan_s:.1f} | {scan['input_rows'] / scan_s:,.0f} | {scan_s / fold_s:.3f} |")
lines += ["", "fold / scan: the fold's throughput as a fraction of the unmerged scan's (1.0 = no merge cost).", ""]
open(report_path, "w").write("\n".join(lines))
print("\n".join(lines))
PY
