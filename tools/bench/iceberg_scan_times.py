"""Scan times, row count, content hash and file counts of one Iceberg table of a
SQLite JDBC catalog, for bench/run_maintain_bench.sh.

    iceberg_scan_times.py <catalog.db> <warehouse> <catalog-name> <namespace> <table> <reps>

Runs in the repository's .venv (PyIceberg); DuckDB runs in the DuckDB reader's
own environment (tests/integration/iceberg_readers.py, duckdb_python()), as
bench/iceberg_content_hash.py does. Each timed scan starts from the table's
name or metadata file, so reading the metadata, manifests and delete files
is part of it, as it is for any reader:

  pyiceberg        SqlCatalog.load_table + scan().to_arrow() (default workers)
  duckdb_count     SELECT count(*) FROM iceberg_scan('<metadata.json>')
  duckdb_hash      count(*) and the sum of hash() of every row as text, over
                   iceberg_scan (bench/iceberg_content_hash.py's rendering: the
                   hash the bench compares)

each <reps> times in one process (DuckDB's extensions loaded once, before the
clock). Untimed, from the table's current snapshot (PyIceberg) and the disk:
live data files and delete files with their rows and bytes, how many of the
delete files can still apply to a live data file (a data sequence number not
below the lowest of the live data files'), snapshots, manifests, and the
files under the table's data/ and metadata/ directories.

Prints one JSON object:
  {"metadata", "pyiceberg": {"seconds": [...], "rows"}, "duckdb_count": {...},
   "duckdb_hash": {"seconds": [...], "rows", "hash"}, "table": {...}}
and fails if the readers disagree on the row count.
"""
import json
import os
import pathlib
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "tests" / "integration"))
sys.path.insert(0, str(ROOT / "bench"))

import iceberg_readers  # noqa: E402


def duckdb_main(location, reps):
    """Runs inside the DuckDB environment: times count(*) and the content hash."""
    import duckdb

    import iceberg_content_hash

    con = duckdb.connect(config={"autoinstall_known_extensions": "false"})
    for name in ("avro", "iceberg"):
        con.execute(f"LOAD '{iceberg_readers._duckdb_extension(name)}'")
    path = iceberg_readers._local_path(location)
    scan = "iceberg_scan('" + str(path).replace("'", "''") + "')"
    columns = sorted((r[0], r[1]) for r in con.execute(f"DESCRIBE SELECT * FROM {scan}").fetchall())
    row_text = " || chr(31) || ".join(iceberg_content_hash.column_text(n, t) for n, t in columns)
    out = {"duckdb_count": {"seconds": []}, "duckdb_hash": {"seconds": []}}
    for _ in range(reps):
        start = time.perf_counter()
        rows = con.execute(f"SELECT count(*) FROM {scan}").fetchone()[0]
        out["duckdb_count"]["seconds"].append(time.perf_counter() - start)
        out["duckdb_count"]["rows"] = rows
    for _ in range(reps):
        start = time.perf_counter()
        rows, total = con.execute(f"SELECT count(*), CAST(sum(hash({row_text})) AS VARCHAR) FROM {scan}").fetchone()
        out["duckdb_hash"]["seconds"].append(time.perf_counter() - start)
        if "hash" in out["duckdb_hash"] and (rows, total) != (out["duckdb_hash"]["rows"], out["duckdb_hash"]["hash"]):
            sys.exit(f"iceberg_scan_times.py: DuckDB gave two different hashes of {location}")
        out["duckdb_hash"].update(rows=rows, hash=total)
    out["duckdb_hash"]["columns"] = [f"{n} {t}" for n, t in columns]
    json.dump(out, sys.stdout)


def table_files(tbl):
    """Counts of the current snapshot's files and of the files on disk."""
    snapshot = tbl.current_snapshot()
    manifests = snapshot.manifests(tbl.io) if snapshot else []
    data, deletes = [], []
    for manifest in manifests:
        for entry in manifest.fetch_manifest_entry(tbl.io, discard_deleted=True):
            f = {"record_count": entry.data_file.record_count, "file_size_in_bytes": entry.data_file.file_size_in_bytes,
                 "sequence_number": entry.sequence_number}
            (data if entry.data_file.content.value == 0 else deletes).append(f)
    # A delete file applies to data files of its data sequence number or
    # lower (position deletes): one older than every live data file is dangling.
    min_data_sequence = min((f["sequence_number"] for f in data), default=None)
    applicable = [f for f in deletes if min_data_sequence is not None and f["sequence_number"] >= min_data_sequence]
    location = iceberg_readers._local_path(tbl.metadata.location)

    def on_disk(sub):
        n, size = 0, 0
        for dirpath, _, names in os.walk(os.path.join(location, sub)):
            for name in names:
                n += 1
                size += os.path.getsize(os.path.join(dirpath, name))
        return n, size

    disk_data = on_disk("data")
    disk_metadata = on_disk("metadata")
    return {
        "data_files": len(data),
        "data_rows": sum(f["record_count"] for f in data),
        "data_bytes": sum(f["file_size_in_bytes"] for f in data),
        "delete_files": len(deletes),
        "deleted_positions": sum(f["record_count"] for f in deletes),
        "delete_bytes": sum(f["file_size_in_bytes"] for f in deletes),
        "delete_files_applicable": len(applicable),
        "snapshots": len(tbl.metadata.snapshots),
        "manifests": len(manifests),
        "snapshot_operation": snapshot.summary.operation.value if snapshot and snapshot.summary else None,
        "files_under_data": disk_data[0],
        "bytes_under_data": disk_data[1],
        "files_under_metadata": disk_metadata[0],
        "bytes_under_metadata": disk_metadata[1],
    }


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--in-duckdb-env":
        duckdb_main(sys.argv[2], int(sys.argv[3]))
        return
    if len(sys.argv) != 7:
        sys.exit("usage: iceberg_scan_times.py <catalog.db> <warehouse> <catalog-name> <namespace> <table> <reps>")
    catalog_file, warehouse, catalog_name, ns, table, reps = sys.argv[1:]
    reps = int(reps)
    location = iceberg_readers.metadata_location(catalog_file, catalog_name, ns, table)
    out = {"metadata": location, "pyiceberg": {"seconds": []}}
    for _ in range(reps):
        start = time.perf_counter()
        catalog = iceberg_readers._pyiceberg_catalog(catalog_file, warehouse, catalog_name)
        tbl = catalog.load_table(iceberg_readers._ns_tuple(ns) + (table,))
        rows = tbl.scan().to_arrow().num_rows
        out["pyiceberg"]["seconds"].append(time.perf_counter() - start)
        out["pyiceberg"]["rows"] = rows
        del tbl, catalog
    catalog = iceberg_readers._pyiceberg_catalog(catalog_file, warehouse, catalog_name)
    out["table"] = table_files(catalog.load_table(iceberg_readers._ns_tuple(ns) + (table,)))
    proc = subprocess.run([str(iceberg_readers.duckdb_python()), __file__, "--in-duckdb-env", location, str(reps)],
                          stdout=subprocess.PIPE, check=True, text=True)
    out.update(json.loads(proc.stdout))
    counts = {out[k]["rows"] for k in ("pyiceberg", "duckdb_count", "duckdb_hash")}
    print(json.dumps(out))
    if len(counts) != 1:
        sys.exit(f"iceberg_scan_times.py: the readers disagree on the row count of {location}: {sorted(counts)}")


if __name__ == "__main__":
    main()
