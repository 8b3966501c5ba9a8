#!/usr/bin/env bash
# CQLite test oracle: runs Apache Cassandra 5.0.6's own code.
#
#   oracle.sh sstabledump <Data.db>
#   oracle.sh sstabledump-batch <outdir> <Data.db>...
#   oracle.sh generate <scenario.cql> <outdir> --format nb|oa|da
#   oracle.sh node <workdir> [options]  # a node clients reach on 127.0.0.1 (or, in a cluster, the
#                                       # address given), driven on stdin (Node.java)
#   oracle.sh version        # prints the key of the oracle's code (hash of pom.xml and src/)
#   oracle.sh classpath      # prints the full runtime classpath
#
# Built and cached by tools/maven_tool.sh in
# ${CQLITE_CACHE:-$HOME/.cache/cqlite}/oracle/build-<key>/; the yaml/logback
# files in .../oracle/files-<hash>/.
set -euo pipefail

ORACLE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
JAVA="${JAVA:-java}"
# shellcheck source=../maven_tool.sh
source "$ORACLE_DIR/../maven_tool.sh"

die() { echo "oracle.sh: $*" >&2; exit 2; }

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

# Minimal configuration for the offline tools (sstabledump). NONE lets them
# open oa/da files; nb files are read as well.
tool_yaml() {
    local dir
    dir="$(maven_tool_cache)/oracle/tooldata"
    maven_tool_file oracle tool.yaml <<EOF
cluster_name: cqlite-oracle-tools
partitioner: org.apache.cassandra.dht.Murmur3Partitioner
endpoint_snitch: SimpleSnitch
commitlog_sync: periodic
commitlog_sync_period: 10000ms
data_file_directories: [$dir/data]
commitlog_directory: $dir/commitlog
saved_caches_directory: $dir/saved_caches
hints_directory: $dir/hints
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: "127.0.0.1"
storage_compatibility_mode: NONE
EOF
}

# Logs go to stderr only (Cassandra's default would print to stdout).
# Level: -Doracle.log.level=..., default ERROR (ORACLE_LOG_LEVEL in this script).
logback_xml() {
    maven_tool_file oracle logback.xml <<'EOF'
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
    maven_tool_build oracle "$ORACLE_DIR" oracle.buildDir || die "maven build failed"
}

run_java() {
    # run_java <log-yaml> <main-class> args...
    local yaml="$1"; shift
    local main="$1"; shift
    local extra=()
    [[ -n "$yaml" ]] && extra+=("-Dcassandra.config=file://$yaml")
    exec "$JAVA" "${JVM_TUNING[@]}" ${ORACLE_JAVA_OPTS:-} "${JVM_OPENS[@]}" \
        -Djava.security.manager=allow \
        -Dlogback.configurationFile="$(logback_xml)" \
        -Doracle.log.level="${ORACLE_LOG_LEVEL:-ERROR}" \
        "${extra[@]}" \
        -cp "$MAVEN_TOOL_CLASSPATH" "$main" "$@"
}

cmd="${1:-}"
[[ -n "$cmd" ]] || die "usage: oracle.sh sstabledump|sstabledump-batch|generate|node|version|classpath ..."
shift

case "$cmd" in
    version)
        maven_tool_sources_key "$ORACLE_DIR"
        ;;
    classpath)
        ensure_built
        echo "$MAVEN_TOOL_CLASSPATH"
        ;;
    build)
        ensure_built
        ;;
    sstabledump)
        [[ $# -ge 1 ]] || die "usage: oracle.sh sstabledump <Data.db> [sstabledump options]"
        ensure_built
        run_java "$(tool_yaml)" org.apache.cassandra.tools.SSTableExport "$@"
        ;;
    sstabledump-batch)
        [[ $# -ge 1 ]] || die "usage: oracle.sh sstabledump-batch <outdir> <Data.db>..."
        ensure_built
        run_java "$(tool_yaml)" cqlite.oracle.BatchDump "$@"
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
            -Dlogback.configurationFile="$(logback_xml)" \
            -Doracle.log.level="${ORACLE_LOG_LEVEL:-ERROR}" \
            -cp "$MAVEN_TOOL_CLASSPATH" cqlite.oracle.Generate "$scenario" "$outdir" "$format" "$work"
        rc=$?
        set -e
        exit $rc
        ;;
    node)
        [[ $# -ge 1 ]] || die "usage: oracle.sh node <workdir> [placement options, see Node.java]"
        ensure_built
        # A long-lived node: the full JIT. Heap: ORACLE_NODE_HEAP (default 4g).
        exec "$JAVA" "-Xms${ORACLE_NODE_HEAP:-4g}" "-Xmx${ORACLE_NODE_HEAP:-4g}" ${ORACLE_JAVA_OPTS:-} "${JVM_OPENS[@]}" \
            -Dlogback.configurationFile="$(logback_xml)" \
            -Doracle.log.level="${ORACLE_LOG_LEVEL:-ERROR}" \
            -cp "$MAVEN_TOOL_CLASSPATH" cqlite.oracle.Node "$@"
        ;;
    *)
        die "unknown subcommand '$cmd'"
        ;;
esac
