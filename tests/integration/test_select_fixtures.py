"""`cqlite select` against the documented content of the shared fixtures
(fixture_cases.py), row for row and value for value."""
import pytest

from fixture_cases import (CASES, LEGACY, ONE_TO_FIVE, first_difference, int_key, murmur3_token, resolve, same,
                           select)
from conftest import FIXTURES


def _params():
    for c in CASES:
        marks = []
        if c.xfail:
            marks.append(pytest.mark.xfail(strict=True, reason=c.xfail))
        test_id = c.id if c.now is None else f"{c.id}@{c.now}"
        yield pytest.param(c, id=test_id, marks=marks)


def test_fixtures_are_present():
    if not FIXTURES.is_dir():
        pytest.skip(f"SKIPPED: no shared fixtures at {FIXTURES}; the documented-content comparison did not run")
    assert all(resolve(c.path).exists() for c in CASES if not c.skip)


def test_murmur3_order_matches_the_readme():
    # scylladb-3.x/README.md: "Murmur3 order of int partition keys 1..5 is 5, 1, 2, 4, 3".
    assert sorted(range(1, 6), key=lambda i: murmur3_token(int_key(i))) == ONE_TO_FIVE


def test_legacy_tables_are_byte_ordered(fixtures_dir):
    for statistics in sorted((fixtures_dir / LEGACY).glob("*/legacy_tables/*/*-Statistics.db")):
        assert b"org.apache.cassandra.dht.ByteOrderedPartitioner" in statistics.read_bytes(), statistics


@pytest.mark.parametrize("c", list(_params()))
def test_select_gives_documented_rows(c, fixtures_dir, cqlite, tmp_path):
    if c.skip:
        pytest.skip(f"not documented: {c.skip}")
    got = select(cqlite, resolve(c.path), c.schema, c.now, tmp_path)
    if c.check:
        c.check(got)
        return
    # Equal values and the same column order in every row.
    assert same(got, c.rows), first_difference(got, c.rows)
