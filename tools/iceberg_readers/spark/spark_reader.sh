#!/usr/bin/env bash
# Spark reader: Spark (local mode) with the Iceberg Spark runtime reads tables
# of a JDBC catalog kept in SQLite. The slower tier of the readers.
#
#   spark_reader.sh read-many <catalog.db> <warehouse> <catalog-name> (<namespace> <table>)...
#   spark_reader.sh build     # builds (if needed) and prints nothing
#   spark_reader.sh version   # prints the build key (hash of pom, sources, this script)
#   spark_reader.sh classpath # prints the full runtime classpath
#
# The first use builds this directory with Maven (pinned versions in pom.xml)
# into ${CQLITE_CACHE:-$HOME/.cache/cqlite}/iceberg-spark/<key>/; later uses run
# the cached jar and classpath. Output is JSON lines on stdout, Spark's log
# (warnings and errors only) on stderr. Exit status 3: some table could not be
# read (its {"table": ..., "error": ...} line says why).
#
# Environment: SPARK_READER_OPTS (extra JVM options), default heap 1 GiB
# (SPARK_READER_HEAP).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE_ROOT="${CQLITE_CACHE:-$HOME/.cache/cqlite}/iceberg-spark"
JAVA="${JAVA:-java}"
MVN="${MVN:-mvn}"

die() { echo "spark_reader.sh: $*" >&2; exit 2; }

build_key() {
    (
        cd "$HERE"
        { echo pom.xml; echo spark_reader.sh; find src -type f | LC_ALL=C sort; } |
            while read -r f; do printf '%s\0' "$f"; cat "$f"; done | sha256sum | cut -c1-16
    )
}

KEY="$(build_key)"
BUILD="$CACHE_ROOT/$KEY"

ensure_built() {
    [[ -f "$BUILD/ready" ]] && return 0
    mkdir -p "$CACHE_ROOT"
    exec 9>"$CACHE_ROOT/build.lock"
    command -v flock >/dev/null 2>&1 && flock 9
    if [[ ! -f "$BUILD/ready" ]]; then
        echo "spark_reader.sh: building the Spark reader ($KEY) into $BUILD" >&2
        rm -rf "$BUILD.tmp"
        mkdir -p "$BUILD.tmp"
        local args=(-q -B -Dstyle.color=never -f "$HERE/pom.xml" "-Dreaders.buildDir=$BUILD.tmp/target"
                    -Dmaven.test.skip=true package dependency:build-classpath "-Dmdep.outputFile=$BUILD.tmp/cp.txt")
        if ! "$MVN" -o "${args[@]}" >"$BUILD.tmp/offline-build.log" 2>&1; then
            echo "spark_reader.sh: offline build failed (missing artifacts?), retrying online" >&2
            "$MVN" "${args[@]}" >&2 || { rm -rf "$BUILD.tmp"; die "maven build failed"; }
        fi
        cp "$BUILD.tmp/target/iceberg-spark-reader-1.jar" "$BUILD.tmp/iceberg-spark-reader.jar"
        rm -rf "$BUILD.tmp/target"
        rm -rf "$BUILD"
        mv "$BUILD.tmp" "$BUILD"
        touch "$BUILD/ready"
    fi
    exec 9>&-
}

classpath() {
    echo "$BUILD/iceberg-spark-reader.jar:$(cat "$BUILD/cp.txt")"
}

# Spark 3.5 on Java 17: the module openings Spark's own launcher adds
# (org.apache.spark.launcher.JavaModuleOptions), since this JVM is started
# directly rather than through spark-submit.
JAVA_MODULE_OPTS=(
    -XX:+IgnoreUnrecognizedVMOptions
    --add-opens=java.base/java.lang=ALL-UNNAMED
    --add-opens=java.base/java.lang.invoke=ALL-UNNAMED
    --add-opens=java.base/java.lang.reflect=ALL-UNNAMED
    --add-opens=java.base/java.io=ALL-UNNAMED
    --add-opens=java.base/java.net=ALL-UNNAMED
    --add-opens=java.base/java.nio=ALL-UNNAMED
    --add-opens=java.base/java.util=ALL-UNNAMED
    --add-opens=java.base/java.util.concurrent=ALL-UNNAMED
    --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED
    --add-opens=java.base/jdk.internal.ref=ALL-UNNAMED
    --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
    --add-opens=java.base/sun.nio.cs=ALL-UNNAMED
    --add-opens=java.base/sun.security.action=ALL-UNNAMED
    --add-opens=java.base/sun.util.calendar=ALL-UNNAMED
    --add-opens=java.security.jgss/sun.security.krb5=ALL-UNNAMED
    -Djdk.reflect.useDirectMethodHandle=false
)

cmd="${1:-}"
[[ -n "$cmd" ]] || die "usage: spark_reader.sh read-many|build|version|classpath ..."

case "$cmd" in
    version)
        echo "$KEY"
        ;;
    build)
        ensure_built
        ;;
    classpath)
        ensure_built
        classpath
        ;;
    read-many)
        ensure_built
        # Local mode: the driver and its one executor thread are this JVM, so
        # its heap is Spark's memory. Spark binds to loopback only.
        export SPARK_LOCAL_IP=127.0.0.1
        exec "$JAVA" "-Xmx${SPARK_READER_HEAP:-1g}" "${JAVA_MODULE_OPTS[@]}" ${SPARK_READER_OPTS:-} \
            -cp "$(classpath)" cqlite.icebergreaders.spark.IcebergSparkReader "$@"
        ;;
    *)
        die "unknown subcommand '$cmd'"
        ;;
esac
