"""`cqlite delta-export` envelope files and `cqlite select --from-envelopes`.

- Envelope files of SSTables freshly written by Cassandra 5.0 (tools/oracle
  scenarios), read by pyarrow and by DuckDB, hold the same facts as
  `cqlite dump` of the same SSTable, record by record: keys, ops, timestamps,
  TTLs, values, deletion times, collection elements and tombstones.
- Folding the envelope files of every generation of a table gives what folding
  the SSTables gives, for every generated table.
- A file in the Rust CQLite envelope v1 schema, built here with pyarrow, folds
  to the rows derived by hand from Cassandra's rules.
- Bad input: one-line errors naming the file, a non-zero exit, and nothing
  left behind.
"""
import collections
import datetime
import json
import os
import pathlib
import shutil
import struct
import subprocess
import sys
import time
import uuid

import pytest

from conftest import REPO

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

GENERATED = pathlib.Path(os.environ.get("CQLITE_GENERATED_DIR", REPO / "build" / "generated"))
SCENARIOS = sorted(p.stem for p in (REPO / "tools" / "oracle" / "scenarios").glob("*.cql"))
DUMP_SCENARIOS = ["collections", "counters", "deletions"]
FORMATS = ("nb", "oa", "da")
EXAMPLE = REPO / "examples" / "data" / "shop"
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


@pytest.fixture(scope="module")
def generated(oracle):
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "oracle" / "gen_all.py"), str(GENERATED),
                           "--jobs", "2"], capture_output=True, text=True, timeout=3600)
    assert proc.returncode == 0, f"generating the scenarios failed:\n{proc.stdout}\n{proc.stderr}"
    return GENERATED


def table_dirs(root):
    return sorted({p.parent for p in root.rglob("*-Data.db") if "oracle-dump" not in p.parts})


# ---------------------------------------------------------------------------
# Facts, from `cqlite dump` JSON and from envelope rows

def micros(text):
    when = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    return (when - EPOCH) // datetime.timedelta(microseconds=1)


def seconds(text):
    return micros(text) // 1_000_000


def comparable(arrow_type):
    """Types whose values compare directly with the dump's JSON rendering."""
    return pa.types.is_integer(arrow_type) or pa.types.is_string(arrow_type) or pa.types.is_boolean(arrow_type)


def decode(arrow_type, data):
    """A serialized element (cell path or value) of a simple type, or "?"."""
    if pa.types.is_string(arrow_type):
        return data.decode()
    if pa.types.is_boolean(arrow_type):
        return data != b"\x00"
    if pa.types.is_integer(arrow_type):
        return int.from_bytes(data, "big", signed=True)
    return "?"


class Table:
    """What the envelope schema says about the table's columns."""

    def __init__(self, schema, prefix="__"):
        self.prefix = prefix
        names = schema.names
        op = names.index(prefix + "op")
        self.keys = []  # (name, arrow type) of partition key then clustering columns
        self.columns = {}  # non-key column -> value arrow type
        self.counters = set()
        for field in list(schema)[:op]:
            if pa.types.is_struct(field.type) and field.type.get_field_index("writetime") >= 0:
                self.columns[field.name] = field.type.field("value").type
                if field.type.get_field_index("shards") >= 0:
                    self.counters.add(field.name)
            else:
                self.keys.append((field.name, field.type))
        clustering = [f.name for f in schema.field(prefix + "range_start").type if f.name != "inclusive"]
        self.clustering = [(n, t) for n, t in self.keys if n in clustering]
        self.partition = [(n, t) for n, t in self.keys if n not in clustering]

    def render(self, arrow_type, value):
        if value is None:
            return None
        return value if comparable(arrow_type) else "?"

    def dump_render(self, arrow_type, value):
        return value if comparable(arrow_type) else "?"


