#!/usr/bin/env python3
"""Writes seed inputs for the fuzz targets that read files other programs write.

Usage: fuzz_file_seeds.py OUT_DIR [CQLITE_BINARY]

Run with the project's venv (pyarrow, DuckDB, fastavro and PyIceberg, from
tests/integration/requirements.txt) by scripts/fuzz.sh. Writes, under
OUT_DIR/<target>/, in each target's input layout (fuzz/fuzz_*.cc):

- fuzz_parquet: Parquet files pyarrow writes (every codec, PLAIN,
  dictionary and DELTA encodings, nested types, several row groups), DuckDB
  writes, PyIceberg writes, the Iceberg Java library (parquet-java) writes
  (data, position delete and equality delete files), and cqlite's own data
  and delete files;
- fuzz_thrift_compact: those files' footers and their first page headers;
- fuzz_envelope: cqlite's envelope files of the bundled example tables and
  Rust CQLite v1 files built with pyarrow;
- fuzz_avro: manifests and manifest lists PyIceberg, the Iceberg Java
  library and cqlite write, containers fastavro writes (null and deflate
  codecs), the Iceberg Java library's Avro data and delete files, and
  schema + datum pairs;
- fuzz_iceberg_metadata: table metadata, manifest lists and manifests of
  PyIceberg's, the Iceberg Java library's and cqlite's tables;
- fuzz_cli_values: --now and --where texts.

Seeds are written at fuzzing time and never committed. With no
CQLITE_BINARY, cqlite's own files are left out; without Java and Maven, the
Iceberg Java library's (tools/iceberg_readers/iceberg_java.sh write-sample).
"""
import glob
import io
import os
import pathlib
import shutil
import struct
import subprocess
import sys
import tempfile

import duckdb
import fastavro
import pyarrow as pa
import pyarrow.parquet as pq

REPO = pathlib.Path(__file__).resolve().parents[1]
MAX_SEED = 512 * 1024


class Seeds:
    def __init__(self, out):
        self.out = pathlib.Path(out)
        self.counts = {}

    def put(self, target, data):
        if not data or len(data) > MAX_SEED:
            return
        d = self.out / target
        d.mkdir(parents=True, exist_ok=True)
        n = self.counts.get(target, 0)
        (d / f"seed-{n:04d}").write_bytes(data)
        self.counts[target] = n + 1


def block(b):
    return struct.pack("<I", len(b)) + b


def parquet_footer(data):
    if len(data) < 12 or data[-4:] != b"PAR1":
        return None
    length = struct.unpack("<I", data[-8:-4])[0]
    return data[-8 - length:-8]


def add_parquet(seeds, data):
    seeds.put("fuzz_parquet", data)
    footer = parquet_footer(data)
    if footer:
        seeds.put("fuzz_thrift_compact", b"\x00" + footer)
    if data[:4] == b"PAR1":
        seeds.put("fuzz_thrift_compact", b"\x01" + data[4:4 + 256])


def pyarrow_files(seeds, tmp):
    n = 3000
    table = pa.table({
        "id": pa.array(range(n), pa.int64()),
        "small": pa.array([i % 7 if i % 11 else None for i in range(n)], pa.int32()),
        "name": pa.array([f"sensor-{i // 3:06d}" if i % 13 else None for i in range(n)]),
        "blob": pa.array([bytes([i % 256]) * (i % 9) for i in range(n)], pa.binary()),
        "f": pa.array([i / 7 for i in range(n)], pa.float64()),
        "flag": pa.array([i % 3 == 0 for i in range(n)]),
        "ts": pa.array([1_700_000_000_000_000 + i for i in range(n)], pa.timestamp("us", tz="UTC")),
        "tags": pa.array([[f"t{j}" for j in range(i % 4)] if i % 5 else None for i in range(n)],
                         pa.list_(pa.string())),
        "attrs": pa.array([{"k": f"v{i % 10}"} for i in range(n)], pa.map_(pa.string(), pa.string())),
        "point": pa.array([{"x": i, "y": None if i % 2 else float(i)} for i in range(n)],
                          pa.struct([("x", pa.int32()), ("y", pa.float64())])),
        "amount": pa.array([i * 100 - 5000 for i in range(n)], pa.decimal128(12, 2)),
    })
    variants = [
        dict(compression="none"), dict(compression="snappy"), dict(compression="zstd"),
        dict(compression="gzip"), dict(compression="lz4"), dict(compression="brotli"),
        dict(use_dictionary=False, compression="none"),
        dict(use_dictionary=False, compression="none", column_encoding={
            "id": "DELTA_BINARY_PACKED", "small": "DELTA_BINARY_PACKED", "name": "DELTA_BYTE_ARRAY",
            "blob": "DELTA_LENGTH_BYTE_ARRAY", "f": "BYTE_STREAM_SPLIT"}),
        dict(compression="none", data_page_version="2.0"),
        dict(compression="none", row_group_size=500, data_page_size=1024),
    ]
    for k, options in enumerate(variants):
        path = tmp / f"pa-{k}.parquet"
        pq.write_table(table, path, **options)
        add_parquet(seeds, path.read_bytes())
    small = table.slice(0, 40)
    for k, options in enumerate(variants[:8]):
        path = tmp / f"pa-small-{k}.parquet"
        pq.write_table(small, path, **options)
        add_parquet(seeds, path.read_bytes())


