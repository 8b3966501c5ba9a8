#!/usr/bin/env bash
# Writes (or reuses) a later generation of the benchmark dataset: about 1% of
# the rows of tools/bench/gen_dataset.sh's table changed (UpdateDataset.java:
# of one row in EVERY per sensor, 9 in 10 written again with new values and a
# newer timestamp, 1 in 10 deleted), as two SSTables (updates, deletes) with
# generations 1001 and 1002, and prints the directory holding them on stdout.
#
#   tools/bench/gen_update.sh [--partitions N] [--seed S] [--format nb|oa] [--every EVERY]
#                             [--timestamps after-dataset|after-row] [--rounds R]
#                             [--kind changes|deletions|column|partitions|ttl]
#
# --timestamps: the changes are written a minute after the dataset's newest
# reading (after-dataset, the default: an application changing rows after the
# dataset was written), or one second after the row each replaces (after-row:
# older than the sensor's later readings, as a re-import of old data with its
# original clock would be).
# --rounds R: R successive changes of that size instead of one (at most
# EVERY), written in one pass: round k (1-based) changes rows no other round
# touches, its writes are newer than round k-1's, and its updates and deletes
# are generations 1001 + 2(k-1) and 1002 + 2(k-1) (round 1 is the single
# change). generation.txt then has one more line per round (round=k
# updated=.. deleted=.. update_generation=.. delete_generation=..). For
# bench/run_maintain_bench.sh's table materialized in 50 runs.
# --kind: another change of about the same size instead (UpdateDataset.java
# says what each writes): deletions of old rows (row, range and partition
# deletions, generations 1001 to 1003), one column of old rows set with a
# timestamp older than the row's (1001), 1% of the partitions written again
# whole (1001), or 1% of the rows written again with a TTL of a day (1001).
# generation.txt then counts what changes: updated=.. (rows whose values
# change) deleted=.. (rows deleted), and written_from=.. written_to=.. bound
# the clock the rows were written at (their TTLs count from it).
# --partitions, --seed and --format must be the ones the dataset was written
# with (the defaults are gen_dataset.sh's). The files are cached in
# ${CQLITE_CACHE:-$HOME/.cache/cqlite}/bench/update-<key>/:
#   <key>/data/bench/sensor_readings-<id>/   the two SSTables
#   <key>/generation.txt                     rows, updated, deleted, seconds
# where <key> hashes the generator's code (update/pom.xml and update/src/, the
# sources key of tools/maven_tool.sh) and the arguments. Needs Java 17 and
# Maven 3.8 (JAVA= / MVN= override them); the generator is built and cached by
# tools/maven_tool.sh in <cache>/bench-update/build-<key>/. Its sources live in
# tools/bench/update/, apart from GenerateDataset's, so that adding it leaves
# the dataset cache keys of gen_dataset.sh unchanged.
set -euo pipefail

BENCH_TOOL_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
UPDATE_DIR="$BENCH_TOOL_DIR/update"
# shellcheck source=../maven_tool.sh
source "$BENCH_TOOL_DIR/../maven_tool.sh"
CACHE_ROOT="$(maven_tool_cache)/bench"
JAVA="${JAVA:-java}"

PARTITIONS=12000
SEED=20260101
FORMAT=oa
EVERY=100
FIRST_GENERATION=1001
TIMESTAMPS=after-dataset
ROUNDS=1
KIND=changes

die() { echo "gen_update.sh: $*" >&2; exit 2; }

while [[ $# -gt 0 ]]; do
    case "$1" in
        --partitions) PARTITIONS="$2"; shift 2 ;;
        --seed) SEED="$2"; shift 2 ;;
        --format) FORMAT="$2"; shift 2 ;;
        --every) EVERY="$2"; shift 2 ;;
        --timestamps) TIMESTAMPS="$2"; shift 2 ;;
        --rounds) ROUNDS="$2"; shift 2 ;;
        --kind) KIND="$2"; shift 2 ;;
        *) die "unknown argument: $1" ;;
    esac
done