def dump_facts(dump, table, sets):
    facts = collections.Counter()
    for p, partition in enumerate(dump):
        info = partition["partition"]
        key = tuple(table.dump_render(t, int(v) if pa.types.is_integer(t) else v)
                    for (n, t), v in zip(table.partition, info["key"]))
        facts[("key", p, key)] += 1
        if "deletion_info" in info:
            d = info["deletion_info"]
            facts[("partition_delete", p, micros(d["marked_deleted"]), seconds(d["local_delete_time"]))] += 1
        pending = None
        r = -1
        for row in partition["rows"]:
            kind = row["type"]
            if kind.startswith("range_tombstone"):
                def bound(b):
                    values = []
                    for (n, t), v in zip(table.clustering, b.get("clustering", [])):
                        if v == "*":
                            break
                        values.append(table.dump_render(t, v))
                    incl = b["type"] == "inclusive" if values else None
                    return tuple(values), incl, micros(b["deletion_info"]["marked_deleted"]), \
                        seconds(b["deletion_info"]["local_delete_time"])
                if "end" in row:
                    end = bound(row["end"])
                    start = pending or ((), None)
                    facts[("range", p, start[0], start[1], end[0], end[1], end[2], end[3])] += 1
                    pending = None
                if "start" in row:
                    pending = bound(row["start"])[:2]
                continue
            static = kind == "static_block"
            if not static:
                r += 1
            where = "S" if static else r
            if not static:
                ck = tuple(table.dump_render(t, v) for (n, t), v in zip(table.clustering, row.get("clustering", [])))
                facts[("row", p, r, ck)] += 1
            liveness = row.get("liveness_info")
            if liveness:
                facts[("liveness", p, r, micros(liveness["tstamp"]), liveness.get("ttl"),
                       seconds(liveness["expires_at"]) if "expires_at" in liveness else None)] += 1
            if "deletion_info" in row:
                d = row["deletion_info"]
                facts[("row_delete", p, r, micros(d["marked_deleted"]), seconds(d["local_delete_time"]))] += 1
            for cell in row["cells"]:
                name = cell["name"]
                if "path" not in cell and "deletion_info" in cell and "marked_deleted" in cell["deletion_info"]:
                    d = cell["deletion_info"]
                    facts[("complex_delete", p, where, name, micros(d["marked_deleted"]),
                           seconds(d["local_delete_time"]))] += 1
                    continue
                value_type = table.columns[name]
                if "path" in cell:
                    path = cell["path"][0]
                    if pa.types.is_list(value_type):
                        element = value_type.value_type
                        if name in sets and not comparable(element):
                            path = "?"
                    elif pa.types.is_map(value_type):
                        element = value_type.item_type
                        path = path if comparable(value_type.key_type) else "?"
                    else:  # a user type: the field's type
                        element = value_type.field(path).type
                else:
                    path, element = None, value_type
                tombstone = "deletion_info" in cell
                value = None if tombstone else table.dump_render(element, cell.get("value"))
                if name in table.counters and not tombstone:
                    value = "?"  # sstabledump prints no counter totals
                if isinstance(value, str) and "path" in cell and pa.types.is_list(value_type) and cell.get("value") == "":
                    value = ""
                ts = micros(cell["tstamp"]) if "tstamp" in cell else micros(liveness["tstamp"])
                if tombstone:
                    ttl, ldt = None, seconds(cell["deletion_info"]["local_delete_time"])
                else:
                    ttl = cell.get("ttl")
                    ldt = seconds(cell["expires_at"]) if "expires_at" in cell else None
                facts[("cell", p, where, name, path, value, ts, ttl, ldt, tombstone)] += 1
    return facts


