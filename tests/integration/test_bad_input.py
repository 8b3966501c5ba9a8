"""Bad input gives a one-line error naming the file (and the byte offset where
there is one) and a non-zero exit: never a crash, a hang or a silent success.

Works on copies of the example table that ships with the repository, so it
needs nothing outside it.
"""
import pathlib
import shutil

import pytest

from conftest import REPO

EXAMPLE = sorted((REPO / "examples" / "data" / "shop").glob("orders-*"))[0]


@pytest.fixture
def sstable(tmp_path):
    """A private copy of generation 1 of shop.orders; returns its component prefix."""
    table_dir = tmp_path / "shop" / EXAMPLE.name
    table_dir.mkdir(parents=True)
    for f in EXAMPLE.glob("oa-1-big-*"):
        shutil.copy(f, table_dir / f.name)
    return table_dir / "oa-1-big-"


def component(prefix, name):
    return pathlib.Path(str(prefix) + name)


def expect_error(cqlite, path, *fragments):
    proc = cqlite("dump", path, check=False, timeout=60)
    assert proc.returncode != 0, f"cqlite accepted bad input {path}"
    assert proc.returncode < 128, f"cqlite died from a signal: {proc.returncode}"
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, f"expected one error line, got:\n{proc.stderr}"
    for fragment in fragments:
        assert fragment in lines[0], f"{fragment!r} not in {lines[0]!r}"
    return lines[0]


def test_the_intact_copy_reads(cqlite, sstable):
    assert cqlite("dump", component(sstable, "Data.db")).returncode == 0


@pytest.mark.parametrize("name", ["Data.db", "Statistics.db", "CompressionInfo.db"])
def test_truncated_component(cqlite, sstable, name):
    path = component(sstable, name)
    data = path.read_bytes()
    for cut in sorted({1, len(data) // 3, len(data) // 2, len(data) - 1}):
        path.write_bytes(data[:cut])
        expect_error(cqlite, component(sstable, "Data.db"), name, "offset")


def test_flipped_bits_in_compressed_chunks(cqlite, sstable):
    path = component(sstable, "Data.db")
    data = bytearray(path.read_bytes())
    for position in range(0, len(data), max(1, len(data) // 25)):
        flipped = bytearray(data)
        flipped[position] ^= 0x10
        path.write_bytes(bytes(flipped))
        expect_error(cqlite, path, "Data.db", "offset")


def test_flipped_bits_in_statistics(cqlite, sstable):
    path = component(sstable, "Statistics.db")
    data = bytearray(path.read_bytes())
    for position in range(0, len(data), max(1, len(data) // 25)):
        flipped = bytearray(data)
        flipped[position] ^= 0x01
        path.write_bytes(bytes(flipped))
        expect_error(cqlite, component(sstable, "Data.db"), "Statistics.db", "offset")


@pytest.mark.parametrize("name", ["Statistics.db", "CompressionInfo.db"])
def test_missing_component(cqlite, sstable, name):
    component(sstable, name).unlink()
    expect_error(cqlite, component(sstable, "Data.db"), name, "missing")


def test_missing_data_file(cqlite, sstable):
    component(sstable, "Data.db").unlink()
    expect_error(cqlite, component(sstable, "Data.db"), "Data.db")


def test_component_of_another_sstable(cqlite, sstable):
    """Statistics.db from another table: its header does not describe this Data.db."""
    other = sorted((REPO / "examples" / "data" / "shop").glob("price_points-*"))[0]
    shutil.copy(other / "oa-1-big-Statistics.db", component(sstable, "Statistics.db"))
    expect_error(cqlite, component(sstable, "Data.db"), "Data.db", "offset")


def test_unknown_version(cqlite, sstable, tmp_path):
    for f in sstable.parent.glob("oa-1-big-*"):
        f.rename(f.with_name(f.name.replace("oa-1-big-", "zz-1-big-")))
    expect_error(cqlite, sstable.parent / "zz-1-big-Data.db", "zz-1-big-Data.db", "version")


def test_not_an_sstable(cqlite, tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("hello")
    expect_error(cqlite, path, "notes.txt")


def test_empty_directory(cqlite, tmp_path):
    expect_error(cqlite, tmp_path, str(tmp_path))


def test_schema_that_contradicts_the_header(cqlite, sstable, tmp_path):
    schema = tmp_path / "wrong.cql"
    schema.write_text("CREATE TABLE shop.orders (customer text, placed_at timestamp, order_id uuid, "
                      "status int, total decimal, PRIMARY KEY (customer, placed_at, order_id));")
    proc = cqlite("dump", "--schema", schema, component(sstable, "Data.db"), check=False)
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Statistics.db" in lines[0] and "contradicts" in lines[0], lines[0]


def test_schema_that_agrees_is_used(cqlite, sstable):
    proc = cqlite("dump", "--schema", REPO / "examples" / "data" / "shop" / "schema.cql",
                  component(sstable, "Data.db"))
    assert proc.returncode == 0