SOURCES_KEY="$(maven_tool_sources_key "$UPDATE_DIR")"
case "$TIMESTAMPS" in after-dataset|after-row) ;; *) die "--timestamps must be after-dataset or after-row" ;; esac
[[ $ROUNDS =~ ^[0-9]+$ && $ROUNDS -ge 1 && $ROUNDS -le $EVERY ]] || die "--rounds must be between 1 and --every ($EVERY)"
case "$KIND" in changes|deletions|column|partitions|ttl) ;; *) die "--kind must be changes, deletions, column, partitions or ttl" ;; esac
[[ $KIND == changes || $ROUNDS == 1 ]] || die "--kind $KIND takes one round"
ROUNDS_KEY=""
[[ $ROUNDS == 1 ]] || ROUNDS_KEY="|rounds=$ROUNDS"
[[ $KIND == changes ]] || ROUNDS_KEY="$ROUNDS_KEY|kind=$KIND"
DATA_KEY="$(printf '%s|%s|%s|%s|%s|%s|%s%s' "$SOURCES_KEY" "$PARTITIONS" "$SEED" "$FORMAT" "$EVERY" "$FIRST_GENERATION" \
            "$TIMESTAMPS" "$ROUNDS_KEY" |
            sha256sum | cut -c1-16)"
OUT="$CACHE_ROOT/update-$DATA_KEY"

if [[ -f "$OUT/ready" ]]; then
    echo "$OUT"
    exit 0
fi

maven_tool_build bench-update "$UPDATE_DIR" bench.buildDir || die "maven build failed"
LOGBACK="$(maven_tool_file bench-update logback.xml <<'XML'
<configuration>
  <appender name="STDERR" class="ch.qos.logback.core.ConsoleAppender">
    <target>System.err</target>
    <encoder><pattern>%d{HH:mm:ss.SSS} %level %logger{0} - %msg%n</pattern></encoder>
  </appender>
  <root level="WARN"><appender-ref ref="STDERR"/></root>
</configuration>
XML
)"

# The module exports/opens gen_dataset.sh passes to Cassandra.
JVM_OPENS=()
for m in java.base/jdk.internal.misc java.base/jdk.internal.ref java.base/sun.nio.ch \
         java.management.rmi/com.sun.jmx.remote.internal.rmi java.rmi/sun.rmi.registry \
         java.rmi/sun.rmi.server java.sql/java.sql; do
    JVM_OPENS+=(--add-exports "$m=ALL-UNNAMED")
done
for m in java.base/java.lang.module java.base/jdk.internal.loader java.base/jdk.internal.ref \
         java.base/jdk.internal.reflect java.base/jdk.internal.math java.base/jdk.internal.module \
         java.base/jdk.internal.util.jar jdk.management/com.sun.management.internal java.base/sun.nio.ch \
         java.base/java.io java.base/java.nio java.base/java.lang java.base/java.util \
         java.base/java.util.concurrent java.base/java.util.concurrent.atomic; do
    JVM_OPENS+=(--add-opens "$m=ALL-UNNAMED")
done

rm -rf "$OUT.tmp"
TABLE_DIR="$OUT.tmp/data/bench/sensor_readings-00000000000000000000000000000b01"
mkdir -p "$TABLE_DIR"
echo "gen_update.sh: writing the changes ($KIND) of $PARTITIONS partitions ($ROUNDS round(s)) into $OUT" >&2
start=$(date +%s.%N)
"$JAVA" -Xms1g -Xmx2g ${BENCH_JAVA_OPTS:-} "${JVM_OPENS[@]}" \
    -Djava.security.manager=allow \
    -Dlogback.configurationFile="$LOGBACK" \
    -cp "$MAVEN_TOOL_CLASSPATH" cqlite.bench.UpdateDataset \
    "$TABLE_DIR" "$PARTITIONS" "$SEED" "$FORMAT" "$EVERY" "$FIRST_GENERATION" "$TIMESTAMPS" "$ROUNDS" "$KIND" \
    >"$OUT.tmp/generation.txt"
end=$(date +%s.%N)
printf 'wall_seconds=%.1f\n' "$(echo "$end - $start" | bc)" >>"$OUT.tmp/generation.txt"
rm -rf "$OUT"
mv "$OUT.tmp" "$OUT"
touch "$OUT/ready"
echo "$OUT"