def envelope_facts(rows, table, sets):
    """Facts of envelope rows (dicts of plain Python values, as pyarrow and DuckDB give them)."""
    px = table.prefix
    facts = collections.Counter()
    p = -1
    previous_key = None
    for row in rows:
        op = row[px + "op"]
        if row[px + "partition_key"] != previous_key:
            previous_key = row[px + "partition_key"]
            p += 1
            r = -1
            previous_ck = None
            key = tuple(table.render(t, row[n]) for n, t in table.partition)
            facts[("key", p, key)] += 1
        if op == "partition_delete":
            facts[("partition_delete", p, row[px + "ts"], row[px + "local_deletion_time"])] += 1
            continue
        if op == "range_delete":
            def bound(b):
                values = []
                for n, t in table.clustering:
                    if b[n] is None:
                        break
                    values.append(table.render(t, b[n]))
                return tuple(values), (b["inclusive"] if values else None)
            start, end = bound(row[px + "range_start"]), bound(row[px + "range_end"])
            facts[("range", p, start[0], start[1], end[0], end[1], row[px + "ts"],
                   row[px + "local_deletion_time"])] += 1
            continue
        static = op == "static_upsert"
        liveness_ttl = None
        if not static:
            ck = tuple(table.render(t, row[n]) for n, t in table.clustering)
            this_ck = (tuple(row[n] for n, t in table.clustering), row[px + "clustering"])
            touched = any(row[c] is not None for c in table.columns)
            if op == "upsert" and row[px + "ts"] is None and not touched:
                continue  # an empty row: dump leaves it out
            if this_ck != previous_ck:
                r += 1
                previous_ck = this_ck
                facts[("row", p, r, ck)] += 1
            if op == "row_delete":
                facts[("row_delete", p, r, row[px + "ts"], row[px + "local_deletion_time"])] += 1
                continue
            if row[px + "ts"] is not None:
                liveness_ttl = row[px + "ttl"]
                facts[("liveness", p, r, row[px + "ts"], row[px + "ttl"], row[px + "local_deletion_time"])] += 1
        where = "S" if static else r
        for name, value_type in table.columns.items():
            data = row[name]
            if data is None:
                continue
            if "cells" in data:
                if data["deletion"] is not None:
                    facts[("complex_delete", p, where, name, data["deletion"]["marked_for_delete_at"],
                           data["deletion"]["local_deletion_time"])] += 1
                for cell in data["cells"] or []:
                    raw_path, raw_value = cell["path"], cell["value"]
                    if pa.types.is_list(value_type):
                        element = value_type.value_type
                        if name in sets:
                            path = str(decode(element, raw_path)) if comparable(element) else "?"
                            value = ""
                        else:
                            path, value = str(uuid.UUID(bytes=raw_path)), None
                    elif pa.types.is_map(value_type):
                        element = value_type.item_type
                        path = str(decode(value_type.key_type, raw_path)) if comparable(value_type.key_type) else "?"
                        value = None
                    else:
                        index = struct.unpack(">H", raw_path)[0]
                        field = value_type.field(index)
                        path, element, value = field.name, field.type, None
                    tombstone = raw_value is None
                    if not tombstone and value is None:
                        value = decode(element, raw_value) if comparable(element) else "?"
                    if tombstone:
                        value = None
                    ttl, ldt = cell["ttl"], cell["local_deletion_time"]
                    if tombstone:
                        ttl = None
                    elif ttl is not None and ttl == liveness_ttl:
                        ttl = ldt = None  # the dump leaves out a TTL equal to the row's
                    elif ttl is None:
                        ldt = None
                    facts[("cell", p, where, name, path, value, cell["writetime"], ttl, ldt, tombstone)] += 1
                continue
            tombstone = data["value"] is None and data["raw"] is None
            value = None if tombstone else table.render(value_type, data["value"])
            if not tombstone and value is None:
                value = "?"
            if "shards" in data:
                value = None if tombstone else "?"  # sstabledump prints no counter totals
            ttl, ldt = data["ttl"], data["local_deletion_time"]
            if tombstone:
                ttl = None
            elif ttl is not None and ttl == liveness_ttl:
                ttl = ldt = None
            elif ttl is None:
                ldt = None
            facts[("cell", p, where, name, None, value, data["writetime"], ttl, ldt, tombstone)] += 1
    return facts


