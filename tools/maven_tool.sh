# One Maven helper for every Java tool of the repository (sourced by the
# tools' scripts: `source tools/maven_tool.sh`).
#
# A Java tool is a directory holding a pom.xml (pinned versions) and its
# sources under src/. The helper builds it once with Maven (offline first,
# online if the offline build fails, e.g. on missing artifacts), caches the
# build and gives its classpath:
#
#   maven_tool_build <tool> <dir> [<build-dir-property>]
#       builds <dir> (if needed) into
#       ${CQLITE_CACHE:-$HOME/.cache/cqlite}/<tool>/build-<key>/
#           classes/   the compiled classes and resources
#           cp.txt     the resolved dependency classpath
#       and sets MAVEN_TOOL_BUILD (that directory) and MAVEN_TOOL_CLASSPATH
#       (classes plus dependencies). <build-dir-property> names the pom
#       property that holds its build directory (default tool.buildDir), so
#       that nothing is written into the source tree.
#   maven_tool_key <dir>          the build key: a hash of pom.xml, every file
#                                 under src/ and this helper, which is all a
#                                 build consumes
#   maven_tool_sources_key <dir>  a hash of pom.xml and src/ only: the key of
#                                 what running the tool produces, for caches of
#                                 its output (it does not change with the helper)
#   maven_tool_file <tool> <name> stores stdin, once, as
#                                 <cache>/<tool>/files-<hash of stdin>/<name>
#                                 and prints its path (configuration files a
#                                 script writes for the JVM it starts)
#
# MVN= overrides the mvn command. Concurrent builds of one tool wait on
# <cache>/<tool>/build.lock (flock, when available).

MAVEN_TOOL_HELPER="$(readlink -f "${BASH_SOURCE[0]}")"

maven_tool_cache() {
    echo "${CQLITE_CACHE:-$HOME/.cache/cqlite}"
}

# Hashes the files named on stdin (relative to the current directory): each
# name, a NUL, then its bytes.
_maven_tool_hash_files() {
    while IFS= read -r f; do printf '%s\0' "$f"; cat "$f"; done | sha256sum | cut -c1-16
}

_maven_tool_inputs() {
    echo pom.xml
    find src -type f | LC_ALL=C sort
}

maven_tool_sources_key() {
    (cd "$1" && _maven_tool_inputs | _maven_tool_hash_files)
}

maven_tool_key() {
    local dir="$1"
    { (cd "$dir" && _maven_tool_inputs | _maven_tool_hash_files); cat "$MAVEN_TOOL_HELPER"; } |
        sha256sum | cut -c1-16
}

maven_tool_build() {
    local tool="$1" dir="$2" property="${3:-tool.buildDir}"
    local root key build
    dir="$(cd "$dir" && pwd)"
    root="$(maven_tool_cache)/$tool"
    key="$(maven_tool_key "$dir")"
    build="$root/build-$key"
    MAVEN_TOOL_BUILD="$build"
    if [[ ! -f "$build/ready" ]]; then
        mkdir -p "$root"
        local lock
        exec {lock}>"$root/build.lock"
        command -v flock >/dev/null 2>&1 && flock "$lock"
        if [[ ! -f "$build/ready" ]]; then
            echo "maven_tool.sh: building $tool ($key) into $build" >&2
            rm -rf "$build.tmp"
            mkdir -p "$build.tmp"
            local args=(-q -B -Dstyle.color=never -f "$dir/pom.xml" "-D$property=$build.tmp/target"
                        -Dmaven.test.skip=true compile dependency:build-classpath
                        "-Dmdep.outputFile=$build.tmp/cp.txt")
            if ! "${MVN:-mvn}" -o "${args[@]}" >"$build.tmp/offline-build.log" 2>&1; then
                echo "maven_tool.sh: offline build of $tool failed (missing artifacts?), retrying online" >&2
                if ! "${MVN:-mvn}" "${args[@]}" >&2; then
                    rm -rf "$build.tmp"
                    exec {lock}>&-
                    echo "maven_tool.sh: maven build of $tool failed" >&2
                    return 2
                fi
            fi
            mv "$build.tmp/target/classes" "$build.tmp/classes"
            rm -rf "$build.tmp/target"
            rm -rf "$build"
            mv "$build.tmp" "$build"
            touch "$build/ready"
        fi
        exec {lock}>&-
    fi
    MAVEN_TOOL_CLASSPATH="$build/classes:$(cat "$build/cp.txt")"
}

maven_tool_file() {
    local tool="$1" name="$2" tmp key dir
    mkdir -p "$(maven_tool_cache)/$tool"
    tmp="$(mktemp "$(maven_tool_cache)/$tool/.file.XXXXXX")"
    cat >"$tmp"
    key="$(sha256sum <"$tmp" | cut -c1-16)"
    dir="$(maven_tool_cache)/$tool/files-$key"
    if [[ -f "$dir/$name" ]]; then
        rm -f "$tmp"
    else
        mkdir -p "$dir"
        mv "$tmp" "$dir/$name"
    fi
    echo "$dir/$name"
}
