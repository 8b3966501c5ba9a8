"""read_spark_many: the Spark reader (tools/iceberg_readers/spark/spark_reader.sh)
as iceberg_readers' other readers are called, rows normalized and sorted the
same way (tests/integration/iceberg_readers.py's docstring)."""
import json
import os
import subprocess

import iceberg_readers

SPARK_READER = iceberg_readers.READERS_DIR / "spark" / "spark_reader.sh"

# The Iceberg Spark runtime maps no Iceberg type to Spark for `time`, so Spark
# cannot load a table with a time column at all (TypeToSparkType).
SPARK_TIME_ERROR = "Spark does not support time fields"
# Nor can its Parquet reader read a data file holding a time column, even one
# the table's current schema no longer has (a time column dropped, its values
# still in the data files written before).
SPARK_TIME_FILE_ERROR = "Unsupported logical type: TIME_MICROS"


def build_spark():
    """Builds the Spark reader now if it is not cached yet (first build: Maven downloads)."""
    subprocess.run(["bash", str(SPARK_READER), "build"], check=True, timeout=3600)


def read_spark_many(catalog_file, warehouse, catalog_name, tables):
    """{(ns, table): rows} for many tables of one catalog, read in one Spark session.

    A table Spark could not read maps to {"error": message} instead.
    """
    args = [os.path.abspath(catalog_file), iceberg_readers._warehouse_uri(warehouse), catalog_name]
    for ns, table in tables:
        args += [iceberg_readers._ns_string(ns), table]
    proc = subprocess.run(["bash", str(SPARK_READER), "read-many", *args],
                          capture_output=True, text=True, timeout=3600)
    if proc.returncode not in (0, 3):  # 3: some table could not be read, said on its line
        raise RuntimeError(f"spark_reader.sh read-many failed ({proc.returncode}):\n{proc.stderr[-5000:]}")
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    out = {}
    for ns, table in tables:
        name = f"{iceberg_readers._ns_string(ns)}.{table}"
        mine = [x for x in lines if x["table"] == name]
        errors = [x["error"] for x in mine if "error" in x]
        if errors:
            out[(ns, table)] = {"error": errors[0]}
            continue
        location = iceberg_readers.metadata_location(catalog_file, catalog_name, ns, table)
        schema = iceberg_readers.current_schema(iceberg_readers._metadata_json(location))
        out[(ns, table)] = iceberg_readers.normalize_rows([x["row"] for x in mine], schema)
    return out


def has_time(itype):
    """Whether an Iceberg type (metadata JSON) is or holds a `time`."""
    if isinstance(itype, dict):
        kind = itype["type"]
        if kind == "list":
            return has_time(itype["element"])
        if kind == "map":
            return has_time(itype["key"]) or has_time(itype["value"])
        if kind == "struct":
            return any(has_time(f["type"]) for f in itype["fields"])
        return False
    return itype == "time"


def schema_has_time(schema):
    return has_time({"type": "struct", "fields": schema["fields"]})


def table_had_time(catalog, catalog_name, ns, table):
    """Whether any schema the table has had holds a time field: its data files may then hold one."""
    location = iceberg_readers.metadata_location(catalog, catalog_name, ns, table)
    metadata = json.loads(open(iceberg_readers._local_path(location), encoding="utf-8").read())
    return any(schema_has_time(s) for s in metadata["schemas"])


def refused_for_time(rows):
    """Whether a read Spark refused did so for a time field (of the table or of a data file)."""
    return isinstance(rows, dict) and (SPARK_TIME_ERROR in rows["error"] or SPARK_TIME_FILE_ERROR in rows["error"])