def set_columns(schema_cql):
    """Non-frozen set columns, from the footer's CREATE TABLE."""
    sets = set()
    for line in schema_cql.splitlines():
        line = line.strip()
        if line.startswith('"') and " set<" in line and "frozen<set" not in line.split('" ', 1)[1][:10]:
            sets.add(line.split('"')[1])
    return sets


def duckdb_rows(path):
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    cursor = con.execute("SELECT * FROM read_parquet(?)", [str(path)])
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, values)) for values in cursor.fetchall()]


def dump_cases():
    return [(fmt, scenario) for fmt in FORMATS for scenario in DUMP_SCENARIOS]


@pytest.mark.parametrize("fmt,scenario", dump_cases(), ids=lambda v: v)
def test_envelope_holds_what_dump_shows(fmt, scenario, generated, cqlite, tmp_path):
    data_files = sorted((generated / fmt / scenario).rglob("*-Data.db"))
    assert data_files
    checked = 0
    for data_file in data_files:
        if "system" in data_file.parts[-3]:
            continue
        out = tmp_path / f"{checked}.parquet"
        cqlite("delta-export", data_file, "-o", out)
        dump = json.loads(cqlite("dump", data_file).stdout)
        pf = pq.ParquetFile(out)
        metadata = {k.decode(): v.decode() for k, v in pf.schema_arrow.metadata.items()}
        assert metadata["cqlite.delta.version"] == "1"
        assert metadata["cqlite.delta.extension_version"] == "1"
        assert metadata["cqlite.delta.source"] == data_file.name
        table = Table(pf.schema_arrow)
        sets = set_columns(metadata["cqlite.delta.schema_cql"])
        expected = dump_facts(dump, table, sets)
        arrow_rows = pq.read_table(out).to_pylist()
        got = envelope_facts(arrow_rows, table, sets)
        assert got == expected, f"{data_file}: pyarrow facts differ\nmissing: {expected - got}\nextra: {got - expected}"
        got = envelope_facts(duckdb_rows(out), table, sets)
        assert got == expected, f"{data_file}: DuckDB facts differ\nmissing: {expected - got}\nextra: {got - expected}"
        checked += 1
    assert checked


# ---------------------------------------------------------------------------
# select --from-envelopes == select over the SSTables

def select_cases():
    return [(fmt, scenario) for fmt in FORMATS for scenario in SCENARIOS]


@pytest.mark.parametrize("fmt,scenario", select_cases(), ids=lambda v: v)
def test_select_from_envelopes_matches_select(fmt, scenario, generated, cqlite, tmp_path):
    now = str(int(time.time()))
    compared = 0
    for table_dir in table_dirs(generated / fmt / scenario):
        if table_dir.parent.name.startswith("system"):
            continue
        direct = cqlite("select", table_dir, "--now", now, check=False)
        assert direct.returncode == 0, f"select {table_dir}: {direct.stderr}"
        out = tmp_path / table_dir.name
        out.mkdir()
        cqlite("delta-export", table_dir, "-o", out)
        files = sorted(out.glob("*.parquet"))
        assert len(files) == len(list(table_dir.glob("*-Data.db")))
        assert not [p for p in out.iterdir() if p.suffix != ".parquet"], "temporary files left behind"
        folded = cqlite("select", "--from-envelopes", *files, "--now", now, check=False)
        assert folded.returncode == 0, f"select --from-envelopes for {table_dir}: {folded.stderr}"
        assert folded.stdout == direct.stdout, f"{table_dir}: envelope fold differs"
        # Generation order does not matter.
        reversed_fold = cqlite("select", "--from-envelopes", *reversed(files), "--now", now)
        assert reversed_fold.stdout == direct.stdout
        compared += 1
    assert compared


# ---------------------------------------------------------------------------
# A Rust CQLite v1 envelope file, built here

V1_SCHEMA = """
CREATE TABLE ks.t (
    pk int, ck1 int, ck2 text, s text static, v text, n int, tags set<text>,
    PRIMARY KEY (pk, ck1, ck2));
"""

