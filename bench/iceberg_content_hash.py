"""Row count and an order-independent content hash of Iceberg tables, read by
DuckDB's iceberg extension (the environment tests/integration/iceberg_readers.py
sets up, tools/iceberg_readers/duckdb-requirements.txt).

    iceberg_content_hash.py <metadata.json>...

A location is a path, a file:// URI or an s3:// URI; s3:// ones are read
through DuckDB's httpfs extension from the endpoint and with the credentials
cqlite takes from the environment (CQLITE_S3_ENDPOINT, AWS_ACCESS_KEY_ID,
AWS_SECRET_ACCESS_KEY, AWS_REGION).

Prints one JSON line per table: {"metadata", "rows", "hash", "columns"}. The
hash is the sum over rows of DuckDB's hash() of the row as text: the columns
in name order, each rendered the same way whatever engine wrote the table
(timestamps as microseconds since the epoch, integers as BIGINT, doubles by
DuckDB's shortest round-trip text, sets/lists sorted, maps as their sorted
entries, NULL as \\N; an empty collection counts as NULL, as CQL does not tell
them apart), joined with a separator that no rendering leaves ambiguous.
"""
import json
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "integration"))

import iceberg_readers  # noqa: E402


def column_text(name, duck_type):
    col = '"' + name.replace('"', '""') + '"'
    t = duck_type.upper()
    if t.startswith("TIMESTAMP"):
        expr = f"CAST(epoch_us({col}) AS VARCHAR)"
    elif t in ("INTEGER", "BIGINT", "SMALLINT", "TINYINT"):
        expr = f"CAST(CAST({col} AS BIGINT) AS VARCHAR)"
    elif t.startswith("MAP("):
        expr = f"CASE WHEN cardinality({col}) = 0 THEN NULL ELSE CAST(list_sort(map_entries({col})) AS VARCHAR) END"
    elif t.endswith("[]"):
        expr = f"CASE WHEN len({col}) = 0 THEN NULL ELSE CAST(list_sort({col}) AS VARCHAR) END"
    else:
        expr = f"CAST({col} AS VARCHAR)"
    return f"coalesce({expr}, '\\N')"


def hash_main(locations):
    import duckdb
    con = duckdb.connect(config={"autoinstall_known_extensions": "false"})
    s3 = any(iceberg_readers.is_s3(location) for location in locations)
    for name in ("httpfs", "avro", "iceberg") if s3 else ("avro", "iceberg"):
        con.execute(f"LOAD '{iceberg_readers._duckdb_extension(name)}'")
    if s3:
        iceberg_readers._duckdb_s3_secret(con)
    for location in locations:
        path = location if iceberg_readers.is_s3(location) else iceberg_readers._local_path(location)
        quoted = "'" + str(path).replace("'", "''") + "'"
        con.execute(f"CREATE OR REPLACE VIEW t AS SELECT * FROM iceberg_scan({quoted})")
        columns = sorted((r[0], r[1]) for r in con.execute("DESCRIBE t").fetchall())
        row_text = " || chr(31) || ".join(column_text(n, t) for n, t in columns)
        rows, total = con.execute(f"SELECT count(*), CAST(sum(hash({row_text})) AS VARCHAR) FROM t").fetchone()
        print(json.dumps({"metadata": location, "rows": rows, "hash": total,
                          "columns": [f"{n} {t}" for n, t in columns]}), flush=True)


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "--in-duckdb-env":
        hash_main(sys.argv[2:])
        return
    if len(sys.argv) < 2:
        sys.exit("usage: iceberg_content_hash.py <metadata.json>...")
    python = iceberg_readers.duckdb_python()
    subprocess.run([str(python), __file__, "--in-duckdb-env", *sys.argv[1:]], check=True)


if __name__ == "__main__":
    main()
