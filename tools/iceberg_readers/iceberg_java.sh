#!/usr/bin/env bash
# Iceberg Java library reader: reads tables of a JDBC catalog kept in SQLite.
#
#   iceberg_java.sh read      <catalog.db> <warehouse> <catalog-name> <namespace> <table>
#   iceberg_java.sh list      <catalog.db> <warehouse> <catalog-name>
#   iceberg_java.sh snapshots <catalog.db> <warehouse> <catalog-name> <namespace> <table>
#   iceberg_java.sh build     # builds (if needed) and prints nothing
#   iceberg_java.sh version   # prints the build key (hash of pom, sources, this script)
#   iceberg_java.sh classpath # prints the full runtime classpath
#
# The first use builds java/ with Maven (pinned versions in java/pom.xml) into
# ${CQLITE_CACHE:-$HOME/.cache/cqlite}/iceberg-java/<key>/; later uses run the
# cached jar and classpath. Output is JSON lines on stdout.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SRC="$HERE/java"
CACHE_ROOT="${CQLITE_CACHE:-$HOME/.cache/cqlite}/iceberg-java"
JAVA="${JAVA:-java}"
MVN="${MVN:-mvn}"

die() { echo "iceberg_java.sh: $*" >&2; exit 2; }

build_key() {
    (
        cd "$HERE"
        { echo java/pom.xml; echo iceberg_java.sh; find java/src -type f -name '*.java' | LC_ALL=C sort; } |
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
        echo "iceberg_java.sh: building the Iceberg Java reader ($KEY) into $BUILD" >&2
        rm -rf "$BUILD.tmp"
        mkdir -p "$BUILD.tmp"
        local args=(-q -B -Dstyle.color=never -f "$SRC/pom.xml" "-Dreaders.buildDir=$BUILD.tmp/target"
                    -Dmaven.test.skip=true package dependency:build-classpath "-Dmdep.outputFile=$BUILD.tmp/cp.txt")
        if ! "$MVN" -o "${args[@]}" >"$BUILD.tmp/offline-build.log" 2>&1; then
            echo "iceberg_java.sh: offline build failed (missing artifacts?), retrying online" >&2
            "$MVN" "${args[@]}" >&2 || { rm -rf "$BUILD.tmp"; die "maven build failed"; }
        fi
        cp "$BUILD.tmp/target/iceberg-java-reader-1.jar" "$BUILD.tmp/iceberg-java-reader.jar"
        rm -rf "$BUILD.tmp/target"
        rm -rf "$BUILD"
        mv "$BUILD.tmp" "$BUILD"
        touch "$BUILD/ready"
    fi
    exec 9>&-
}

classpath() {
    echo "$BUILD/iceberg-java-reader.jar:$(cat "$BUILD/cp.txt")"
}

cmd="${1:-}"
[[ -n "$cmd" ]] || die "usage: iceberg_java.sh read|read-many|list|snapshots|build|version|classpath ..."

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
    read|read-many|list|snapshots)
        ensure_built
        # C1 only: the JVM is short-lived. Hadoop's native-library warning is
        # harmless and goes to stderr like every other log line.
        exec "$JAVA" -XX:TieredStopAtLevel=1 ${ICEBERG_JAVA_OPTS:-} \
            -cp "$(classpath)" cqlite.icebergreaders.IcebergJavaReader "$@"
        ;;
    *)
        die "unknown subcommand '$cmd'"
        ;;
esac