OP = pa.dictionary(pa.int8(), pa.utf8())


def v1_schema(prefix="__"):
    def cell(value_type, replaced=False):
        fields = [pa.field("value", value_type), pa.field("writetime", pa.int64(), nullable=False),
                  pa.field("expires_at", pa.int64())]
        if replaced:
            fields.append(pa.field("replaced", pa.bool_(), nullable=False))
        return pa.struct(fields)
    bound = pa.struct([pa.field("ck1", pa.int32()), pa.field("ck2", pa.utf8()),
                       pa.field("inclusive", pa.bool_(), nullable=False)])
    return pa.schema([
        pa.field("pk", pa.int32(), nullable=False),
        pa.field("ck1", pa.int32()),
        pa.field("ck2", pa.utf8()),
        pa.field("s", cell(pa.utf8())),
        pa.field("v", cell(pa.utf8())),
        pa.field("n", cell(pa.int32())),
        pa.field("tags", cell(pa.list_(pa.field("item", pa.utf8())), replaced=True)),
        pa.field(prefix + "op", OP, nullable=False),
        pa.field(prefix + "ts", pa.int64()),
        pa.field(prefix + "range_start", bound),
        pa.field(prefix + "range_end", bound),
    ])


def v1_record(op, pk, ck1=None, ck2=None, ts=None, start=None, end=None, prefix="__", **cells):
    row = {"pk": pk, "ck1": ck1, "ck2": ck2, "s": None, "v": None, "n": None, "tags": None,
           prefix + "op": op, prefix + "ts": ts, prefix + "range_start": start, prefix + "range_end": end}
    for name, (value, writetime, *rest) in cells.items():
        c = {"value": value, "writetime": writetime, "expires_at": rest[0] if rest else None}
        if name == "tags":
            c["replaced"] = rest[1] if len(rest) > 1 else False
        row[name] = c
    return row


# pyarrow's DELTA encodings for every column that can take one (with no
# dictionary), so that our reader decodes pages another writer encoded.
DELTA_ENCODINGS = {"use_dictionary": False, "column_encoding": {
    "pk": "DELTA_BINARY_PACKED", "ck1": "DELTA_BINARY_PACKED", "ck2": "DELTA_BYTE_ARRAY",
    "__ts": "DELTA_BINARY_PACKED", "s.value": "DELTA_LENGTH_BYTE_ARRAY", "v.value": "DELTA_BYTE_ARRAY",
    "v.writetime": "DELTA_BINARY_PACKED", "v.expires_at": "DELTA_BINARY_PACKED", "n.value": "DELTA_BINARY_PACKED",
    "tags.value.list.item": "DELTA_BYTE_ARRAY", "__range_start.ck2": "DELTA_LENGTH_BYTE_ARRAY"}}


def write_v1(path, records, version="1", schema=None, prefix="__", **write_options):
    schema = schema or v1_schema(prefix)
    table = pa.Table.from_pylist(records, schema=schema)
    table = table.replace_schema_metadata({
        "cqlite.delta.version": version, "cqlite.delta.source": path.name,
        "cqlite.delta.schema_hash": "0123456789abcdef", "cqlite.version": "0.0.0-test"})
    pq.write_table(table, path, **write_options)
    return path


