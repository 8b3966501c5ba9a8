"""Iceberg Java reads CQLite's format version 3 metadata.

`manifest_write_sample write-v3` (src/iceberg/tools) writes a small v3 table
with our codec: table metadata with row lineage, v3 manifest lists, data
manifests and a delete manifest of two deletion vectors in a Puffin file.
Iceberg Java parses it all with its own code (TableMetadataParser.fromJson,
Snapshot.allManifests, ManifestFiles.read and readDeleteManifest, through
tools/iceberg_readers/iceberg_java.sh v3-read). Expected values are what the
tool was told to write (see its header) and the spec's row-lineage rules;
the deletion vectors' offsets and sizes are checked against the blobs Iceberg
Java's own Puffin reader finds in the file.
"""
import json
import os
import pathlib
import subprocess

import pytest

from iceberg_readers import _java

REPO = pathlib.Path(__file__).resolve().parents[2]


def tool_binary() -> pathlib.Path:
    explicit = os.environ.get("CQLITE_MANIFEST_SAMPLE_BIN")
    if explicit:
        return pathlib.Path(explicit)
    return REPO / "build" / "src" / "iceberg" / "manifest_write_sample"


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    binary = tool_binary()
    if not binary.exists():
        pytest.fail(f"{binary} is missing: build the project first")
    out = tmp_path_factory.mktemp("v3-table")
    proc = subprocess.run([str(binary), "write-v3", str(out)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    metadata_path = pathlib.Path(proc.stdout.strip())
    return out, metadata_path, _java("v3-read", metadata_path)[0]


def test_iceberg_java_reads_v3_table_metadata(table):
    _, _, read = table
    assert read["format_version"] == 3
    # 1010 rows in the first snapshot, 25 in the second.
    assert read["next_row_id"] == 1035
    assert read["current_snapshot_id"] == 1000002
    snapshots = {s["snapshot_id"]: s for s in read["snapshots"]}
    assert set(snapshots) == {1000001, 1000002}
    assert (snapshots[1000001]["first_row_id"], snapshots[1000001]["added_rows"]) == (0, 1010)
    assert (snapshots[1000002]["first_row_id"], snapshots[1000002]["added_rows"]) == (1010, 25)


def test_iceberg_java_reads_v3_manifest_lists_and_row_ids(table):
    out, _, read = table
    snapshots = {s["snapshot_id"]: s for s in read["snapshots"]}
    first = snapshots[1000001]["manifests"]
    assert [(m["path"], m["content"], m["first_row_id"]) for m in first] == [
        (str(out / "metadata/m1.avro"), "DATA", 0)]
    # Data files inherit first_row_id from the manifest's, in order.
    assert [(f["path"], f["record_count"], f["first_row_id"]) for f in first[0]["files"]] == [
        (str(out / "data/a.parquet"), 1000, 0), (str(out / "data/b.parquet"), 10, 1000)]

    second = {pathlib.Path(m["path"]).name: m for m in snapshots[1000002]["manifests"]}
    assert set(second) == {"m1.avro", "m2.avro", "m3-deletes.avro"}
    assert second["m1.avro"]["first_row_id"] == 0  # kept from the first snapshot
    assert second["m2.avro"]["first_row_id"] == 1010
    assert second["m3-deletes.avro"]["first_row_id"] is None
    assert second["m3-deletes.avro"]["content"] == "DELETES"
    assert [(f["path"], f["first_row_id"], f["data_sequence_number"]) for f in second["m2.avro"]["files"]] == [
        (str(out / "data/c.parquet"), 1010, 2)]
    for f in second["m1.avro"]["files"] + second["m2.avro"]["files"]:
        assert f["content"] == "DATA" and f["format"] == "PARQUET"


def test_iceberg_java_reads_our_deletion_vector_entries(table):
    out, _, read = table
    current = next(s for s in read["snapshots"] if s["snapshot_id"] == 1000002)
    deletes = next(m for m in current["manifests"] if m["content"] == "DELETES")
    puffin = out / "data/dvs.puffin"
    # Where Iceberg Java's Puffin reader finds each vector in the file.
    blobs = {b["properties"]["referenced-data-file"]: b for b in _java("dv-read", puffin)[0]["blobs"]}
    expected_positions = {str(out / "data/a.parquet"): [0, 5, 999], str(out / "data/b.parquet"): [1, 2, 3, 4]}
    files = deletes["files"]
    assert [f["referenced_data_file"] for f in files] == list(expected_positions)
    for f in files:
        data_file = f["referenced_data_file"]
        assert f["content"] == "POSITION_DELETES"
        assert f["format"] == "PUFFIN"
        assert f["path"] == str(puffin)
        assert f["file_size_in_bytes"] == puffin.stat().st_size
        assert f["record_count"] == len(expected_positions[data_file])
        assert f["first_row_id"] is None
        assert f["data_sequence_number"] == 2
        assert f["content_offset"] == blobs[data_file]["offset"]
        assert f["content_size_in_bytes"] == blobs[data_file]["length"]
        assert blobs[data_file]["positions"] == expected_positions[data_file]


def test_java_rejects_a_v3_table_without_next_row_id(table, tmp_path):
    """The check above has teeth: the same metadata without next-row-id fails in Java."""
    _, metadata_path, _ = table
    text = json.loads(metadata_path.read_text())
    del text["next-row-id"]
    broken = tmp_path / "broken.metadata.json"
    broken.write_text(json.dumps(text))
    with pytest.raises(RuntimeError):
        _java("v3-read", broken)
