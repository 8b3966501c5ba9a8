# Sourced by the bench/run_*_bench.sh scripts once they have set ROOT and
# BUILD and defined die and log: what each of them sets up the same way.

# bench_python REQUIREMENTS MODULE...: the repository's .venv, where
# REQUIREMENTS (a file under ROOT) is installed when a module does not
# import; sets PY.
bench_python() {
    local requirements="$1"
    shift
    PY="$ROOT/.venv/bin/python"
    local modules
    modules="$(IFS=,; echo "$*")"
    if ! [[ -x $PY ]] || ! "$PY" -c "import $modules" 2>/dev/null; then
        log "setting up $ROOT/.venv"
        [[ -x $PY ]] || python3 -m venv "$ROOT/.venv"
        "$PY" -m pip install --quiet --disable-pip-version-check -r "$ROOT/$requirements"
    fi
}

# bench_out_dir NAME: OUT, BUILD/NAME, made anew for this run's raw outputs.
bench_out_dir() {
    OUT="$BUILD/$1"
    mkdir -p "$BUILD"
    rm -rf "$OUT"
    mkdir -p "$OUT"
}

# bench_build_cqlite OUT: cqlite built (Release) in BUILD, the build's logs
# in OUT; sets CQLITE.
bench_build_cqlite() {
    local out="$1"
    log "building cqlite (Release) in $BUILD"
    nice cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >"$out/cmake.log" 2>&1 ||
        { cat "$out/cmake.log" >&2; die "cmake failed"; }
    nice cmake --build "$BUILD" --target cqlite -j2 >"$out/build.log" 2>&1 ||
        { tail -50 "$out/build.log" >&2; die "build failed"; }
    CQLITE="$BUILD/src/cli/cqlite"
    [[ -x $CQLITE ]] || die "no cqlite binary at $CQLITE"
}
