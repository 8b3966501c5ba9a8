"""Iceberg Java checks of CQLite's Puffin files and deletion vectors.

`puffin_dv_tool` (src/iceberg/tools) writes Puffin files of deletion-vector-v1
blobs with our codec; Iceberg Java's own Puffin reader lists them and its
PositionDeleteIndex.deserialize decodes each vector, given the DeleteFile
fields (content offset, content size, record count) a v3 manifest would hold
(tools/iceberg_readers/iceberg_java.sh dv-read). The other direction too:
Iceberg Java writes deletion vectors as its DV writer does (dv-write) and our
reader decodes them. Expected positions are the ones each test chose, and
blob metadata is compared with what Iceberg Java itself writes.
"""
import json
import os
import pathlib
import subprocess

import pytest

from iceberg_readers import _java

REPO = pathlib.Path(__file__).resolve().parents[2]

# Positions that exercise each part of the layout: the 32-bit key boundary,
# several keys, and containers of all three kinds (array, bitmap, run).
# Iceberg Java keeps one slot per key up to the highest (RoaringPositionBitmap),
# so keys near 2^31 (positions near 2^63) are too large for its heap; the unit
# tests cover those.
EDGES = [0, 1, 65535, 65536, 2**32 - 1, 2**32, 2**32 + 65536, 2**40 + 7, 2**44 + 2**32 - 1]
SPARSE = list(range(3, 300_000, 997))                         # arrays
DENSE = list(range(1 << 20, (1 << 20) + 100_000, 3))          # bitmaps (no runs)
RUNS = list(range(5 << 32, (5 << 32) + 200_000))              # runs
RUNS_LOW = list(range(1000, 200_000)) + [300_000, 300_002]     # runs and an array
MIXED = sorted(set(SPARSE + DENSE + [p + (1 << 33) for p in range(70_000, 90_000)]))


def tool_binary() -> pathlib.Path:
    explicit = os.environ.get("CQLITE_PUFFIN_DV_TOOL_BIN")
    if explicit:
        return pathlib.Path(explicit)
    return REPO / "build" / "src" / "iceberg" / "puffin_dv_tool"


def run_tool(*args, check=True):
    binary = tool_binary()
    if not binary.exists():
        pytest.fail(f"{binary} is missing: build the project first")
    proc = subprocess.run([str(binary), *map(str, args)], capture_output=True, text=True, timeout=300)
    if check and proc.returncode != 0:
        raise AssertionError(f"puffin_dv_tool {' '.join(map(str, args))} failed:\n{proc.stderr}")
    return proc


VECTORS = {
    "s3://bucket/t/data/edges.parquet": EDGES,
    "/t/data/empty.parquet": [],
    "/t/data/one.parquet": [42],
    "/t/data/sparse.parquet": SPARSE,
    "/t/data/dense.parquet": DENSE,
    "/t/data/runs.parquet": RUNS,
    "/t/data/runs-low.parquet": RUNS_LOW,
    "/t/data/mixed.parquet": MIXED,
}


@pytest.fixture(scope="module")
def ours(tmp_path_factory):
    out = tmp_path_factory.mktemp("puffin-ours")
    spec = out / "vectors.json"
    spec.write_text(json.dumps([{"referenced_data_file": k, "positions": v} for k, v in VECTORS.items()]))
    puffin = out / "ours.puffin"
    written = json.loads(run_tool("write", puffin, spec).stdout)
    return puffin, written


def test_iceberg_java_reads_our_deletion_vectors(ours):
    puffin, written = ours
    read = _java("dv-read", puffin)[0]
    assert read["file_size"] == puffin.stat().st_size
    blobs = read["blobs"]
    assert [b["properties"]["referenced-data-file"] for b in blobs] == list(VECTORS)
    for blob, manifest_fields in zip(blobs, written):
        data_file = blob["properties"]["referenced-data-file"]
        assert blob["type"] == "deletion-vector-v1"
        assert blob["positions"] == VECTORS[data_file], data_file
        assert blob["cardinality"] == len(VECTORS[data_file])
        assert blob["properties"]["cardinality"] == str(len(VECTORS[data_file]))
        assert blob["compression_codec"] is None
        assert blob["snapshot_id"] == -1 and blob["sequence_number"] == -1
        # The manifest fields we give for the blob are the ones Java finds.
        assert manifest_fields["referenced_data_file"] == data_file
        assert manifest_fields["content_offset"] == blob["offset"]
        assert manifest_fields["content_size_in_bytes"] == blob["length"]
        assert manifest_fields["record_count"] == len(VECTORS[data_file])
        assert manifest_fields["file_size_in_bytes"] == read["file_size"]


