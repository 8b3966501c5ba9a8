# Sourced by the slower test tiers (scripts/spark_tier.sh,
# scripts/spark_job_tier.sh) from the repository's root: the cqlite binary
# they test and the Python environment they run in.

# tier_setup REQUIREMENTS: CQLITE_BIN (a binary already built, or ./build's,
# built by setup.sh) exported, and .venv with REQUIREMENTS installed.
tier_setup() {
    if [ -z "${CQLITE_BIN:-}" ]; then
        scripts/setup.sh
        CQLITE_BIN="$PWD/build/src/cli/cqlite"
    fi
    export CQLITE_BIN
    [ -x .venv/bin/python ] || python3 -m venv .venv
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -r "$1"
}