@pytest.mark.parametrize("encodings", ["default", "delta"])
def test_rust_v1_envelope_folds(cqlite, tmp_path, encodings):
    schema_file = tmp_path / "t.cql"
    schema_file.write_text(V1_SCHEMA)
    options = DELTA_ENCODINGS if encodings == "delta" else {}
    gen1 = write_v1(tmp_path / "gen1.parquet", [
        v1_record("upsert", 1, 1, "a", ts=100, v=("a1", 100), n=(1, 100), tags=(["x", "y"], 100, None, True)),
        v1_record("upsert", 1, 1, "b", ts=100, v=("b1", 100)),
        v1_record("upsert", 1, 2, "a", ts=100, v=("c1", 100)),
        v1_record("upsert", 1, 2, "b", ts=100, v=("d1", 100)),
        v1_record("upsert", 1, 3, "a", ts=100, v=("e1", 100)),
        v1_record("static_upsert", 1, s=("s1", 100)),
        v1_record("upsert", 2, 1, "a", ts=100, v=("p2", 100)),
        v1_record("upsert", 3, 1, "a", ts=100, v=("q", 100), tags=(["t"], 100, None, True)),
        v1_record("upsert", 5, 1, "a", ts=100, v=("kept", 100)),
    ], **options)
    open_start = {"ck1": None, "ck2": None, "inclusive": True}
    gen2 = write_v1(tmp_path / "gen2.parquet", [
        # Not in token order on purpose: a v1 writer other than Cassandra's order.
        v1_record("partition_delete", 2, ts=200),
        # A cell tombstone and a collection overwrite.
        v1_record("upsert", 1, 1, "a", v=(None, 200), tags=(["z"], 200, None, True)),
        v1_record("row_delete", 1, 1, "b", ts=200),
        # DELETE ... WHERE pk = 1 AND ck1 = 2: a prefix range.
        v1_record("range_delete", 1, ts=200, start={"ck1": 2, "ck2": None, "inclusive": True},
                  end={"ck1": 2, "ck2": None, "inclusive": True}),
        # An UPDATE after the range deletion brings (1, 2, 'b') back.
        v1_record("upsert", 1, 2, "b", v=("d2", 300)),
        # An append: no replaced flag.
        v1_record("upsert", 3, 1, "a", tags=(["u"], 200, None, False)),
        # Expired a long time ago.
        v1_record("upsert", 4, 1, "a", v=("gone", 100, 1_000_000)),
        # Everything of partition 5 from the bottom to (1, 'a') exclusive, then an open top at ts 50.
        v1_record("range_delete", 5, ts=200, start=open_start, end={"ck1": 1, "ck2": "a", "inclusive": False}),
        v1_record("range_delete", 5, ts=50, start={"ck1": 1, "ck2": "a", "inclusive": True}, end=open_start),
    ], **options)
    if encodings == "delta":
        used = {e for f in (gen1, gen2) for g in range(pq.ParquetFile(f).metadata.num_row_groups)
                for c in range(pq.ParquetFile(f).metadata.num_columns)
                for e in pq.ParquetFile(f).metadata.row_group(g).column(c).encodings}
        assert {"DELTA_BINARY_PACKED", "DELTA_BYTE_ARRAY", "DELTA_LENGTH_BYTE_ARRAY"} <= used
    proc = cqlite("select", "--from-envelopes", gen1, gen2, "--schema", schema_file)
    rows = sorted((json.loads(line) for line in proc.stdout.splitlines()), key=lambda r: (r["pk"], r["ck1"], r["ck2"]))
    # By hand: partition 2 is deleted at 200 > 100; (1,1,'b') by its row deletion; (1,2,'a') by the range;
    # (1,2,'b') lives on its newer cell without a primary-key liveness; v of (1,1,'a') is deleted; its tags
    # were replaced; the tags of (3,1,'a') were appended to; partition 4 expired; the range at 50 does
    # not cover the writes at 100 of partition 5.
    expected = [
        {"pk": 1, "ck1": 1, "ck2": "a", "s": "s1", "n": 1, "tags": ["z"], "v": None},
        {"pk": 1, "ck1": 2, "ck2": "b", "s": "s1", "n": None, "tags": None, "v": "d2"},
        {"pk": 1, "ck1": 3, "ck2": "a", "s": "s1", "n": None, "tags": None, "v": "e1"},
        {"pk": 3, "ck1": 1, "ck2": "a", "s": None, "n": None, "tags": ["t", "u"], "v": "q"},
        {"pk": 5, "ck1": 1, "ck2": "a", "s": None, "n": None, "tags": None, "v": "kept"},
    ]
    assert rows == expected
    # The same rows whatever the order of the files.
    again = cqlite("select", "--from-envelopes", gen2, gen1, "--schema", schema_file)
    assert sorted(again.stdout.splitlines()) == sorted(proc.stdout.splitlines())


