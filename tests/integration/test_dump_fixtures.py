"""`cqlite dump` against Cassandra's own sstabledump, over the shared fixtures.

For every SSTable under ../shared/cassandra-fixtures, both tools run on the
same Data.db; their JSON must be equal once parsed. Where sstabledump refuses
a file (the negative fixtures), cqlite must refuse it too, with a one-line
error that names the file.
"""
import json
import pathlib

import pytest

from conftest import FIXTURES, sstabledump_batch
from known_differences import sstabledump_failure_reason
from test_dump_generated import same_dump

DATA_FILES = sorted(FIXTURES.rglob("*-Data.db")) if FIXTURES.is_dir() else []


@pytest.fixture(scope="module")
def expected(oracle, fixtures_dir, tmp_path_factory):
    return sstabledump_batch(oracle, DATA_FILES, tmp_path_factory.mktemp("sstabledump"))


def test_fixtures_are_present():
    if not DATA_FILES:
        pytest.skip(f"SKIPPED: no shared fixtures at {FIXTURES}; the sstabledump comparison did not run")
    assert len(DATA_FILES) >= 100


@pytest.mark.parametrize("data_file", DATA_FILES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_dump_matches_sstabledump(data_file, expected, cqlite):
    status, output = expected[str(data_file)]
    ours = cqlite("dump", data_file, check=False)
    if status != "OK" and sstabledump_failure_reason(data_file):
        # A documented case where Cassandra's tool fails and cqlite reads the file.
        assert ours.returncode == 0, f"cqlite dump failed on {data_file}:\n{ours.stderr}"
        json.loads(ours.stdout)
        return
    if status != "OK":
        assert ours.returncode != 0, (
            f"sstabledump refuses {data_file} ({output.read_text()[:300]}) but cqlite accepted it")
        message = ours.stderr.strip().splitlines()
        assert message and data_file.name.split("-Data.db")[0] in message[-1], ours.stderr
        return
    assert ours.returncode == 0, f"cqlite dump failed on {data_file}:\n{ours.stderr}"
    theirs = json.loads(output.read_text())
    mine = json.loads(ours.stdout)
    assert same_dump(mine, theirs)
