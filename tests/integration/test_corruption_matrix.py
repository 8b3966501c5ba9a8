"""Damaged files CQLite reads back: every case an error, never other rows.

The files are real: envelope files `cqlite delta-export` writes of the
bundled example tables, and of a warehouse after a first `cqlite
materialize`, its row index (Parquet) and its current snapshot's manifest
list (Avro), both of which the next run reads. Each is damaged in every way
of the matrix: truncated at every sixteenth of its length, a bit flipped in
the footer (Parquet) or header (Avro), in the first page header, in the
data, and a wrong magic at either end. Every case must give a non-zero exit
and one line on stderr naming the file and a byte offset; for the warehouse
files, the run must commit nothing (the catalog and every file as before).
"""
import json
import pathlib
import re
import shutil
import struct

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "data" / "shop"
OFFSET = re.compile(r"\bbytes? (offset )?\d+")
# The first run evaluates TTLs before the example's TTL row runs out, the
# second after it, so that the second run has a row to delete and reads the
# row index and the manifest list to do so.
FIRST_NOW, SECOND_NOW = "2027-01-01T00:00:00Z", "2028-01-01T00:00:00Z"


def parquet_cases(data):
    footer_length = struct.unpack("<I", data[-8:-4])[0]
    footer_start = len(data) - 8 - footer_length
    cases = [(f"truncated to {k}/16", data[:len(data) * k // 16]) for k in range(16)]

    def flip(at, name):
        b = bytearray(data)
        b[at] ^= 0x10
        cases.append((f"{name} (byte {at})", bytes(b)))

    for k in (1, 3, 5, 7):
        flip(footer_start + footer_length * k // 8, f"footer bit {k}/8")
    flip(4, "first page header")
    flip(6, "first page header size")
    flip(footer_start // 2, "page data")
    cases.append(("wrong leading magic", b"PAR2" + data[4:]))
    cases.append(("wrong trailing magic", data[:-4] + b"PAR2"))
    cases.append(("footer length", data[:-8] + struct.pack("<I", footer_length + 7) + data[-4:]))
    return cases


def avro_cases(data):
    cases = [(f"truncated to {k}/16", data[:len(data) * k // 16]) for k in range(16)]

    def flip(at, name):
        b = bytearray(data)
        b[at] ^= 0x10
        cases.append((f"{name} (byte {at})", bytes(b)))

    for at in (5, 20, 60):
        flip(at, "header")
    flip(len(data) // 2, "block data")
    flip(len(data) - 3, "last sync marker")
    cases.append(("wrong magic", b"Obj\x02" + data[4:]))
    return cases


def one_line_naming(proc, path):
    assert proc.returncode != 0 and proc.returncode < 128, f"exit {proc.returncode}:\n{proc.stderr}"
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got:\n{proc.stderr}"
    assert str(path) in lines[0], lines[0]
    assert OFFSET.search(lines[0]), f"no byte offset in: {lines[0]}"
    return lines[0]


@pytest.fixture(scope="module")
def envelope_files(cqlite, tmp_path_factory):
    out = tmp_path_factory.mktemp("envelopes")
    for table in sorted(EXAMPLE.glob("*-*")):
        copy = out / "data" / "shop" / table.name
        shutil.copytree(table, copy)
        shutil.copy(REPO / "examples" / "shop.cql", out / "data" / "shop" / "schema.cql")
        cqlite("delta-export", copy, "-o", out / table.name.split("-")[0])
    files = sorted(out.glob("*/*.parquet"))
    assert files
    return files


def test_envelope_files(cqlite, envelope_files, tmp_path):
    cases = 0
    for original in envelope_files:
        intact = cqlite("select", "--from-envelopes", original)
        assert intact.stdout, original
        for name, data in parquet_cases(original.read_bytes()):
            bad = tmp_path / f"bad-{original.name}"
            bad.write_bytes(data)
            proc = cqlite("select", "--from-envelopes", bad, check=False)
            assert proc.stdout == "", f"{original.name}, {name}: rows printed from a damaged file"
            one_line_naming(proc, bad)
            cases += 1
    assert cases >= 2 * 27


def tree(path):
    return sorted((str(p.relative_to(path)), p.read_bytes() if p.is_file() else None) for p in path.rglob("*"))


@pytest.fixture
def first_run(cqlite, tmp_path):
    """A warehouse after one run over shop.price_points, and the files the next run reads. (Its
    metadata names files by absolute paths, so it is damaged in place rather than copied.)"""
    source = sorted(EXAMPLE.glob("price_points-*"))[0]
    table = tmp_path / "data" / "shop" / source.name
    shutil.copytree(source, table)
    shutil.copy(REPO / "examples" / "shop.cql", table.parent / "schema.cql")
    warehouse = tmp_path / "warehouse"
    cqlite("materialize", table, "--warehouse", warehouse, "--now", FIRST_NOW, "--threads", "1", "-q")
    row_index = sorted(warehouse.rglob("cqlite/rows-*.parquet"))
    manifest_lists = sorted(warehouse.rglob("metadata/snap-*.avro"))
    assert len(row_index) == 1 and len(manifest_lists) == 1, (row_index, manifest_lists)
    return table, warehouse, row_index[0], manifest_lists[0]


def second_run(cqlite, table, warehouse, *extra, check=False):
    return cqlite("materialize", table, "--warehouse", warehouse, "--now", SECOND_NOW, "--threads", "1", *extra,
                  check=check)


@pytest.mark.parametrize("kind", ["row index", "manifest list"])
def test_warehouse_files(cqlite, first_run, kind):
    table, warehouse, row_index, manifest_list = first_run
    target = row_index if kind == "row index" else manifest_list
    original = target.read_bytes()
    cases = parquet_cases(original) if kind == "row index" else avro_cases(original)
    before = tree(warehouse)
    for name, data in cases:
        target.write_bytes(data)
        damaged = tree(warehouse)
        proc = second_run(cqlite, table, warehouse, "-q")
        try:
            assert proc.stdout == "", "a report printed"
            one_line_naming(proc, target)
        except AssertionError as e:
            raise AssertionError(f"{kind}, {name}: {e}") from None
        assert tree(warehouse) == damaged, f"{kind}, {name}: the refused run changed the warehouse"
        target.write_bytes(original)
    assert tree(warehouse) == before
    # Undamaged, the same run changes the table: it does read the file.
    report = json.loads(second_run(cqlite, table, warehouse, "--json", check=True).stdout)
    assert report["tables"][0]["rows_deleted"] == 1, report
