"""Independent-reader checks of CQLite's Avro codec and Iceberg manifests.

`manifest_write_sample` (src/iceberg/tools) writes a data manifest, a delete
manifest and a manifest list with known contents; fastavro reads them here.
The other direction too: fastavro writes a manifest list and a manifest shaped
like Iceberg Java's (with docs and fields we do not write), and the sample
tool reads them through iceberg/manifest.h. Expected values are written out by
hand from the sample's definition, not produced by CQLite.
"""
import json
import os
import pathlib
import struct
import subprocess

import pytest

fastavro = pytest.importorskip("fastavro")

REPO = pathlib.Path(__file__).resolve().parents[2]
SNAPSHOT = 3051729675574597004
PARENT = 3051729675574597003


def sample_binary() -> pathlib.Path:
    explicit = os.environ.get("CQLITE_MANIFEST_SAMPLE_BIN")
    if explicit:
        return pathlib.Path(explicit)
    return REPO / "build" / "src" / "iceberg" / "manifest_write_sample"


def run_sample(*args):
    binary = sample_binary()
    if not binary.exists():
        pytest.fail(f"{binary} is missing: build the project first")
    proc = subprocess.run([str(binary), *map(str, args)], capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise AssertionError(f"manifest_write_sample {' '.join(map(str, args))} failed:\n{proc.stderr}")
    return proc.stdout


@pytest.fixture(scope="module")
def samples(tmp_path_factory):
    out = tmp_path_factory.mktemp("manifest-samples")
    run_sample("write", out)
    return out


def read_avro(path):
    with open(path, "rb") as f:
        reader = fastavro.reader(f)
        return reader.writer_schema, reader.metadata, list(reader)


def field_ids(schema):
    """{dotted field name: field-id} over a record schema and nested records."""
    ids = {}

    def walk(record, prefix):
        for field in record["fields"]:
            name = prefix + field["name"]
            ids[name] = field.get("field-id")
            types = field["type"] if isinstance(field["type"], list) else [field["type"]]
            for t in types:
                if isinstance(t, dict) and t.get("type") == "record":
                    walk(t, name + ".")
                if isinstance(t, dict) and t.get("type") == "array" and isinstance(t["items"], dict) \
                        and t["items"].get("type") == "record":
                    walk(t["items"], name + ".")

    walk(schema, "")
    return ids


def raw_schema(metadata):
    return json.loads(metadata["avro.schema"])


def le64(v):
    return struct.pack("<q", v)


def test_data_manifest_schema_and_metadata(samples):
    _, metadata, _ = read_avro(samples / "data-manifest.avro")
    assert metadata["avro.codec"] == "deflate"
    assert metadata["format-version"] == "2"
    assert metadata["content"] == "data"
    assert metadata["partition-spec"] == "[]"
    assert metadata["partition-spec-id"] == "0"
    assert metadata["schema-id"] == "0"
    table_schema = json.loads(metadata["schema"])
    assert [f["id"] for f in table_schema["fields"]] == [1, 2]

    schema = raw_schema(metadata)
    assert schema["name"] == "manifest_entry"
    ids = field_ids(schema)
    expected = {
        "status": 0, "snapshot_id": 1, "sequence_number": 3, "file_sequence_number": 4, "data_file": 2,
        "data_file.content": 134, "data_file.file_path": 100, "data_file.file_format": 101,
        "data_file.partition": 102, "data_file.record_count": 103, "data_file.file_size_in_bytes": 104,
        "data_file.column_sizes": 108, "data_file.column_sizes.key": 117, "data_file.column_sizes.value": 118,
        "data_file.value_counts": 109, "data_file.value_counts.key": 119, "data_file.value_counts.value": 120,
        "data_file.null_value_counts": 110, "data_file.null_value_counts.key": 121,
        "data_file.null_value_counts.value": 122,
        "data_file.nan_value_counts": 137, "data_file.nan_value_counts.key": 138,
        "data_file.nan_value_counts.value": 139,
        "data_file.lower_bounds": 125, "data_file.lower_bounds.key": 126, "data_file.lower_bounds.value": 127,
        "data_file.upper_bounds": 128, "data_file.upper_bounds.key": 129, "data_file.upper_bounds.value": 130,
        "data_file.key_metadata": 131, "data_file.split_offsets": 132, "data_file.equality_ids": 135,
        "data_file.sort_order_id": 140, "data_file.referenced_data_file": 143,
    }
    assert ids == expected
    assert not {105, 106, 107, 111} & set(ids.values())

    data_file = schema["fields"][4]["type"]
    assert data_file["name"] == "r2"
    by_name = {f["name"]: f for f in data_file["fields"]}
    assert by_name["partition"]["type"] == {"type": "record", "name": "r102", "fields": []}
    column_sizes = by_name["column_sizes"]
    assert column_sizes["type"][0] == "null" and column_sizes["default"] is None
    assert column_sizes["type"][1]["logicalType"] == "map"
    assert column_sizes["type"][1]["items"]["name"] == "k117_v118"
    assert by_name["lower_bounds"]["type"][1]["items"]["name"] == "k126_v127"
    assert by_name["split_offsets"]["type"][1]["element-id"] == 133
    assert by_name["equality_ids"]["type"][1]["element-id"] == 136
    for name in ("snapshot_id", "sequence_number", "file_sequence_number"):
        field = next(f for f in schema["fields"] if f["name"] == name)
        assert field["type"] == ["null", "long"] and field["default"] is None


def test_data_manifest_values(samples):
    _, _, records = read_avro(samples / "data-manifest.avro")
    assert [r["status"] for r in records] == [1, 0, 2]

    added = records[0]
    # ADDED entries leave snapshot id and sequence numbers to inheritance.
    assert added["snapshot_id"] is None
    assert added["sequence_number"] is None
    assert added["file_sequence_number"] is None
    f = added["data_file"]
    assert f["content"] == 0
    assert f["file_path"] == "s3://bucket/t/data/00000-added.parquet"
    assert f["file_format"] == "parquet"
    assert f["partition"] == {}
    assert f["record_count"] == 1000
    assert f["file_size_in_bytes"] == 65536
    assert f["column_sizes"] == [{"key": 1, "value": 8000}, {"key": 2, "value": 12000}]
    assert f["value_counts"] == [{"key": 1, "value": 1000}, {"key": 2, "value": 1000}]
    assert f["null_value_counts"] == [{"key": 1, "value": 0}, {"key": 2, "value": 17}]
    assert f["nan_value_counts"] is None
    assert f["lower_bounds"] == [{"key": 1, "value": le64(-5)}, {"key": 2, "value": b"apple"}]
    assert f["upper_bounds"] == [{"key": 1, "value": le64(994)}, {"key": 2, "value": b"zebra"}]
    assert f["key_metadata"] is None
    assert f["split_offsets"] == [4, 32768]
    assert f["equality_ids"] is None
    assert f["sort_order_id"] == 0
    assert f["referenced_data_file"] is None

    existing, deleted = records[1], records[2]
    assert (existing["snapshot_id"], existing["sequence_number"], existing["file_sequence_number"]) == (PARENT, 5, 6)
    assert existing["data_file"]["file_path"] == "s3://bucket/t/data/00001-existing.parquet"
    assert existing["data_file"]["record_count"] == 10
    assert existing["data_file"]["column_sizes"] is None
    assert (deleted["snapshot_id"], deleted["sequence_number"], deleted["file_sequence_number"]) == (SNAPSHOT, 4, 4)
    assert deleted["data_file"]["record_count"] == 20


def test_delete_manifest(samples):
    _, metadata, records = read_avro(samples / "delete-manifest.avro")
    assert metadata["content"] == "deletes"
    pos, eq = records
    assert pos["status"] == 1 and pos["snapshot_id"] is None
    assert pos["data_file"]["content"] == 1
    assert pos["data_file"]["referenced_data_file"] == "s3://bucket/t/data/00000-added.parquet"
    assert pos["data_file"]["equality_ids"] is None
    assert eq["data_file"]["content"] == 2
    assert eq["data_file"]["equality_ids"] == [1]
    assert eq["data_file"]["referenced_data_file"] is None


def test_manifest_list(samples):
    _, metadata, records = read_avro(samples / "manifest-list.avro")
    assert metadata["avro.codec"] == "deflate"
    assert metadata["snapshot-id"] == str(SNAPSHOT)
    assert metadata["parent-snapshot-id"] == str(PARENT)
    assert metadata["sequence-number"] == "7"
    assert metadata["format-version"] == "2"
    schema = raw_schema(metadata)
    assert schema["name"] == "manifest_file"
    ids = field_ids(schema)
    assert ids == {
        "manifest_path": 500, "manifest_length": 501, "partition_spec_id": 502, "content": 517,
        "sequence_number": 515, "min_sequence_number": 516, "added_snapshot_id": 503,
        "added_files_count": 504, "existing_files_count": 505, "deleted_files_count": 506,
        "added_rows_count": 512, "existing_rows_count": 513, "deleted_rows_count": 514,
        "partitions": 507, "partitions.contains_null": 509, "partitions.contains_nan": 518,
        "partitions.lower_bound": 510, "partitions.upper_bound": 511, "key_metadata": 519,
    }
    partitions = next(f for f in schema["fields"] if f["name"] == "partitions")
    assert partitions["type"][1]["element-id"] == 508
    assert partitions["type"][1]["items"]["name"] == "r508"

    data, deletes = records
    assert data["manifest_path"] == str(samples / "data-manifest.avro")
    assert data["manifest_length"] == (samples / "data-manifest.avro").stat().st_size
    assert data["partition_spec_id"] == 0
    assert data["content"] == 0
    assert data["sequence_number"] == 7
    assert data["min_sequence_number"] == 5  # the EXISTING entry's data sequence number
    assert data["added_snapshot_id"] == SNAPSHOT
    assert (data["added_files_count"], data["existing_files_count"], data["deleted_files_count"]) == (1, 1, 1)
    assert (data["added_rows_count"], data["existing_rows_count"], data["deleted_rows_count"]) == (1000, 10, 20)
    assert data["partitions"] == []
    assert data["key_metadata"] is None
    assert deletes["content"] == 1
    assert deletes["manifest_length"] == (samples / "delete-manifest.avro").stat().st_size
    assert (deletes["sequence_number"], deletes["min_sequence_number"]) == (7, 7)
    assert (deletes["added_files_count"], deletes["added_rows_count"]) == (2, 5)


def test_our_reader_reads_our_files_with_inheritance(samples):
    listed = json.loads(run_sample("read-list", samples / "manifest-list.avro"))
    assert [m["content"] for m in listed] == [0, 1]
    added, existing, deleted = listed[0]["entries"]
    assert (added["snapshot_id"], added["sequence_number"], added["file_sequence_number"]) == (SNAPSHOT, 7, 7)
    assert (existing["snapshot_id"], existing["sequence_number"], existing["file_sequence_number"]) == (PARENT, 5, 6)
    assert added["lower_bounds"] == {"1": le64(-5).hex(), "2": b"apple".hex()}


# Shaped like what Iceberg Java writes: docs on fields, v2 fields we do not
# write, a sort order, no schema-id metadata. Field order differs from ours.
JAVA_LIKE_ENTRY_SCHEMA = {
    "type": "record", "name": "manifest_entry", "fields": [
        {"name": "status", "type": "int", "field-id": 0},
        {"name": "snapshot_id", "type": ["null", "long"], "default": None, "field-id": 1},
        {"name": "sequence_number", "type": ["null", "long"], "default": None, "field-id": 3},
        {"name": "file_sequence_number", "type": ["null", "long"], "default": None, "field-id": 4},
        {"name": "data_file", "field-id": 2, "type": {"type": "record", "name": "r2", "fields": [
            {"name": "content", "type": "int", "doc": "Contents of the file", "field-id": 134},
            {"name": "file_path", "type": "string", "doc": "Location URI with FS scheme", "field-id": 100},
            {"name": "file_format", "type": "string", "field-id": 101},
            {"name": "partition", "type": {"type": "record", "name": "r102", "fields": []}, "field-id": 102},
            {"name": "record_count", "type": "long", "field-id": 103},
            {"name": "file_size_in_bytes", "type": "long", "field-id": 104},
            {"name": "value_counts", "type": ["null", {"type": "array", "logicalType": "map", "items": {
                "type": "record", "name": "k119_v120", "fields": [
                    {"name": "key", "type": "int", "field-id": 119},
                    {"name": "value", "type": "long", "field-id": 120}]}}], "default": None, "field-id": 109},
            {"name": "column_sizes", "type": ["null", {"type": "array", "logicalType": "map", "items": {
                "type": "record", "name": "k117_v118", "fields": [
                    {"name": "key", "type": "int", "field-id": 117},
                    {"name": "value", "type": "long", "field-id": 118}]}}], "default": None, "field-id": 108},
            {"name": "upper_bounds", "type": ["null", {"type": "array", "logicalType": "map", "items": {
                "type": "record", "name": "k129_v130", "fields": [
                    {"name": "key", "type": "int", "field-id": 129},
                    {"name": "value", "type": "bytes", "field-id": 130}]}}], "default": None, "field-id": 128},
            {"name": "key_metadata", "type": ["null", "bytes"], "default": None, "field-id": 131},
            {"name": "split_offsets", "type": ["null", {"type": "array", "items": "long", "element-id": 133}],
             "default": None, "field-id": 132},
            {"name": "sort_order_id", "type": ["null", "int"], "default": None, "field-id": 140},
            {"name": "first_row_id", "type": ["null", "long"], "default": None, "field-id": 142},
        ]}},
    ]}

JAVA_LIKE_LIST_SCHEMA = {
    "type": "record", "name": "manifest_file", "fields": [
        {"name": "manifest_path", "type": "string", "doc": "Location URI with FS scheme", "field-id": 500},
        {"name": "manifest_length", "type": "long", "field-id": 501},
        {"name": "partition_spec_id", "type": "int", "field-id": 502},
        {"name": "content", "type": "int", "field-id": 517},
        {"name": "sequence_number", "type": "long", "field-id": 515},
        {"name": "min_sequence_number", "type": "long", "field-id": 516},
        {"name": "added_snapshot_id", "type": "long", "field-id": 503},
        {"name": "added_files_count", "type": "int", "field-id": 504},
        {"name": "existing_files_count", "type": "int", "field-id": 505},
        {"name": "deleted_files_count", "type": "int", "field-id": 506},
        {"name": "added_rows_count", "type": "long", "field-id": 512},
        {"name": "existing_rows_count", "type": "long", "field-id": 513},
        {"name": "deleted_rows_count", "type": "long", "field-id": 514},
        {"name": "partitions", "type": ["null", {"type": "array", "items": {
            "type": "record", "name": "r508", "fields": [
                {"name": "contains_null", "type": "boolean", "field-id": 509},
                {"name": "contains_nan", "type": ["null", "boolean"], "default": None, "field-id": 518},
                {"name": "lower_bound", "type": ["null", "bytes"], "default": None, "field-id": 510},
                {"name": "upper_bound", "type": ["null", "bytes"], "default": None, "field-id": 511}]},
            "element-id": 508}], "default": None, "field-id": 507},
        {"name": "key_metadata", "type": ["null", "bytes"], "default": None, "field-id": 519},
    ]}


@pytest.mark.parametrize("codec", ["deflate", "null"])
def test_our_reader_reads_fastavro_files(tmp_path, codec):
    manifest_path = tmp_path / "java-like-manifest.avro"
    entries = [
        {"status": 1, "snapshot_id": 55, "sequence_number": None, "file_sequence_number": None,
         "data_file": {"content": 0, "file_path": "s3://b/t/data/a.parquet", "file_format": "PARQUET",
                       "partition": {}, "record_count": 3, "file_size_in_bytes": 300,
                       "value_counts": [{"key": 1, "value": 3}],
                       "column_sizes": [{"key": 1, "value": 24}, {"key": 2, "value": 40}],
                       "upper_bounds": [{"key": 1, "value": le64(3)}],
                       "key_metadata": None, "split_offsets": [4], "sort_order_id": 0, "first_row_id": None}},
        {"status": 0, "snapshot_id": 54, "sequence_number": 2, "file_sequence_number": 2,
         "data_file": {"content": 0, "file_path": "s3://b/t/data/b.parquet", "file_format": "PARQUET",
                       "partition": {}, "record_count": 7, "file_size_in_bytes": 700,
                       "value_counts": None, "column_sizes": None, "upper_bounds": None,
                       "key_metadata": None, "split_offsets": None, "sort_order_id": None, "first_row_id": None}},
    ]
    with open(manifest_path, "wb") as f:
        fastavro.writer(f, fastavro.parse_schema(JAVA_LIKE_ENTRY_SCHEMA), entries, codec=codec, sync_interval=64,
                        metadata={"schema": '{"type":"struct","fields":[]}', "partition-spec": "[]",
                                  "partition-spec-id": "0", "format-version": "2", "content": "data"})
    list_path = tmp_path / "java-like-list.avro"
    manifests = [{
        "manifest_path": str(manifest_path), "manifest_length": manifest_path.stat().st_size,
        "partition_spec_id": 0, "content": 0, "sequence_number": 3, "min_sequence_number": 2,
        "added_snapshot_id": 55, "added_files_count": 1, "existing_files_count": 1, "deleted_files_count": 0,
        "added_rows_count": 3, "existing_rows_count": 7, "deleted_rows_count": 0, "partitions": [],
        "key_metadata": None,
    }]
    with open(list_path, "wb") as f:
        fastavro.writer(f, fastavro.parse_schema(JAVA_LIKE_LIST_SCHEMA), manifests, codec=codec,
                        metadata={"snapshot-id": "55", "parent-snapshot-id": "54", "sequence-number": "3",
                                  "format-version": "2"})

    listed = json.loads(run_sample("read-list", list_path))
    assert len(listed) == 1
    m = listed[0]
    for key in ("manifest_path", "manifest_length", "sequence_number", "min_sequence_number", "added_snapshot_id",
                "added_files_count", "existing_files_count", "added_rows_count", "existing_rows_count"):
        assert m[key] == manifests[0][key], key
    added, existing = m["entries"]
    # Sequence numbers of the ADDED entry come from the manifest list.
    assert (added["status"], added["snapshot_id"], added["sequence_number"], added["file_sequence_number"]) == \
        (1, 55, 3, 3)
    assert added["file_path"] == "s3://b/t/data/a.parquet"
    assert added["file_format"] == "PARQUET"
    assert added["value_counts"] == {"1": 3}
    assert added["column_sizes"] == {"1": 24, "2": 40}
    assert added["upper_bounds"] == {"1": le64(3).hex()}
    assert added["split_offsets"] == [4]
    assert added["sort_order_id"] == 0
    assert (existing["status"], existing["snapshot_id"], existing["sequence_number"]) == (0, 54, 2)
    assert existing["record_count"] == 7

    # The generic dump reads every record of the fastavro file.
    dumped = json.loads(run_sample("dump", manifest_path))
    assert dumped["metadata"]["avro.codec"] == codec
    assert dumped["metadata"]["content"] == "data"
    assert len(dumped["records"]) == 2
    assert dumped["records"][1]["data_file"]["file_path"] == "s3://b/t/data/b.parquet"


def test_truncated_file_is_an_error_not_a_crash(samples, tmp_path):
    data = (samples / "data-manifest.avro").read_bytes()
    for cut in (3, 40, len(data) // 2, len(data) - 1):
        path = tmp_path / f"cut-{cut}.avro"
        path.write_bytes(data[:cut])
        proc = subprocess.run([str(sample_binary()), "dump", str(path)], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 1, (cut, proc.stderr)
        assert "Corruption" in proc.stderr and str(path) in proc.stderr
