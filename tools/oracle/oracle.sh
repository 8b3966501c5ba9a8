#!/usr/bin/env bash
# CQLite test oracle: runs Apache Cassandra 5.0.6's own code.
#
#   oracle.sh sstabledump <Data.db>
#   oracle.sh sstabledump-batch <outdir> <Data.db>...
#   oracle.sh generate <scenario.cql> <outdir> --format nb|oa|da
#   oracle.sh version        # prints the build key (hash of pom, sources, this script)
#   oracle.sh classpath      # prints the full runtime classpath
#
# Build output, classpath and the yaml/logback files live in
# ${CQLITE_CACHE:-$HOME/.cache/cqlite}/oracle/build-<key>/.
set -euo pipefail

ORACLE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE_ROOT="${CQLITE_CACHE:-$HOME/.cache/cqlite}/oracle"
JAVA="${JAVA:-java}"
MVN="${MVN:-mvn}"

die() { echo "oracle.sh: $*" >&2; exit 2; }

oracle_key() {
    (
        cd "$ORACLE_DIR"
        { echo pom.xml; echo oracle.sh; find src -type f -name '*.java' | LC_ALL=C sort; } |
            while read -r f; do printf '%s\0' "$f"; cat "$f"; done | sha256sum | cut -c1-16
    )
}

KEY="$(oracle_key)"
BUILD="$CACHE_ROOT/build-$KEY"

# C1 only: these JVMs are short-lived and the machine may have few cores;
# measured 30-40% faster for both generate and sstabledump.
JVM_TUNING=(-XX:TieredStopAtLevel=1)

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

write_support_files() {
    local dir="$1"
    mkdir -p "$dir/tooldata"
    # Minimal configuration for the offline tools (sstabledump). NONE lets
    # them open oa/da files; nb files are read as well.
    cat >"$dir/tool.yaml" <<EOF
cluster_name: cqlite-oracle-tools
partitioner: org.apache.cassandra.dht.Murmur3Partitioner
endpoint_snitch: SimpleSnitch
commitlog_sync: periodic
commitlog_sync_period: 10000ms
data_file_directories: [$dir/tooldata/data]
commitlog_directory: $dir/tooldata/commitlog
saved_caches_directory: $dir/tooldata/saved_caches
hints_directory: $dir/tooldata/hints
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: "127.0.0.1"
storage_compatibility_mode: NONE
EOF
    # Logs go to stderr only (Cassandra's default would print to stdout).
    # Level: -Doracle.log.level=..., default ERROR (ORACLE_LOG_LEVEL in this script).
    cat >"$dir/logback.xml" <<'EOF'
<configuration>
  <appender name="STDERR" class="ch.qos.logback.core.ConsoleAppender">
    <target>System.err</target>
    <encoder><pattern>%d{HH:mm:ss.SSS} %level %logger{0} - %msg%n</pattern></encoder>
  </appender>
  <logger name="org.apache.cassandra.utils.concurrent.Ref" level="OFF"/>
  <root level="${oracle.log.level:-ERROR}"><appender-ref ref="STDERR"/></root>
</configuration>
EOF
}

ensure_built() {
    [[ -f "$BUILD/ready" ]] && return 0
    mkdir -p "$CACHE_ROOT"
    local have_flock=0
    command -v flock >/dev/null 2>&1 && have_flock=1
    exec 9>"$CACHE_ROOT/build.lock"
    [[ $have_flock == 1 ]] && flock 9
    if [[ ! -f "$BUILD/ready" ]]; then
        echo "oracle.sh: building oracle ($KEY) into $BUILD" >&2
        rm -rf "$BUILD.tmp"
        mkdir -p "$BUILD.tmp"
        local args=(-q -B -Dstyle.color=never -f "$ORACLE_DIR/pom.xml" "-Doracle.buildDir=$BUILD.tmp/target"
                    compile dependency:build-classpath "-Dmdep.outputFile=$BUILD.tmp/cp.txt")
        if ! "$MVN" -o "${args[@]}" >"$BUILD.tmp/offline-build.log" 2>&1; then
            echo "oracle.sh: offline build failed (missing artifacts?), retrying online" >&2
            "$MVN" "${args[@]}" >&2 || { rm -rf "$BUILD.tmp"; exec 9>&-; die "maven build failed"; }
        fi
        # Point at the final location before publishing.
        write_support_files "$BUILD.tmp"
        rm -rf "$BUILD"
        mv "$BUILD.tmp" "$BUILD"
        sed -i "s#$BUILD.tmp#$BUILD#g" "$BUILD/tool.yaml"
        touch "$BUILD/ready"
    fi
    [[ $have_flock == 1 ]] && flock -u 9
    exec 9>&-
}

