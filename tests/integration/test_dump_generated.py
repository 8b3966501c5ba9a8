"""`cqlite dump` against sstabledump on SSTables freshly written by Cassandra 5.0.

tools/oracle generates every scenario under tools/oracle/scenarios (all CQL
types in keys and values, collections, UDTs, tuples, counters, TTLs, every
kind of deletion, every compressor) in the formats nb, oa and da; generation
is cached by scenario content. sstabledump runs over the result at test time,
right before cqlite, because its "expired" flags depend on the clock.
"""
import datetime
import json
import os
import pathlib
import subprocess
import sys
import time

import pytest

from conftest import REPO, sstabledump_batch
from known_differences import sstabledump_failure_reason

GENERATED = pathlib.Path(os.environ.get("CQLITE_GENERATED_DIR", REPO / "build" / "generated"))
SCENARIOS = sorted(p.stem for p in (REPO / "tools" / "oracle" / "scenarios").glob("*.cql"))
FORMATS = ("nb", "oa", "da")
# A TTL that ends this close to the test's clock may be seen as expired by one
# tool and not the other; only the "expired" flag of such a cell may differ.
CLOCK_SLACK_SECONDS = 120


@pytest.fixture(scope="module")
def generated(oracle):
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "oracle" / "gen_all.py"), str(GENERATED),
                           "--jobs", "2"], capture_output=True, text=True, timeout=3600)
    assert proc.returncode == 0, f"generating the scenarios failed:\n{proc.stdout}\n{proc.stderr}"
    return GENERATED


@pytest.fixture(scope="module")
def expected(generated, oracle, tmp_path_factory):
    """Runs sstabledump over every generated Data.db now; returns {path: (status, output file)}."""
    files = sorted(generated.rglob("*-Data.db"))
    results = sstabledump_batch(oracle, files, tmp_path_factory.mktemp("sstabledump"))
    assert len(results) == len(files), "sstabledump did not report on every file"
    return results


def near_now(expires_at):
    when = datetime.datetime.fromisoformat(expires_at.replace("Z", "+00:00")).timestamp()
    return abs(when - time.time()) <= CLOCK_SLACK_SECONDS


def same_dump(mine, theirs):
    """Equality, except an "expired" flag of a TTL ending around now."""
    if isinstance(mine, dict) and isinstance(theirs, dict):
        if mine.keys() != theirs.keys():
            return False
        for key in mine:
            if key == "expired" and mine[key] != theirs[key] and near_now(mine.get("expires_at", "")):
                continue
            if not same_dump(mine[key], theirs[key]):
                return False
        return True
    if isinstance(mine, list) and isinstance(theirs, list):
        return len(mine) == len(theirs) and all(same_dump(a, b) for a, b in zip(mine, theirs))
    return mine == theirs


def cases():
    return [(fmt, scenario) for fmt in FORMATS for scenario in SCENARIOS]


@pytest.mark.parametrize("fmt,scenario", cases(), ids=lambda v: v)
def test_dump_matches_sstabledump(fmt, scenario, generated, expected, cqlite):
    data_files = sorted((generated / fmt / scenario).rglob("*-Data.db"))
    assert data_files, f"no SSTables generated for {scenario} in {fmt}"
    mismatches = []
    for data_file in data_files:
        status, expected_file = expected[str(data_file)]
        ours = cqlite("dump", data_file, check=False)
        if status != "OK" and sstabledump_failure_reason(data_file):
            if ours.returncode != 0:
                mismatches.append(f"{data_file}: cqlite failed: {ours.stderr.strip()}")
            continue
        if status != "OK":
            if ours.returncode == 0:
                mismatches.append(f"{data_file}: sstabledump refuses it, cqlite accepts it")
            continue
        if ours.returncode != 0:
            mismatches.append(f"{data_file}: cqlite failed: {ours.stderr.strip()}")
            continue
        if not same_dump(json.loads(ours.stdout), json.loads(expected_file.read_text())):
            mismatches.append(f"{data_file}: output differs from {expected_file}")
    assert not mismatches, "\n".join(mismatches)
