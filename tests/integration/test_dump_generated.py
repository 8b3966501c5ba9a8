"""`cqlite dump` against sstabledump on SSTables freshly written by Cassandra 5.0.

tools/oracle generates every scenario under tools/oracle/scenarios (all CQL
types in keys and values, collections, UDTs, tuples, counters, TTLs, every
kind of deletion, every compressor) in the formats nb, oa and da, and runs
sstabledump over the result. Generation is cached by scenario content.
"""
import json
import os
import pathlib
import subprocess
import sys

import pytest

from conftest import REPO
from known_differences import sstabledump_failure_reason

GENERATED = pathlib.Path(os.environ.get("CQLITE_GENERATED_DIR", REPO / "build" / "generated"))
SCENARIOS = sorted(p.stem for p in (REPO / "tools" / "oracle" / "scenarios").glob("*.cql"))
FORMATS = ("nb", "oa", "da")


@pytest.fixture(scope="module")
def generated(oracle):
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "oracle" / "gen_all.py"), str(GENERATED),
                           "--dump", "--jobs", "2"], capture_output=True, text=True, timeout=3600)
    assert proc.returncode == 0, f"generating the scenarios failed:\n{proc.stdout}\n{proc.stderr}"
    return GENERATED


def cases():
    return [(fmt, scenario) for fmt in FORMATS for scenario in SCENARIOS]


@pytest.mark.parametrize("fmt,scenario", cases(), ids=lambda v: v)
def test_dump_matches_sstabledump(fmt, scenario, generated, cqlite):
    base = generated / fmt / scenario
    manifest = (base / "oracle-dump" / "manifest.tsv").read_text().splitlines()
    assert manifest, f"no SSTables generated for {scenario} in {fmt}"
    mismatches = []
    for line in manifest:
        status, _exit, _ms, relative, output = line.split("\t")[:5]
        data_file = base / relative
        expected_file = base / "oracle-dump" / output
        ours = cqlite("dump", data_file, check=False)
        if status != "OK" and sstabledump_failure_reason(data_file):
            if ours.returncode != 0:
                mismatches.append(f"{relative}: cqlite failed: {ours.stderr.strip()}")
            continue
        if status != "OK":
            if ours.returncode == 0:
                mismatches.append(f"{relative}: sstabledump refuses it, cqlite accepts it")
            continue
        if ours.returncode != 0:
            mismatches.append(f"{relative}: cqlite failed: {ours.stderr.strip()}")
            continue
        if json.loads(ours.stdout) != json.loads(expected_file.read_text()):
            mismatches.append(f"{relative}: output differs from {expected_file}")
    assert not mismatches, "\n".join(mismatches)