classpath() {
    echo "$BUILD/target/classes:$(cat "$BUILD/cp.txt")"
}

run_java() {
    # run_java <log-yaml> <main-class> args...
    local yaml="$1"; shift
    local main="$1"; shift
    local extra=()
    [[ -n "$yaml" ]] && extra+=("-Dcassandra.config=file://$yaml")
    exec "$JAVA" "${JVM_TUNING[@]}" ${ORACLE_JAVA_OPTS:-} "${JVM_OPENS[@]}" \
        -Djava.security.manager=allow \
        -Dlogback.configurationFile="$BUILD/logback.xml" \
        -Doracle.log.level="${ORACLE_LOG_LEVEL:-ERROR}" \
        "${extra[@]}" \
        -cp "$(classpath)" "$main" "$@"
}

cmd="${1:-}"
[[ -n "$cmd" ]] || die "usage: oracle.sh sstabledump|sstabledump-batch|generate|version|classpath ..."
shift

case "$cmd" in
    version)
        echo "$KEY"
        ;;
    classpath)
        ensure_built
        classpath
        ;;
    build)
        ensure_built
        ;;
    sstabledump)
        [[ $# -ge 1 ]] || die "usage: oracle.sh sstabledump <Data.db> [sstabledump options]"
        ensure_built
        run_java "$BUILD/tool.yaml" org.apache.cassandra.tools.SSTableExport "$@"
        ;;
    sstabledump-batch)
        [[ $# -ge 1 ]] || die "usage: oracle.sh sstabledump-batch <outdir> <Data.db>..."
        ensure_built
        run_java "$BUILD/tool.yaml" cqlite.oracle.BatchDump "$@"
        ;;
    generate)
        scenario="" outdir="" format=""
        while [[ $# -gt 0 ]]; do
            case "$1" in
                --format) format="${2:-}"; shift 2 || die "--format needs a value" ;;
                --format=*) format="${1#--format=}"; shift ;;
                *) if [[ -z "$scenario" ]]; then scenario="$1"; elif [[ -z "$outdir" ]]; then outdir="$1"; else die "unexpected argument: $1"; fi; shift ;;
            esac
        done
        [[ -n "$scenario" && -n "$outdir" && -n "$format" ]] || die "usage: oracle.sh generate <scenario.cql> <outdir> --format nb|oa|da"
        case "$format" in nb|oa|da) ;; *) die "unknown format '$format' (nb, oa or da)";; esac
        [[ -f "$scenario" ]] || die "no such scenario: $scenario"
        if [[ -d "$outdir" ]] && [[ -n "$(ls -A "$outdir")" ]]; then
            die "output directory $outdir is not empty"
        fi
        ensure_built
        work="$(mktemp -d "${TMPDIR:-/tmp}/cqlite-oracle-gen.XXXXXX")"
        cleanup() { rm -rf "$work"; }
        trap cleanup EXIT
        trap 'exit 130' INT TERM
        set +e
        # Not exec'd: the work directory has to be removed afterwards. The child
        # JVM is the node; it is killed if it overruns ORACLE_GEN_TIMEOUT.
        timeout --kill-after=10 "${ORACLE_GEN_TIMEOUT:-300}" \
            "$JAVA" "${JVM_TUNING[@]}" -Xms512m -Xmx1g ${ORACLE_JAVA_OPTS:-} "${JVM_OPENS[@]}" \
            -Dlogback.configurationFile="$BUILD/logback.xml" \
            -Doracle.log.level="${ORACLE_LOG_LEVEL:-ERROR}" \
            -cp "$(classpath)" cqlite.oracle.Generate "$scenario" "$outdir" "$format" "$work"
        rc=$?
        set -e
        exit $rc
        ;;
    *)
        die "unknown subcommand '$cmd'"
        ;;
esac