def test_we_read_iceberg_java_deletion_vectors(tmp_path):
    puffin = tmp_path / "java.puffin"
    tsv = tmp_path / "vectors.tsv"
    # Iceberg Java writes no empty vectors; our empty one is checked above.
    tsv.write_text("".join(f"{data_file}\t{','.join(map(str, positions))}\n"
                           for data_file, positions in VECTORS.items() if positions))
    java_written = _java("dv-write", puffin, tsv)[0]
    read = json.loads(run_tool("read", puffin).stdout)
    assert read["properties"] == {"created-by": "Iceberg Java test writer"}
    assert len(read["blobs"]) == len(java_written["blobs"])
    for ours_blob, java_blob in zip(read["blobs"], java_written["blobs"]):
        data_file = java_blob["properties"]["referenced-data-file"]
        assert ours_blob["positions"] == VECTORS[data_file], data_file
        for key in ("type", "offset", "length", "snapshot_id", "sequence_number", "properties"):
            assert ours_blob[key] == java_blob[key], key


def test_our_blob_metadata_matches_iceberg_javas(ours, tmp_path):
    """Same vectors written by both: same blob bytes' meaning, same metadata fields."""
    puffin, _ = ours
    java_puffin = tmp_path / "java.puffin"
    tsv = tmp_path / "one.tsv"
    tsv.write_text("/t/data/one.parquet\t42\n")
    java_written = _java("dv-write", java_puffin, tsv)[0]["blobs"][0]
    our_blob = next(b for b in _java("dv-read", puffin)[0]["blobs"]
                    if b["properties"]["referenced-data-file"] == "/t/data/one.parquet")
    for key in ("type", "fields", "snapshot_id", "sequence_number", "length", "compression_codec", "properties"):
        assert our_blob[key] == java_written[key], key


def test_corrupt_puffin_is_an_error_naming_the_file(ours, tmp_path):
    puffin, _ = ours
    data = bytearray(puffin.read_bytes())
    bad = tmp_path / "bad.puffin"
    # A flipped byte inside the first vector: the CRC no longer matches.
    data[4 + 12] ^= 0xFF
    bad.write_bytes(bytes(data))
    proc = run_tool("read", bad, check=False)
    assert proc.returncode == 1
    assert str(bad) in proc.stderr and "CRC" in proc.stderr
    # Cut off: no footer.
    bad.write_bytes(puffin.read_bytes()[:-3])
    proc = run_tool("read", bad, check=False)
    assert proc.returncode == 1
    assert str(bad) in proc.stderr and "at byte" in proc.stderr


def test_our_blobs_are_byte_for_byte_iceberg_javas(ours, tmp_path):
    """Each vector's blob (length, magic, Roaring containers, CRC) is the one Iceberg Java writes.

    Only for vectors with every position below 2^32: Iceberg Java writes an
    empty 32-bit bitmap for every key below the highest, which we leave out
    (both are valid; each reader reads the other's, above).
    """
    puffin, written = ours
    java_puffin = tmp_path / "java.puffin"
    tsv = tmp_path / "vectors.tsv"
    tsv.write_text("".join(f"{data_file}\t{','.join(map(str, positions))}\n"
                           for data_file, positions in VECTORS.items() if positions))
    java_blobs = _java("dv-write", java_puffin, tsv)[0]["blobs"]
    java_bytes, our_bytes = java_puffin.read_bytes(), puffin.read_bytes()
    ours_by_file = {w["referenced_data_file"]: w for w in written}
    assert len(java_blobs) == len([v for v in VECTORS.values() if v])
    compared = 0
    for java_blob in java_blobs:
        data_file = java_blob["properties"]["referenced-data-file"]
        if max(VECTORS[data_file]) >= 2**32:
            continue
        compared += 1
        mine = ours_by_file[data_file]
        expected = java_bytes[java_blob["offset"]:java_blob["offset"] + java_blob["length"]]
        actual = our_bytes[mine["content_offset"]:mine["content_offset"] + mine["content_size_in_bytes"]]
        assert actual == expected, data_file
    assert compared == 4  # one, sparse (arrays), dense (bitmaps), runs-low (runs)
