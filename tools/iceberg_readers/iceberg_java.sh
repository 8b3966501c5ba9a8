#!/usr/bin/env bash
# Iceberg Java library reader: reads tables of a JDBC catalog kept in SQLite
# or PostgreSQL (<catalog>: the SQLite file, or postgresql://user:password@host:port/db),
# or of a REST catalog (<catalog>: rest:http://host:port[/path]; credentials
# from CQLITE_REST_CREDENTIAL=id:secret or CQLITE_REST_TOKEN). <warehouse> is a
# directory or s3://bucket/prefix, read (and, for rest-server, written) through
# Iceberg's S3FileIO with the store cqlite takes from the environment
# (CQLITE_S3_ENDPOINT, AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY).
#
#   iceberg_java.sh read      <catalog> <warehouse> <catalog-name> <namespace> <table>
#   iceberg_java.sh list      <catalog> <warehouse> <catalog-name>
#   iceberg_java.sh snapshots <catalog> <warehouse> <catalog-name> <namespace> <table>
#   iceberg_java.sh write-sample <dir>  # small v2 tables the library writes (fuzz seeds)
#   iceberg_java.sh dv-read <file.puffin>  # the library's Puffin reader and deletion vector
#                             # decoder: blob metadata and positions as JSON
#   iceberg_java.sh dv-write <out.puffin> <vectors.tsv>  # deletion vectors written by the
#                             # library, one blob per line "<data-file>\t<p1>,<p2>,..."
#   iceberg_java.sh v3-read <metadata.json>  # format version 3 table metadata, its manifest
#                             # lists and manifests as the library parses them, as JSON
#   iceberg_java.sh rest-server <port> <warehouse> <jdbc-catalog-file> [--credential id:secret]
#                             # Iceberg's REST catalog server on 127.0.0.1:<port> (0: a free
#                             # one) over a JDBC catalog in a SQLite file; prints
#                             # {"uri": "http://127.0.0.1:PORT"} once it listens, runs until killed
#   iceberg_java.sh build     # builds (if needed) and prints nothing
#   iceberg_java.sh version   # prints the key of its code (hash of pom.xml and src/)
#   iceberg_java.sh classpath # prints the full runtime classpath
#
# The first use builds java/ with Maven (pinned versions in java/pom.xml)
# through tools/maven_tool.sh into
# ${CQLITE_CACHE:-$HOME/.cache/cqlite}/iceberg-java/build-<key>/; later uses run
# the cached classes and classpath. Output is JSON lines on stdout.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SRC="$HERE/java"
JAVA="${JAVA:-java}"
# shellcheck source=../maven_tool.sh
source "$HERE/../maven_tool.sh"

die() { echo "iceberg_java.sh: $*" >&2; exit 2; }

ensure_built() {
    maven_tool_build iceberg-java "$SRC" readers.buildDir || die "maven build failed"
}

cmd="${1:-}"
[[ -n "$cmd" ]] || die "usage: iceberg_java.sh read|read-many|list|snapshots|write-sample|dv-read|dv-write|v3-read|rest-server|build|version|classpath ..."

case "$cmd" in
    version)
        maven_tool_sources_key "$SRC"
        ;;
    build)
        ensure_built
        ;;
    classpath)
        ensure_built
        echo "$MAVEN_TOOL_CLASSPATH"
        ;;
    read|read-many|list|snapshots)
        ensure_built
        # C1 only: the JVM is short-lived. Hadoop's native-library warning is
        # harmless and goes to stderr like every other log line.
        exec "$JAVA" -XX:TieredStopAtLevel=1 ${ICEBERG_JAVA_OPTS:-} \
            -cp "$MAVEN_TOOL_CLASSPATH" cqlite.icebergreaders.IcebergJavaReader "$@"
        ;;
    write-sample)
        [[ $# -eq 2 ]] || die "usage: iceberg_java.sh write-sample <dir>"
        ensure_built
        exec "$JAVA" -XX:TieredStopAtLevel=1 ${ICEBERG_JAVA_OPTS:-} \
            -cp "$MAVEN_TOOL_CLASSPATH" cqlite.icebergreaders.IcebergJavaSampleWriter "$@"
        ;;
    dv-read|dv-write)
        ensure_built
        exec "$JAVA" -XX:TieredStopAtLevel=1 ${ICEBERG_JAVA_OPTS:-} \
            -cp "$MAVEN_TOOL_CLASSPATH" cqlite.icebergreaders.IcebergJavaDeletionVectors "$@"
        ;;
    v3-read)
        [[ $# -eq 2 ]] || die "usage: iceberg_java.sh v3-read <metadata.json>"
        ensure_built
        exec "$JAVA" -XX:TieredStopAtLevel=1 ${ICEBERG_JAVA_OPTS:-} \
            -cp "$MAVEN_TOOL_CLASSPATH" cqlite.icebergreaders.IcebergJavaV3Metadata "$@"
        ;;
    rest-server)
        shift
        [[ $# -eq 3 || ($# -eq 5 && "$4" == "--credential") ]] ||
            die "usage: iceberg_java.sh rest-server <port> <warehouse> <jdbc-catalog-file> [--credential id:secret]"
        ensure_built
        exec "$JAVA" -XX:TieredStopAtLevel=1 ${ICEBERG_JAVA_OPTS:-} \
            -cp "$MAVEN_TOOL_CLASSPATH" cqlite.icebergreaders.IcebergRestServer "$@"
        ;;
    *)
        die "unknown subcommand '$cmd'"
        ;;
esac
