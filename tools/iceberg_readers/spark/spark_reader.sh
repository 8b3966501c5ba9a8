#!/usr/bin/env bash
# Spark reader: Spark (local mode) with the Iceberg Spark runtime reads tables
# of a JDBC catalog kept in SQLite. The slower tier of the readers.
#
#   spark_reader.sh read-many <catalog.db> <warehouse> <catalog-name> (<namespace> <table>)...
#   spark_reader.sh build     # builds (if needed) and prints nothing
#   spark_reader.sh version   # prints the key of its code (hash of pom.xml and src/)
#   spark_reader.sh classpath # prints the full runtime classpath
#
# The first use builds this directory with Maven (pinned versions in pom.xml)
# through tools/maven_tool.sh into
# ${CQLITE_CACHE:-$HOME/.cache/cqlite}/iceberg-spark/build-<key>/; later uses
# run the cached classes and classpath. Output is JSON lines on stdout, Spark's log
# (warnings and errors only) on stderr. Exit status 3: some table could not be
# read (its {"table": ..., "error": ...} line says why).
#
# Environment: SPARK_READER_OPTS (extra JVM options), default heap 1 GiB
# (SPARK_READER_HEAP).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
JAVA="${JAVA:-java}"
# shellcheck source=../maven_tool.sh
source "$HERE/../../maven_tool.sh"

die() { echo "spark_reader.sh: $*" >&2; exit 2; }

ensure_built() {
    maven_tool_build iceberg-spark "$HERE" readers.buildDir || die "maven build failed"
}

# shellcheck source=../../spark_jvm_options.sh
source "$HERE/../../spark_jvm_options.sh"

cmd="${1:-}"
[[ -n "$cmd" ]] || die "usage: spark_reader.sh read-many|build|version|classpath ..."

case "$cmd" in
    version)
        maven_tool_sources_key "$HERE"
        ;;
    build)
        ensure_built
        ;;
    classpath)
        ensure_built
        echo "$MAVEN_TOOL_CLASSPATH"
        ;;
    read-many)
        ensure_built
        # Local mode: the driver and its one executor thread are this JVM, so
        # its heap is Spark's memory. Spark binds to loopback only.
        export SPARK_LOCAL_IP=127.0.0.1
        exec "$JAVA" "-Xmx${SPARK_READER_HEAP:-1g}" "${SPARK_JAVA_MODULE_OPTS[@]}" ${SPARK_READER_OPTS:-} \
            -cp "$MAVEN_TOOL_CLASSPATH" cqlite.icebergreaders.spark.IcebergSparkReader "$@"
        ;;
    *)
        die "unknown subcommand '$cmd'"
        ;;
esac