def duckdb_files(seeds, tmp):
    con = duckdb.connect()
    for codec in ("uncompressed", "snappy", "zstd"):
        path = tmp / f"duck-{codec}.parquet"
        con.execute(
            "COPY (SELECT i AS id, 'v' || (i % 100) AS s, [i, i + 1] AS xs, {'a': i, 'b': 'x'} AS st, "
            "CASE WHEN i % 3 = 0 THEN NULL ELSE i * 1.5 END AS d FROM range(2000) t(i)) "
            f"TO '{path}' (FORMAT parquet, COMPRESSION {codec})")
        add_parquet(seeds, path.read_bytes())


def avro_files(seeds, tmp):
    schema = {"type": "record", "name": "r", "fields": [
        {"name": "id", "type": "long"},
        {"name": "s", "type": ["null", "string"]},
        {"name": "xs", "type": {"type": "array", "items": "int"}},
        {"name": "m", "type": {"type": "map", "values": "bytes"}},
        {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A", "B"]}},
        {"name": "f", "type": {"type": "fixed", "name": "F", "size": 4}},
        {"name": "d", "type": "double"},
    ]}
    records = [{"id": i, "s": None if i % 3 else f"s{i}", "xs": list(range(i % 4)), "m": {"k": b"v" * (i % 3)},
                "e": "AB"[i % 2], "f": b"abcd", "d": i / 3} for i in range(200)]
    for codec in ("null", "deflate"):
        buf = io.BytesIO()
        fastavro.writer(buf, fastavro.parse_schema(schema), records, codec=codec, sync_interval=512)
        seeds.put("fuzz_avro", b"\x00" + buf.getvalue())
    import json
    for record in records[:20]:
        buf = io.BytesIO()
        fastavro.schemaless_writer(buf, fastavro.parse_schema(schema), record)
        seeds.put("fuzz_avro", b"\x01" + block(json.dumps(schema).encode()) + buf.getvalue())


def iceberg_table_files(seeds, root):
    """Every metadata, manifest list, manifest and Parquet file under a warehouse."""
    for path in sorted(pathlib.Path(root).rglob("*")):
        if not path.is_file():
            continue
        data = path.read_bytes()
        if path.name.endswith(".metadata.json"):
            seeds.put("fuzz_iceberg_metadata", b"\x00" + data)
        elif path.suffix == ".avro":
            seeds.put("fuzz_avro", b"\x00" + data)
            if path.parent.name == "metadata":  # not an Avro data or delete file
                is_list = path.name.startswith("snap-")
                seeds.put("fuzz_iceberg_metadata", (b"\x01" if is_list else b"\x02") + data)
        elif path.suffix == ".parquet":
            add_parquet(seeds, data)


def pyiceberg_table(seeds, tmp):
    from pyiceberg.catalog.sql import SqlCatalog
    warehouse = tmp / "pyiceberg"
    warehouse.mkdir()
    catalog = SqlCatalog("seeds", uri=f"sqlite:///{warehouse}/catalog.db", warehouse=f"file://{warehouse}")
    catalog.create_namespace("ks")
    data = pa.table({"id": pa.array(range(100), pa.int64()), "s": pa.array([f"v{i}" for i in range(100)])})
    table = catalog.create_table("ks.t", schema=data.schema)
    table.append(data)
    table.delete("id < 10")
    table.append(data.slice(0, 5))
    iceberg_table_files(seeds, warehouse)


def iceberg_java_tables(seeds, tmp):
    out = tmp / "iceberg-java"
    tool = REPO / "tools" / "iceberg_readers" / "iceberg_java.sh"
    if not (shutil.which("java") and shutil.which("mvn")):
        print("fuzz_file_seeds.py: no java and mvn: leaving out the Iceberg Java library's files", file=sys.stderr)
        return
    subprocess.run([str(tool), "write-sample", str(out)], check=True)
    iceberg_table_files(seeds, out)


def cqlite_files(seeds, tmp, cqlite):
    warehouse = tmp / "cqlite"
    for table in sorted((REPO / "examples" / "data" / "shop").glob("*-*")):
        subprocess.run([cqlite, "materialize", str(table), "--warehouse", str(warehouse), "--now", "1800000000"],
                       check=True, capture_output=True)
        out = tmp / f"env-{table.name}"
        subprocess.run([cqlite, "delta-export", str(table), "-o", str(out)], check=True, capture_output=True)
        for f in sorted(out.glob("*.parquet")):
            seeds.put("fuzz_envelope", b"\x00" + f.read_bytes())
            add_parquet(seeds, f.read_bytes())
    iceberg_table_files(seeds, warehouse)


def v1_envelopes(seeds, tmp):
    bound = pa.struct([pa.field("ck1", pa.int32()), pa.field("ck2", pa.utf8()),
                       pa.field("inclusive", pa.bool_(), nullable=False)])

    def cell(t, replaced=False):
        fields = [pa.field("value", t), pa.field("writetime", pa.int64(), nullable=False),
                  pa.field("expires_at", pa.int64())]
        if replaced:
            fields.append(pa.field("replaced", pa.bool_(), nullable=False))
        return pa.struct(fields)

    schema = pa.schema([
        pa.field("pk", pa.int32(), nullable=False), pa.field("ck1", pa.int32()), pa.field("ck2", pa.utf8()),
        pa.field("s", cell(pa.utf8())), pa.field("v", cell(pa.utf8())), pa.field("n", cell(pa.int32())),
        pa.field("tags", cell(pa.list_(pa.field("item", pa.utf8())), replaced=True)),
        pa.field("__op", pa.dictionary(pa.int8(), pa.utf8()), nullable=False), pa.field("__ts", pa.int64()),
        pa.field("__range_start", bound), pa.field("__range_end", bound)])
    rows = []
    for i in range(30):
        row = {"pk": i % 4, "ck1": i, "ck2": f"c{i}", "s": None, "v": {"value": f"v{i}", "writetime": 100 + i,
               "expires_at": None}, "n": None, "tags": {"value": ["a", "b"], "writetime": 100, "expires_at": None,
               "replaced": True}, "__op": "upsert", "__ts": 100 + i, "__range_start": None, "__range_end": None}
        rows.append(row)
    rows.append({**rows[0], "__op": "partition_delete", "ck1": None, "ck2": None, "v": None, "tags": None})
    rows.append({**rows[1], "__op": "range_delete", "ck1": None, "ck2": None, "v": None, "tags": None,
                 "__range_start": {"ck1": 2, "ck2": None, "inclusive": True},
                 "__range_end": {"ck1": 5, "ck2": "x", "inclusive": False}})
    table = pa.Table.from_pylist(rows, schema=schema).replace_schema_metadata({
        "cqlite.delta.version": "1", "cqlite.delta.source": "seed", "cqlite.delta.schema_hash": "0",
        "cqlite.version": "0.0.0"})
    for k, options in enumerate([{}, {"use_dictionary": False, "compression": "none"}]):
        path = tmp / f"v1-{k}.parquet"
        pq.write_table(table, path, **options)
        seeds.put("fuzz_envelope", b"\x01" + path.read_bytes())


def cli_values(seeds):
    for text in ["1796207415\nregion=eu", "2026-12-02T10:30:15Z\nregion='eu'\nday=2026-12-02",
                 "2027-01-01T10:30:00+02:00\nshard=7\nid=12345678-9abc-4def-8011-223344556677",
                 "2024-02-29\n\"region\"=eu\nat=5", "0\nregion"]:
        seeds.put("fuzz_cli_values", text.encode())


def main():
    out = sys.argv[1]
    cqlite = sys.argv[2] if len(sys.argv) > 2 else None
    seeds = Seeds(out)
    with tempfile.TemporaryDirectory() as d:
        tmp = pathlib.Path(d)
        pyarrow_files(seeds, tmp)
        duckdb_files(seeds, tmp)
        avro_files(seeds, tmp)
        pyiceberg_table(seeds, tmp)
        iceberg_java_tables(seeds, tmp)
        v1_envelopes(seeds, tmp)
        if cqlite and os.access(cqlite, os.X_OK):
            cqlite_files(seeds, tmp, cqlite)
        else:
            print("fuzz_file_seeds.py: no cqlite binary: leaving out cqlite's own files", file=sys.stderr)
    cli_values(seeds)
    for target, n in sorted(seeds.counts.items()):
        print(f"fuzz_file_seeds.py: {target}: {n} seeds")


if __name__ == "__main__":
    main()
