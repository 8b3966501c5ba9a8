#!/usr/bin/env bash
# Writes (or reuses) the scan benchmark's dataset with Cassandra 5.0.6's own
# offline writer, CQLSSTableWriter (GenerateDataset.java), and prints the
# dataset directory on stdout.
#
#   tools/bench/gen_dataset.sh [--partitions N] [--seed S] [--max-sstable-mib M] [--format nb|oa] [--generations G]
#                              [--readings R]
#
# --generations G writes the table as G overlapping generations (see
# GenerateDataset.java); each pass then writes one SSTable whatever its size.
# --readings R gives every partition R rows (default: 300 to 2999 each), for
# wide partitions.
#
# The dataset is cached in ${CQLITE_CACHE:-$HOME/.cache/cqlite}/bench/<key>/,
# where <key> hashes the generator's code (pom.xml and src/, the sources key of
# tools/maven_tool.sh) and the arguments:
#   <key>/data/bench/sensor_readings-<id>/   the SSTables
#   <key>/data/bench/schema.cql              the CREATE TABLE
#   <key>/generation.txt                     rows, seconds, ... as the generator reported
# Datasets are never committed; delete the directory to regenerate.
# Needs Java 17 and Maven 3.8 (JAVA= / MVN= override them); the generator is
# built and cached by tools/maven_tool.sh in <cache>/bench/build-<key>/.
set -euo pipefail

BENCH_TOOL_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../maven_tool.sh
source "$BENCH_TOOL_DIR/../maven_tool.sh"
CACHE_ROOT="$(maven_tool_cache)/bench"
JAVA="${JAVA:-java}"

# Defaults: ~1.2 GiB of LZ4-compressed Data.db in ~160 MiB SSTables.
PARTITIONS=12000
SEED=20260101
MAX_SSTABLE_MIB=160
FORMAT=oa
GENERATIONS=1
READINGS=0

die() { echo "gen_dataset.sh: $*" >&2; exit 2; }

while [[ $# -gt 0 ]]; do
    case "$1" in
        --partitions) PARTITIONS="$2"; shift 2 ;;
        --seed) SEED="$2"; shift 2 ;;
        --max-sstable-mib) MAX_SSTABLE_MIB="$2"; shift 2 ;;
        --format) FORMAT="$2"; shift 2 ;;
        --generations) GENERATIONS="$2"; shift 2 ;;
        --readings) READINGS="$2"; shift 2 ;;
        *) die "unknown argument: $1" ;;
    esac
done

SOURCES_KEY="$(maven_tool_sources_key "$BENCH_TOOL_DIR")"
GENERATION_KEY=""
[[ "$GENERATIONS" == 1 ]] || GENERATION_KEY="|$GENERATIONS"
[[ "$READINGS" == 0 ]] || GENERATION_KEY="$GENERATION_KEY|readings=$READINGS"
DATA_KEY="$(printf '%s|%s|%s|%s|%s%s' "$SOURCES_KEY" "$PARTITIONS" "$SEED" "$MAX_SSTABLE_MIB" "$FORMAT" "$GENERATION_KEY" | sha256sum | cut -c1-16)"
OUT="$CACHE_ROOT/$DATA_KEY"

if [[ -f "$OUT/ready" ]]; then
    echo "$OUT"
    exit 0
fi

maven_tool_build bench "$BENCH_TOOL_DIR" bench.buildDir || die "maven build failed"
# Logs to stderr at WARN: CQLSSTableWriter would otherwise log to stdout.
LOGBACK="$(maven_tool_file bench logback.xml <<'XML'
<configuration>
  <appender name="STDERR" class="ch.qos.logback.core.ConsoleAppender">
    <target>System.err</target>
    <encoder><pattern>%d{HH:mm:ss.SSS} %level %logger{0} - %msg%n</pattern></encoder>
  </appender>
  <root level="WARN"><appender-ref ref="STDERR"/></root>
</configuration>
XML
)"

# The same module exports/opens tools/oracle/oracle.sh passes to Cassandra.
JVM_OPENS=(
    --add-exports java.base/jdk.internal.misc=ALL-UNNAMED
    --add-exports java.base/jdk.internal.ref=ALL-UNNAMED
    --add-exports java.base/sun.nio.ch=ALL-UNNAMED
    --add-exports java.management.rmi/com.sun.jmx.remote.internal.rmi=ALL-UNNAMED
    --add-exports java.rmi/sun.rmi.registry=ALL-UNNAMED
    --add-exports java.rmi/sun.rmi.server=ALL-UNNAMED
    --add-exports java.sql/java.sql=ALL-UNNAMED
    --add-opens java.base/java.lang.module=ALL-UNNAMED
    --add-opens java.base/jdk.internal.loader=ALL-UNNAMED
    --add-opens java.base/jdk.internal.ref=ALL-UNNAMED
    --add-opens java.base/jdk.internal.reflect=ALL-UNNAMED
    --add-opens java.base/jdk.internal.math=ALL-UNNAMED
    --add-opens java.base/jdk.internal.module=ALL-UNNAMED
    --add-opens java.base/jdk.internal.util.jar=ALL-UNNAMED
    --add-opens jdk.management/com.sun.management.internal=ALL-UNNAMED
    --add-opens java.base/sun.nio.ch=ALL-UNNAMED
    --add-opens java.base/java.io=ALL-UNNAMED
    --add-opens java.base/java.nio=ALL-UNNAMED
    --add-opens java.base/java.lang=ALL-UNNAMED
    --add-opens java.base/java.util=ALL-UNNAMED
    --add-opens java.base/java.util.concurrent=ALL-UNNAMED
    --add-opens java.base/java.util.concurrent.atomic=ALL-UNNAMED
)

rm -rf "$OUT.tmp"
TABLE_DIR="$OUT.tmp/data/bench/sensor_readings-00000000000000000000000000000b01"
mkdir -p "$TABLE_DIR"
echo "gen_dataset.sh: writing $PARTITIONS partitions into $OUT" >&2
# A long run: the full JIT (no TieredStopAtLevel=1, unlike the oracle's short JVMs).
start=$(date +%s.%N)
"$JAVA" -Xms1g -Xmx2g ${BENCH_JAVA_OPTS:-} "${JVM_OPENS[@]}" \
    -Djava.security.manager=allow \
    -Dlogback.configurationFile="$LOGBACK" \
    -cp "$MAVEN_TOOL_CLASSPATH" cqlite.bench.GenerateDataset \
    "$TABLE_DIR" "$PARTITIONS" "$SEED" "$MAX_SSTABLE_MIB" "$FORMAT" "$GENERATIONS" "$READINGS" >"$OUT.tmp/generation.txt"
end=$(date +%s.%N)
printf 'wall_seconds=%.1f\n' "$(echo "$end - $start" | bc)" >>"$OUT.tmp/generation.txt"
rm -rf "$OUT"
mv "$OUT.tmp" "$OUT"
touch "$OUT/ready"
echo "$OUT"