def test_rust_v1_envelope_with_another_prefix(cqlite, tmp_path):
    schema_file = tmp_path / "t.cql"
    schema_file.write_text(V1_SCHEMA)
    f = write_v1(tmp_path / "p.parquet", [v1_record("upsert", 7, 1, "a", ts=5, v=("x", 5), prefix="_cqlite_")],
                 prefix="_cqlite_")
    proc = cqlite("select", "--from-envelopes", f, "--schema", schema_file, "--envelope-prefix", "_cqlite_")
    assert json.loads(proc.stdout) == {"pk": 7, "ck1": 1, "ck2": "a", "s": None, "n": None, "tags": None, "v": "x"}


# ---------------------------------------------------------------------------
# Bad input

def expect_failure(proc, *fragments):
    assert proc.returncode != 0 and proc.returncode < 128, proc
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, f"expected one error line, got:\n{proc.stderr}"
    for fragment in fragments:
        assert str(fragment) in lines[0], f"{fragment!r} not in {lines[0]!r}"
    assert proc.stdout == ""
    return lines[0]


def example_table(tmp_path):
    table = sorted(EXAMPLE.glob("orders-*"))[0]
    copy = tmp_path / "data" / "shop" / table.name
    shutil.copytree(table, copy)
    shutil.copy(EXAMPLE / "schema.cql", copy.parent / "schema.cql")
    return copy


@pytest.fixture
def example_envelopes(cqlite, tmp_path):
    table = example_table(tmp_path)
    out = tmp_path / "env"
    cqlite("delta-export", table, "-o", out)
    return sorted(out.glob("*.parquet"))


def test_example_round_trip(cqlite, tmp_path, example_envelopes):
    table = sorted((tmp_path / "data" / "shop").glob("orders-*"))[0]
    direct = cqlite("select", table, "--now", "1800000000")
    folded = cqlite("select", "--from-envelopes", *example_envelopes, "--now", "1800000000")
    assert direct.stdout and folded.stdout == direct.stdout


def test_no_footer(cqlite, tmp_path, example_envelopes):
    bad = tmp_path / "cut.parquet"
    bad.write_bytes(example_envelopes[0].read_bytes()[:-10])
    expect_failure(cqlite("select", "--from-envelopes", bad, check=False), bad)
    bad.write_bytes(b"PAR1 not really")
    expect_failure(cqlite("select", "--from-envelopes", bad, check=False), bad)


def test_unknown_envelope_version(cqlite, tmp_path):
    schema_file = tmp_path / "t.cql"
    schema_file.write_text(V1_SCHEMA)
    f = write_v1(tmp_path / "v9.parquet", [v1_record("upsert", 1, 1, "a", ts=1, v=("x", 1))], version="9")
    expect_failure(cqlite("select", "--from-envelopes", f, "--schema", schema_file, check=False),
                   f, "unknown envelope version 9")
    plain = tmp_path / "plain.parquet"
    pq.write_table(pq.read_table(f).replace_schema_metadata({}), plain)
    expect_failure(cqlite("select", "--from-envelopes", plain, "--schema", schema_file, check=False),
                   plain, "cqlite.delta.version")


def test_unknown_extension_version(cqlite, tmp_path, example_envelopes):
    table = pq.read_table(example_envelopes[0])
    metadata = dict(table.schema.metadata)
    metadata[b"cqlite.delta.extension_version"] = b"7"
    bad = tmp_path / "ext7.parquet"
    pq.write_table(table.replace_schema_metadata(metadata), bad)
    expect_failure(cqlite("select", "--from-envelopes", bad, check=False), bad, "extension version 7")


def test_wrong_schema(cqlite, tmp_path, example_envelopes):
    # Our file against another table.
    other = tmp_path / "other.cql"
    other.write_text(V1_SCHEMA)
    expect_failure(cqlite("select", "--from-envelopes", example_envelopes[0], "--schema", other, check=False),
                   example_envelopes[0], "column '")
    # A v1 file whose column has the wrong type.
    schema = v1_schema()
    index = schema.get_field_index("n")
    schema = schema.set(index, pa.field("n", pa.struct([pa.field("value", pa.utf8()),
                                                        pa.field("writetime", pa.int64(), nullable=False),
                                                        pa.field("expires_at", pa.int64())])))
    bad = write_v1(tmp_path / "mistyped.parquet", [v1_record("upsert", 1, 1, "a", ts=1, n=("1", 1))], schema=schema)
    schema_file = tmp_path / "t.cql"
    schema_file.write_text(V1_SCHEMA)
    expect_failure(cqlite("select", "--from-envelopes", bad, "--schema", schema_file, check=False),
                   bad, "n.value")
    # A v1 file missing a column.
    missing = write_v1(tmp_path / "missing.parquet", [v1_record("upsert", 1, 1, "a", ts=1)],
                       schema=v1_schema().remove(v1_schema().get_field_index("v")))
    expect_failure(cqlite("select", "--from-envelopes", missing, "--schema", schema_file, check=False),
                   missing, "column 'v' is missing")
    # A v1 file without --schema.
    expect_failure(cqlite("select", "--from-envelopes", missing, check=False), missing, "--schema")


def test_prefix_collisions(cqlite, tmp_path):
    table = example_table(tmp_path)
    out = tmp_path / "out"
    # Every column of shop.orders starting with the prefix collides; the export writes nothing.
    columns = [line.split()[0] for line in (table.parent / "schema.cql").read_text().splitlines()
               if line.startswith("    ") and not line.strip().startswith(("PRIMARY", "AND", ")"))]
    prefix = columns[0][:1]
    line = expect_failure(cqlite("delta-export", table, "-o", out, "--envelope-prefix", prefix, check=False),
                          "--envelope-prefix", prefix)
    assert "collides" in line
    assert not out.exists()
    # Reading: a table column that starts with the prefix.
    schema_file = tmp_path / "c.cql"
    schema_file.write_text(V1_SCHEMA.replace(" v text,", " __v text,"))
    f = write_v1(tmp_path / "v1.parquet", [v1_record("upsert", 1, 1, "a", ts=1)])
    expect_failure(cqlite("select", "--from-envelopes", f, "--schema", schema_file, check=False),
                   f, "__v", "--envelope-prefix")


def test_failed_export_leaves_nothing(cqlite, tmp_path):
    table = example_table(tmp_path)
    data_files = sorted(table.glob("*-Data.db"))
    # Damage the last generation in the middle: the earlier ones are written first, then removed.
    last = data_files[-1]
    data = bytearray(last.read_bytes())
    for i in range(len(data) // 2, len(data) // 2 + 16):
        data[i] ^= 0x5a
    last.write_bytes(bytes(data))
    out = tmp_path / "out"
    expect_failure(cqlite("delta-export", table, "-o", out, check=False), last.name)
    assert not out.exists() or list(out.iterdir()) == []
    # One SSTable to one file: no file and no temporary file remain.
    single = tmp_path / "single"
    single.mkdir()
    expect_failure(cqlite("delta-export", last, "-o", single / "x.parquet", check=False), last.name)
    assert list(single.iterdir()) == []


def test_existing_output_is_kept(cqlite, tmp_path):
    table = example_table(tmp_path)
    data_file = sorted(table.glob("*-Data.db"))[0]
    target = tmp_path / "x.parquet"
    target.write_bytes(b"keep me")
    expect_failure(cqlite("delta-export", data_file, "-o", target, check=False), target, "--overwrite")
    assert target.read_bytes() == b"keep me"
    cqlite("delta-export", data_file, "-o", target, "--overwrite")
    assert pq.read_table(target).num_rows > 0
