"""What the documentation says the shared fixtures hold.

For every table of ../shared/cassandra-fixtures whose current state its
documentation gives (the README.md of each folder and
apache-cassandra/legacy-sstables/EXPECTED_CONTENT.md), the rows are written
out here by hand, as Cassandra's `SELECT JSON * FROM ks.t` renders them.
Nothing below is derived from cqlite's own output. test_select_fixtures.py
compares them with `cqlite select`, test_materialize_fixtures.py with the
Iceberg tables `cqlite materialize` makes of the same fixtures.

Where a README abridges the statements that wrote a table, the missing values
(column names, UUIDs, which columns each INSERT set) come from the generating
test code it cites: scylladb test/boost/sstable_3_x_test.cc and the migration
test for cassandra_static_compact, and tolbertam/sstable-tools
src/test/resources/README.md and TestSelect.java. Those spots are marked.

Tables whose state the documentation leaves open are skipped with the reason;
tables where only some properties are documented (row counts, averages,
clustering order) are checked for exactly those properties.
"""
import dataclasses
import hashlib
import json
import pathlib
from typing import Callable, Optional

import pytest

from conftest import FIXTURES


# ---------------------------------------------------------------------------
# Partition order. SELECT returns partitions in token order; these compute the
# tokens of the two partitioners the fixtures use with Murmur3 or MD5 as
# Cassandra defines them, so that expected rows can be put in that order.

_MASK = (1 << 64) - 1


def _rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & _MASK


def _fmix(k):
    k ^= k >> 33
    k = (k * 0xFF51AFD7ED558CCD) & _MASK
    k ^= k >> 33
    k = (k * 0xC4CEB9FE1A85EC53) & _MASK
    return k ^ (k >> 33)


def murmur3_token(key: bytes) -> int:
    """Murmur3Partitioner's token: the first half of MurmurHash3 x64/128 with
    seed 0, where (as in Cassandra's MurmurHash) the bytes of the tail are
    sign-extended."""
    c1, c2 = 0x87C37B91114253D5, 0x4CF5AD432745937F
    h1 = h2 = 0
    blocks = len(key) // 16
    for i in range(blocks):
        k1 = int.from_bytes(key[16 * i:16 * i + 8], "little")
        k2 = int.from_bytes(key[16 * i + 8:16 * i + 16], "little")
        h1 ^= (_rotl((k1 * c1) & _MASK, 31) * c2) & _MASK
        h1 = (((_rotl(h1, 27) + h2) & _MASK) * 5 + 0x52DCE729) & _MASK
        h2 ^= (_rotl((k2 * c2) & _MASK, 33) * c1) & _MASK
        h2 = (((_rotl(h2, 31) + h1) & _MASK) * 5 + 0x38495AB5) & _MASK
    tail = [b - 256 if b > 127 else b for b in key[16 * blocks:]]
    k1 = k2 = 0
    for i in range(len(tail) - 1, 7, -1):
        k2 ^= (tail[i] << (8 * (i - 8))) & _MASK
    if len(tail) > 8:
        h2 ^= (_rotl((k2 * c2) & _MASK, 33) * c1) & _MASK
    for i in range(min(len(tail), 8) - 1, -1, -1):
        k1 ^= (tail[i] << (8 * i)) & _MASK
    if tail:
        h1 ^= (_rotl((k1 * c1) & _MASK, 31) * c2) & _MASK
    h1 ^= len(key)
    h2 ^= len(key)
    h1 = (h1 + h2) & _MASK
    h2 = (h2 + h1) & _MASK
    h1, h2 = _fmix(h1), _fmix(h2)
    h1 = (h1 + h2) & _MASK
    token = h1 - (1 << 64) if h1 >> 63 else h1
    return (1 << 63) - 1 if token == -(1 << 63) else token


def random_partitioner_token(key: bytes) -> int:
    """RandomPartitioner's token: |MD5 of the key, as a signed big integer|."""
    return abs(int.from_bytes(hashlib.md5(key).digest(), "big", signed=True))


def int_key(value: int) -> bytes:
    return value.to_bytes(4, "big", signed=True)


def in_murmur3_order(rows, key=lambda row: int_key(row["pk"])):
    """Stable: rows of one partition keep their (clustering) order."""
    return sorted(rows, key=lambda row: (murmur3_token(key(row)), key(row)))


# ---------------------------------------------------------------------------
# One fixture table and what the documentation says SELECT returns for it.

@dataclasses.dataclass
class Case:
    id: str
    path: str                      # relative to the fixture root: a table directory or one Data.db
    schema: Optional[str] = None   # CQL from the documentation, passed with --schema
    rows: Optional[list] = None    # every row, in SELECT order
    check: Optional[Callable] = None  # for partly documented tables: asserts what is documented
    now: Optional[int] = None      # --now, where TTLs matter
    skip: Optional[str] = None     # the documentation does not give the state
    xfail: Optional[str] = None    # a known cqlite bug


CASES: list = []


def case(*args, **kwargs):
    CASES.append(Case(*args, **kwargs))


# Any instant well after every fixture was written and well before 2038.
LATER = 1_700_000_000  # 2023-11-14

SCYLLA = "scylladb-3.x"
UNCOMPRESSED = f"{SCYLLA}/uncompressed"
# scylladb-3.x/README.md: "Murmur3 order of int partition keys 1..5 is 5, 1, 2, 4, 3".
ONE_TO_FIVE = [5, 1, 2, 4, 3]

TEST_TABLE = "CREATE TABLE test_ks.test_table ({}) WITH compression = {{'enabled': false}};"

# --- scylladb-3.x: tables written by Cassandra 3.11 through cqlsh ----------

case("scylla/simple", f"{UNCOMPRESSED}/simple",
     TEST_TABLE.format("pk int, ck int, val int, PRIMARY KEY (pk, ck)"),
     [{"pk": i, "ck": 100 + i, "val": 1000 + i} for i in ONE_TO_FIVE])
case("scylla/simple (header schema)", f"{UNCOMPRESSED}/simple", None,
     [{"key": i, "column1": 100 + i, "val": 1000 + i} for i in ONE_TO_FIVE])

case("scylla/partition_key_only", f"{UNCOMPRESSED}/partition_key_only",
     TEST_TABLE.format("pk int PRIMARY KEY"),
     [{"pk": i} for i in ONE_TO_FIVE])

case("scylla/partition_key_with_value", f"{UNCOMPRESSED}/partition_key_with_value",
     TEST_TABLE.format("pk int PRIMARY KEY, val int"),
     [{"pk": i, "val": 100 + i} for i in ONE_TO_FIVE])

DIFFERENT_TYPES_SCHEMA = TEST_TABLE.format(
    "pk int PRIMARY KEY, bool_val boolean, double_val double, float_val float, int_val int, long_val bigint, "
    "timestamp_val timestamp, timeuuid_val timeuuid, uuid_val uuid, text_val text")
TIMEUUID = "50554d6e-29bb-11e5-b345-feff819cdc9f"
UUID = "01234567-0123-0123-0123-0123456789ab"


def different_types_row(i, present=None):
    """pk=i: bool i odd, double 0.ii, float 0.i, int i, long ii, ts '2015-05-0i (8+i):30:54.234+0000', ..."""
    row = {
        "pk": i,
        "bool_val": i % 2 == 1,
        "double_val": float(f"0.{i}{i}"),
        "float_val": float(f"0.{i}"),
        "int_val": i,
        "long_val": 11 * i,
        "text_val": f"variable length text {i}",
        "timestamp_val": f"2015-05-0{i} {8 + i:02d}:30:54.234Z",
        "timeuuid_val": TIMEUUID,
        "uuid_val": UUID,
    }
    if present is not None:
        row = {name: (value if name == "pk" or name in present else None) for name, value in row.items()}
    return row


for compression in ["uncompressed", "lz4", "snappy", "deflate", "zstd"]:
    case(f"scylla/{compression}/partition_key_with_values_of_different_types",
         f"{SCYLLA}/{compression}/partition_key_with_values_of_different_types",
         DIFFERENT_TYPES_SCHEMA, [different_types_row(i) for i in ONE_TO_FIVE])

case("scylla/zstd/multiple_chunks", f"{SCYLLA}/zstd/multiple_chunks",
     TEST_TABLE.format("val1 int, val2 int, PRIMARY KEY (val1, val2)"),
     [{"val1": 0, "val2": i} for i in range(1, 2001)])

# README: "pk1: all but bool; pk2: no double/float; pk3: bool,double,float,long,ts,text; pk4: bool,text;
# pk5: int,long,timeuuid,uuid", with the values of partition_key_with_values_of_different_types.
SUBSET = {
    1: {"double_val", "float_val", "int_val", "long_val", "text_val", "timestamp_val", "timeuuid_val", "uuid_val"},
    2: {"bool_val", "int_val", "long_val", "text_val", "timestamp_val", "timeuuid_val", "uuid_val"},
    3: {"bool_val", "double_val", "float_val", "long_val", "timestamp_val", "text_val"},
    4: {"bool_val", "text_val"},
    5: {"int_val", "long_val", "timeuuid_val", "uuid_val"},
}
case("scylla/subset_of_columns", f"{UNCOMPRESSED}/subset_of_columns",
     DIFFERENT_TYPES_SCHEMA, [different_types_row(i, SUBSET[i]) for i in ONE_TO_FIVE])

VAL64_SCHEMA = TEST_TABLE.format("pk int PRIMARY KEY, " + ", ".join(f"val{n} int" for n in range(1, 65)))


def val64_row(pk, values):
    row = {"pk": pk}
    for name in sorted(f"val{n}" for n in range(1, 65)):  # select order: by name
        row[name] = values.get(int(name[3:]))
    return row


# The README only says "few (sparse) / almost all (dense) of 64 columns"; the
# INSERTs are those of sstable_3_x_test.cc.
SPARSE = {
    1: {1: 11},
    2: {2: 22, 5: 222, 6: 2222, 7: 22222, 60: 222222},
    3: {32: 33, 33: 333},
    4: {n: n for n in range(1, 32)},
    5: {n: n - 33 for n in range(34, 65)},
}
case("scylla/large_subset_of_columns_sparse", f"{UNCOMPRESSED}/large_subset_of_columns_sparse",
     VAL64_SCHEMA, [val64_row(i, SPARSE[i]) for i in ONE_TO_FIVE])
DENSE = {
    1: {n: n for n in range(1, 65) if n != 29},
    2: {n: n for n in range(2, 65)},
    3: {n: n for n in range(1, 64)},
    4: {n: n for n in range(1, 33)},
    5: {n: n - 32 for n in range(33, 65)},
}
case("scylla/large_subset_of_columns_dense", f"{UNCOMPRESSED}/large_subset_of_columns_dense",
     VAL64_SCHEMA, [val64_row(i, DENSE[i]) for i in ONE_TO_FIVE])

case("scylla/static_row", f"{UNCOMPRESSED}/static_row",
     TEST_TABLE.format("pk int, ck int, s int static, val int, PRIMARY KEY (pk, ck)"),
     [{"pk": i, "ck": 10 + i, "s": 100 + i, "val": 1000 + i} for i in ONE_TO_FIVE])

case("scylla/compound_static_row", f"{UNCOMPRESSED}/compound_static_row",
     TEST_TABLE.format("pk int, ck int, s_int int static, s_text text static, s_inet inet static, val int, "
                       "PRIMARY KEY (pk, ck)"),
     [{"pk": i, "ck": 10 + i, "s_inet": f"10.0.0.{i}", "s_int": 100 + i, "s_text": f"Text for {i}",
       "val": 1000 + i} for i in ONE_TO_FIVE])

# The README writes the UUIDs as <uuid>; these are the INSERTs' in sstable_3_x_test.cc.
COMPOUND_CK_UUIDS = {
    1: "f7fdcbd2-4544-482c-85fd-d9572adc3cd6",
    2: "c25ae960-07a2-467d-8f35-5bd38647b367",
    3: "f7e8ebc0-dbae-4c06-bae0-656c23f6af6a",
    4: "4549e2c2-786e-4b30-90aa-5dd37ae1db8f",
    5: "f1badb6f-80a0-4eef-90df-b3651d9a5578",
}
case("scylla/compound_ck", f"{UNCOMPRESSED}/compound_ck",
     TEST_TABLE.format("pk int, ck_int int, ck_text text, ck_uuid uuid, ck_inet inet, val int, "
                       "PRIMARY KEY (pk, ck_int, ck_text, ck_uuid, ck_inet)"),
     [{"pk": i, "ck_int": 100 + i, "ck_text": f"This is a string for {i}", "ck_uuid": COMPOUND_CK_UUIDS[i],
       "ck_inet": f"10.0.0.{i}", "val": 1000 + i} for i in ONE_TO_FIVE])


def collections_row(i):
    elements = [3 * i - 2, 3 * i - 1, 3 * i]
    return {"pk": i,
            "list_val": [f"Text {n}" for n in elements],
            "map_val": {str(n): f"Text {n}" for n in elements},  # SELECT JSON quotes non-text map keys
            "set_val": elements}


case("scylla/collections", f"{UNCOMPRESSED}/collections",
     TEST_TABLE.format("pk int PRIMARY KEY, set_val set<int>, list_val list<text>, map_val map<int, text>"),
     [collections_row(i) for i in ONE_TO_FIVE])

case("scylla/counters", f"{UNCOMPRESSED}/counters",
     TEST_TABLE.format("pk int PRIMARY KEY, val counter"),
     [{"pk": 1, "val": 3}, {"pk": 2, "val": 2}, {"pk": 3, "val": 6}])

# Rows written by INSERT keep their primary key liveness when `val` is deleted.
case("scylla/deleted_cells", f"{UNCOMPRESSED}/deleted_cells",
     TEST_TABLE.format("pk int, ck int, val int, PRIMARY KEY (pk, ck)"),
     [{"pk": 1, "ck": ck, "val": None if ck in (102, 104) else 1000 + ck - 100} for ck in range(101, 106)])

# Rows 101..110 (pk 1, val 1000 + ck - 100); deleted: 101 < ck < 104, 104 <= ck < 105, ck > 108.
case("scylla/range_tombstones_simple", f"{UNCOMPRESSED}/range_tombstones_simple",
     TEST_TABLE.format("pk int, ck int, val int, PRIMARY KEY (pk, ck)"),
     [{"pk": 1, "ck": ck, "val": 1000 + ck - 100} for ck in (101, 105, 106, 107, 108)])

# The INSERT comes after the first DELETE, so its row lives inside that range.
case("scylla/range_tombstones_partial", f"{UNCOMPRESSED}/range_tombstones_partial",
     TEST_TABLE.format("pk int, ck1 int, ck2 int, PRIMARY KEY (pk, ck1, ck2)"),
     [{"pk": 1, "ck1": 2, "ck2": 13}])

DELETED_ROW_SCHEMA = ("CREATE TABLE sst3.test_deleted_row (pk text, ck text, rc1 text, rc2 text, "
                      "PRIMARY KEY (pk, ck)) WITH compression = {'sstable_compression': ''};")
# mc-1: INSERT (pk, ck, rc1) VALUES ('key', 'ck', 'rc1'); mc-2: DELETE the row, then INSERT rc2 = 'rc2'.
case("scylla/compact_deleted_row/mc-1", f"{UNCOMPRESSED}/compact_deleted_row/mc-1-big-Data.db",
     DELETED_ROW_SCHEMA, [{"pk": "key", "ck": "ck", "rc1": "rc1", "rc2": None}])
case("scylla/compact_deleted_row/mc-2", f"{UNCOMPRESSED}/compact_deleted_row/mc-2-big-Data.db",
     DELETED_ROW_SCHEMA, [{"pk": "key", "ck": "ck", "rc1": None, "rc2": "rc2"}])
case("scylla/compact_deleted_row", f"{UNCOMPRESSED}/compact_deleted_row",
     DELETED_ROW_SCHEMA, [{"pk": "key", "ck": "ck", "rc1": None, "rc2": "rc2"}])
# Without a schema the key columns are named as Cassandra names them for tables without metadata.
# Each generation's header lists only the columns it wrote (rc1 in mc-1, rc2 in mc-2).
case("scylla/compact_deleted_row (header schema)", f"{UNCOMPRESSED}/compact_deleted_row",
     None, [{"key": "key", "column1": "ck", "rc1": None, "rc2": "rc2"}])

DELETED_CELL_SCHEMA = ("CREATE TABLE sst3.compact_deleted_cell (pk text, ck text, rc text, PRIMARY KEY (pk, ck)) "
                       "WITH compression = {'sstable_compression': ''};")
case("scylla/compact_deleted_cell/mc-1", f"{UNCOMPRESSED}/compact_deleted_cell/mc-1-big-Data.db",
     DELETED_CELL_SCHEMA, [{"pk": "key", "ck": "ck", "rc": "rc"}])
case("scylla/compact_deleted_cell", f"{UNCOMPRESSED}/compact_deleted_cell",
     DELETED_CELL_SCHEMA, [{"pk": "key", "ck": "ck", "rc": None}])

case("scylla/empty_clustering_key", f"{UNCOMPRESSED}/empty_clustering_key",
     skip="the README gives partitions pk 0..9 but no values of v (no generating CQL is known)")

case("scylla/random_partitioner", f"{UNCOMPRESSED}/random_partitioner",
     TEST_TABLE.format("pk int, ck int, v int, PRIMARY KEY (pk, ck)"),
     sorted([{"pk": 1, "ck": 10, "v": 100}, {"pk": 2, "ck": 20, "v": 200}, {"pk": 3, "ck": 30, "v": 300}],
            key=lambda row: random_partitioner_token(int_key(row["pk"]))))

# pk 1: s = 1 and rows ck 101..110; pk 2: the same rows, no static value (val = 1000 + ck - 100).
case("scylla/filtering_and_forwarding", f"{UNCOMPRESSED}/filtering_and_forwarding",
     TEST_TABLE.format("pk int, ck int, s int static, val int, PRIMARY KEY (pk, ck)"),
     in_murmur3_order([{"pk": pk, "ck": ck, "s": 1 if pk == 1 else None, "val": 1000 + ck - 100}
                       for pk in (1, 2) for ck in range(101, 111)]))

case("scylla/read_two_rows_fast_forwarding", f"{UNCOMPRESSED}/read_two_rows_fast_forwarding",
     "CREATE TABLE test_ks.two_rows_fast_forwarding (pk int, ck int, rc int, PRIMARY KEY (pk, ck));",
     [{"pk": 0, "ck": 7, "rc": 7}, {"pk": 0, "ck": 8, "rc": 8}])

case("scylla/read_empty_index", f"{UNCOMPRESSED}/read_empty_index",
     "CREATE TABLE sst3.empty_index (pk text PRIMARY KEY);",
     [{"pk": "привет"}])

case("scylla/skip_using_index_rows", f"{UNCOMPRESSED}/skip_using_index_rows",
     "CREATE TABLE test_ks.skip_index_test (pk int, ck int, st int static, rc text, PRIMARY KEY (pk, ck));",
     in_murmur3_order([{"pk": pk, "ck": ck, "st": {1: 777, 2: 999}[pk], "rc": "b" * 1024 + str(ck)}
                       for pk in (1, 2) for ck in range(1024)]))

# Rows (i, i) with rc = i for i in 1, 4, 7, ... < 131072; the range tombstones
# cover ck1 in [i+1, i+2] only, so every row stays.
case("scylla/filtering_and_forwarding_range_tombstones", f"{UNCOMPRESSED}/filtering_and_forwarding_range_tombstones",
     "CREATE TABLE test_ks.filtering_and_ff_rt (pk int, ck1 int, ck2 int, st int static, rc int, "
     "PRIMARY KEY (pk, ck1, ck2));",
     in_murmur3_order([{"pk": pk, "ck1": i, "ck2": i, "st": {1: 777, 2: 999}[pk], "rc": i}
                       for pk in (1, 2) for i in range(1, 1024 * 128, 3)]))

# Range tombstones over ck1 in [i, i+4] (ts ...568) under rows (i+3, i+3) written later (ts ...578),
# for i = 1, 6, 11, ... < 131072 (bound from sstable_3_x_test.cc).
case("scylla/slicing_interleaved_rows_and_rts", f"{UNCOMPRESSED}/slicing_interleaved_rows_and_rts",
     "CREATE TABLE test_ks.slicing_interleaved_rows_and_rts (pk int, ck1 int, ck2 int, st int static, rc int, "
     "PRIMARY KEY (pk, ck1, ck2));",
     [{"pk": 1, "ck1": i + 3, "ck2": i + 3, "st": 555, "rc": i + 3} for i in range(1, 1024 * 128, 5)])

# Nothing but range tombstones.
case("scylla/read_range_tombstone_boundaries_index", f"{UNCOMPRESSED}/read_range_tombstone_boundaries_index",
     "CREATE TABLE sst3.range_tombstone_boundaries_index (pk text, ck1 text, ck2 text, PRIMARY KEY (pk, ck1, ck2));",
     [])

# INSERT INTO ks.cf (key, c1, c2) VALUES ('a', 'abc', 'cde') (the column list is that of the migration
# test that wrote it). A static COMPACT STORAGE table: SELECT shows key, c1 and c2 only.
case("scylla/cassandra_static_compact", f"{SCYLLA}/cassandra_static_compact/ks/cf-1c6ace40fad111e7b9cf000000000002",
     "CREATE TABLE ks.cf (key varchar PRIMARY KEY, c2 text, c1 text) WITH COMPACT STORAGE;",
     [{"key": "a", "c1": "abc", "c2": "cde"}])

# --- scylladb-3.x write goldens: USING TIMESTAMP 1525385507816568 ------------

GOLDENS = f"{SCYLLA}/write-goldens"
NO_COMPRESSION = " WITH compression = {'sstable_compression': ''}"


def golden(name, columns, rows, *, types="", options=NO_COMPRESSION, **kwargs):
    schema = f"{types}CREATE TABLE sst3.{name} ({columns}){options};"
    case(f"scylla/write_{name}", f"{GOLDENS}/write_{name}", schema, rows, **kwargs)


# Only static cells: SELECT shows the partition with a null clustering column.
golden("static_row", "pk text, ck int, st1 int static, st2 text static, PRIMARY KEY (pk, ck)",
       [{"pk": "key1", "ck": None, "st1": 1135, "st2": "hello"}])
golden("composite_partition_key",
       "a int, b text, c boolean, d int, e text, f int, g text, PRIMARY KEY ((a, b, c), d, e)",
       [{"a": 1, "b": "hello", "c": True, "d": 2, "e": "dear", "f": 3, "g": "world"}])
golden("composite_clustering_key", "a int, b text, c int, d text, e int, f text, PRIMARY KEY (a, b, c, d)",
       [{"a": 1, "b": "hello", "c": 2, "d": "dear", "e": 3, "f": "world"}])

# TTL 1135. The README's "now" (1525385507) is the write timestamp; sstable_3_x_test.cc gives the
# cells local times of 2018-12-04. Both readings agree that the data lives at 1525385507 and has
# expired by LATER, so those are the two instants checked.
WRITE_TIME = 1525385507
golden("ttled_row", "pk int, ck int, rc int, PRIMARY KEY (pk, ck)",
       [{"pk": 1, "ck": 2, "rc": 3}], now=WRITE_TIME)
golden("ttled_row", "pk int, ck int, rc int, PRIMARY KEY (pk, ck)", [], now=LATER)
golden("ttled_column", "pk text PRIMARY KEY, rc int", [{"pk": "key", "rc": 1}], now=WRITE_TIME)
# An UPDATE: no primary key liveness, so nothing is left once rc expires.
golden("ttled_column", "pk text PRIMARY KEY, rc int", [], now=LATER)
golden("deleted_column", "pk int PRIMARY KEY, rc int", [])
golden("deleted_row", "pk int, ck int, PRIMARY KEY (pk, ck)", [])
golden("collection_wide_update", "pk int PRIMARY KEY, col set<int>", [{"pk": 1, "col": [2, 3]}])
golden("collection_incremental_update", "pk int PRIMARY KEY, col set<int>", [{"pk": 1, "col": [2]}])

# Column names from sstable_3_x_test.cc (the README lists the types only).
golden("different_types",
       "pk text PRIMARY KEY, asciival ascii, bigintval bigint, blobval blob, boolval boolean, dateval date, "
       "decimalval decimal, doubleval double, floatval float, inetval inet, intval int, smallintval smallint, "
       "timeval time, tsval timestamp, timeuuidval timeuuid, tinyintval tinyint, uuidval uuid, "
       "varcharval varchar, varintval varint, durationval duration",
       [{"pk": "key", "asciival": "hello", "bigintval": 9223372036854775807, "blobval": "0x6772656174",
         "boolval": True, "dateval": "2017-05-05", "decimalval": 5.45, "doubleval": 36.6,
         "durationval": "1h4m48s20ms", "floatval": 7.62, "inetval": "192.168.0.110", "intval": -2147483648,
         "smallintval": 32767, "timeuuidval": TIMEUUID, "timeval": "19:45:05.090000000", "tinyintval": 127,
         "tsval": "2015-05-01 09:30:54.234Z", "uuidval": UUID, "varcharval": "привет", "varintval": 123}])
golden("user_defined_type_table", "pk int PRIMARY KEY, rc frozen<ut>",
       [{"pk": 0, "rc": {"my_int": 1703, "my_boolean": True, "my_text": "Санкт-Петербург"}}],
       types="CREATE TYPE sst3.ut (my_int int, my_boolean boolean, my_text text);\n")
# INSERT (pk, ck1, rc): a clustering prefix, so ck2 is null.
golden("compact_table", "pk int, ck1 int, ck2 int, rc int, PRIMARY KEY (pk, ck1, ck2)",
       [{"pk": 1, "ck1": 1, "ck2": None, "rc": 1}], options=NO_COMPRESSION + " AND COMPACT STORAGE")
golden("empty_clustering_values", "pk int, ck1 text, ck2 int, ck3 text, rc int, PRIMARY KEY (pk, ck1, ck2, ck3)",
       [{"pk": 0, "ck1": "", "ck2": 1, "ck3": "", "rc": 2}])
golden("empty_static_row", "pk int, ck int, st int static, rc int, PRIMARY KEY (pk, ck)",
       in_murmur3_order([{"pk": 0, "ck": 1, "st": None, "rc": 2}, {"pk": 1, "ck": 1, "st": 2, "rc": 3}]))
golden("interleaved_atomic_and_collection_columns",
       "pk int, ck int, rc1 int, rc2 set<int>, rc3 int, rc4 set<int>, rc5 int, rc6 set<int>, PRIMARY KEY (pk, ck)",
       [{"pk": 0, "ck": 1, "rc1": 2, "rc2": None, "rc3": None, "rc4": [3, 4], "rc5": 5, "rc6": None}])
golden("simple_range_tombstone", "pk int, ck1 text, ck2 text, rc text, PRIMARY KEY (pk, ck1, ck2)", [])
golden("non_adjacent_range_tombstones", "pk text, ck1 text, ck2 text, ck3 text, PRIMARY KEY (pk, ck1, ck2, ck3)", [])
golden("overlapped_range_tombstones", "pk text, ck1 text, ck2 text, ck3 text, PRIMARY KEY (pk, ck1, ck2, ck3)", [])
# DELETE ck1 = 'aaa' (..568); INSERT (0, 'aaa', 'bbb') (..578); DELETE ck1 = 'aaa' AND ck2 > 'bbb' (..588).
golden("overlapped_start_range_tombstones", "pk int, ck1 text, ck2 text, PRIMARY KEY (pk, ck1, ck2)",
       [{"pk": 0, "ck1": "aaa", "ck2": "bbb"}])

# --- apache-cassandra legacy-sstables -------------------------------------

LEGACY = "apache-cassandra/legacy-sstables"
LONG = "0123456789" * 120
RANDOM128 = {
    "da_clust":
        "wxappmnfhjwtvqhxcmeeupmryhmmvjmcxrcbvtxfdyeaxbeemxusoynrkhgatsei"
        "qrrcseynuwevqdipsgplgvqcelsjdtlkeetrcufulrzonyuscrlbowotizznpmcd",
    "ma_clust":
        "ftzoazjbohvmcdapafmgerkdrcqqhixhfqoasklsfjbbubbhcahxnljfgxvmipra"
        "pmexbduesgleepqpgjdpxtoxeldnokapzqimsgpyshbrosspfgtlpwlasbibibsz",
    "ma_clust_compact":
        "jwqwvlwohwpcijvmsuuvpaknrzwoatxrfuifsjwcdisxsdbxwocmfjgtszmcabvn"
        "cgjabxsflisichlvcvuyqpndtobcdgdqgbajknlxleedtdzjkrjrianfnccqseny",
    "mb_clust":
        "xhjslncmrlawwklkjfielihyxhvjveflytyozhloteietrhlvfhjufpksjnoisye"
        "nsxbsnncsqsapktkvcmjuybwauwzgifurwmnoqlhlnkoasjupuhqoqjtjubfnvpw",
    "mb_clust_compact":
        "xhjslncmrlawwklkjfielihyxhvjveflytyozhloteietrhlvfhjufpksjnoisye"
        "nsxbsnncsqsapktkvcmjuybwauwzgifurwmnoqlhlnkoasjupuhqoqjtjubfnvpw",
    "mc_clust":
        "lcwqmhfwfoddagjtftqbfuvvrbwmdsgrygoscskugthnycyavmokaekgqvnkplai"
        "duxfhpbjrqfejvvxsalbdklrgaqxixmpfjgenclvpdlfdjwklluhkgkbphrrwpxk",
    "mc_clust_compact":
        "lcwqmhfwfoddagjtftqbfuvvrbwmdsgrygoscskugthnycyavmokaekgqvnkplai"
        "duxfhpbjrqfejvvxsalbdklrgaqxixmpfjgenclvpdlfdjwklluhkgkbphrrwpxk",
    "md_clust":
        "rmutqivrrhbtaatvlazzffickifqhpcgawugxdjwntjunopwdabeabwoigqakgjs"
        "inmkblrskzrogjbizvqhwhzchvqlhlzxhoabjgjcxamofytnzhnxlpyhylzlrzdt",
    "md_clust_compact":
        "rmutqivrrhbtaatvlazzffickifqhpcgawugxdjwntjunopwdabeabwoigqakgjs"
        "inmkblrskzrogjbizvqhwhzchvqlhlzxhoabjgjcxamofytnzhnxlpyhylzlrzdt",
    "me_clust":
        "oixgnbacuexwrsuuwzjuszpgsdswwtwepgqasmaymumevsvgdpogvetmrhbxgwel"
        "okmvkqmqdrhxlhzqbtgddexfvfeymprrbgsnmsnuprimiclezljvhsmmvqxcwzvj",
    "me_clust_compact":
        "oixgnbacuexwrsuuwzjuszpgsdswwtwepgqasmaymumevsvgdpogvetmrhbxgwel"
        "okmvkqmqdrhxlhzqbtgddexfvfeymprrbgsnmsnuprimiclezljvhsmmvqxcwzvj",
    "na_clust":
        "tilwrdsqcbziyboacbzwaqbclreiftzigpsrucqodvzsekvwlatkgndaqzbhcxiz"
        "kybkkcnqdypjmlmaijqmzgqgprpxuawfbbrtvghiouregebrudkhucnbwlagwdaa",
    "na_clust_compact":
        "ahjeneczajzidcricaboegbkwdzcllprkrdiavcwukizzjcniwaltrnfxsmnxtxe"
        "gojvviboufaqmtkgejomzgxirmujuouonaoenyfevgjgeszhlzechldgoneogzmm",
    "nb_clust":
        "lxvwpnwfbdpmayjujittwghygywemwpvlemfkutzstfbiednkferyifrvvauhpdo"
        "wraebccylljbibrbolnnoifwjkspqzgjdihyknypyzricuymwknfitpvjmvpcxob",
    "nc_clust":
        "gcnersapjsyifswdtadrieasyvangpmuvwsniejmykstmyibyitotyxaliayvcvr"
        "mmrjtjipdwotlkaawoidkdyifnjwxofycrgxxxaqchqdmuihrxcwodwdtxrtubkc",
    "oa_clust":
        "rvuxpepvjxefzigbwqiygtxglwthqvrmbvqhewhyaznsquqbfualplyzbeqjeuyl"
        "znsjivvrwwiajaxykiodasryolrtzpvduxfukbvcrrrjdokvklidxbzdvenrpddn",
}
# EXPECTED_CONTENT.md says Murmur3Partitioner, but the Statistics.db of every legacy table names
# org.apache.cassandra.dht.ByteOrderedPartitioner (the partitioner of Cassandra's unit-test
# configuration, which LegacySSTableTest ran in); test_legacy_tables_are_byte_ordered checks that.
# Under it partitions come in the order of their key bytes: '0', '1', '2', '3', '4'.
LEGACY_KEYS = ["0", "1", "2", "3", "4"]
# Clustering keys: decimal(ck) followed by LONG, in the order of their UTF-8 bytes.
LEGACY_CKS = sorted(f"{ck}{LONG}" for ck in range(50))

for v in ["ma", "mb", "mc", "md", "me", "na", "nb", "nc", "oa", "da"]:
    for suffix in ([""] + (["_compact"] if v in ("ma", "mb", "mc", "md", "me", "na") else [])):
        options = " WITH COMPACT STORAGE" if suffix else ""
        table = f"legacy_{v}_simple{suffix}"
        case(f"legacy/{v}/{table}", f"{LEGACY}/{v}/legacy_tables/{table}",
             f"CREATE TABLE legacy_tables.{table} (pk text PRIMARY KEY, val text){options};",
             [{"pk": pk, "val": "foo bar baz"} for pk in LEGACY_KEYS])
        table = f"legacy_{v}_simple_counter{suffix}"
        case(f"legacy/{v}/{table}", f"{LEGACY}/{v}/legacy_tables/{table}",
             f"CREATE TABLE legacy_tables.{table} (pk text PRIMARY KEY, val counter){options};",
             [{"pk": pk, "val": 1} for pk in LEGACY_KEYS])
        table = f"legacy_{v}_clust{suffix}"
        case(f"legacy/{v}/{table}", f"{LEGACY}/{v}/legacy_tables/{table}",
             f"CREATE TABLE legacy_tables.{table} (pk text, ck text, val text, PRIMARY KEY (pk, ck)){options};",
             [{"pk": pk, "ck": ck, "val": RANDOM128[f"{v}_clust{suffix}"]} for pk in LEGACY_KEYS for ck in LEGACY_CKS])
        table = f"legacy_{v}_clust_counter{suffix}"
        case(f"legacy/{v}/{table}", f"{LEGACY}/{v}/legacy_tables/{table}",
             f"CREATE TABLE legacy_tables.{table} (pk text, ck text, val counter, PRIMARY KEY (pk, ck)){options};",
             [{"pk": pk, "ck": ck, "val": 1} for pk in LEGACY_KEYS for ck in LEGACY_CKS])

# The row (4, 4, 4) survives the range tombstone c1 < 3.
case("legacy/mc/legacy_mc_inaccurate_min_max", f"{LEGACY}/mc/legacy_tables/legacy_mc_inaccurate_min_max",
     "CREATE TABLE legacy_tables.legacy_mc_inaccurate_min_max (k int, c1 int, c2 int, c3 int, v int, "
     "PRIMARY KEY (k, c1, c2, c3));",
     [{"k": 100, "c1": 4, "c2": 4, "c3": 4, "v": 4}])

# --- apache-cassandra negative-local-expiration-test -----------------------
# Written USING TTL 630720000 by a 3.x whose 32-bit expiration time overflowed. The README:
# "Cassandra 5.0 (uint deletion time, CASSANDRA-14227) reads them as live", with the rows that
# scrub restores for older versions. Any time between the writes (2018) and 2038 sees them.

NEGATIVE_EXPIRATION = "apache-cassandra/negative-local-expiration-test"
V1_4 = ["v11", "v12", "v13", "v14"]
V2_4 = ["v21", "v22", "v23", "v24"]
case("negative-local-expiration/table1", f"{NEGATIVE_EXPIRATION}/table1",
     "CREATE TABLE cql_test_keyspace.t (k int PRIMARY KEY, a int, b int);",
     in_murmur3_order([{"k": 1, "a": 1, "b": 1}, {"k": 2, "a": 2, "b": None}], key=lambda r: int_key(r["k"])),
     now=LATER)
case("negative-local-expiration/table2", f"{NEGATIVE_EXPIRATION}/table2",
     "CREATE TABLE cql_test_keyspace.t (k int, a int, b int, PRIMARY KEY (k, a));",
     in_murmur3_order([{"k": 1, "a": 1, "b": 1}, {"k": 2, "a": 2, "b": None}], key=lambda r: int_key(r["k"])),
     now=LATER)
case("negative-local-expiration/table3", f"{NEGATIVE_EXPIRATION}/table3",
     "CREATE TABLE cql_test_keyspace.t (k int PRIMARY KEY, a int, b set<text>);",
     in_murmur3_order([{"k": 1, "a": 1, "b": V1_4}, {"k": 2, "a": 2, "b": V2_4}], key=lambda r: int_key(r["k"])),
     now=LATER)
case("negative-local-expiration/table4", f"{NEGATIVE_EXPIRATION}/table4",
     "CREATE TABLE cql_test_keyspace.t (k int, a int, b set<text>, PRIMARY KEY (k, a));",
     in_murmur3_order([{"k": 1, "a": 1, "b": V1_4}, {"k": 2, "a": 2, "b": V2_4}], key=lambda r: int_key(r["k"])),
     now=LATER)

# --- apache-cassandra negative-ldts-invalid-deletions-test -----------------
# Deletions with local deletion time -1. With the default corrupted_tombstone_strategy (disabled)
# Cassandra reads them; the documented rows (1,1,'1') and (0,0,'0') stay, and partition 22 holds
# nothing live in the two tables where it is deleted as a whole.

INVALID = "apache-cassandra/negative-ldts-invalid-deletions-test"
INVALID_ROWS = in_murmur3_order([{"id": 0, "id2": 0, "b": "0"}, {"id": 1, "id2": 1, "b": "1"}],
                                key=lambda r: int_key(r["id"]))
case("negative-ldts/invalid_partition_deletion", f"{INVALID}/invalid_partition_deletion",
     "CREATE TABLE ks.invalid_partition_deletion (id int, id2 int, b text, PRIMARY KEY (id, id2));", INVALID_ROWS)
case("negative-ldts/invalid_range_tombstone_compaction", f"{INVALID}/invalid_range_tombstone_compaction",
     skip="the README lists only a range tombstone in partition 22, but the file (as sstabledump shows it) also "
          "holds a row (22, 33) written after that tombstone, whose timestamp is in milliseconds; the "
          "documented content is incomplete")
case("negative-ldts/invalid_tombstones", f"{INVALID}/invalid_tombstones",
     skip="whether row (22, 33) shows depends on how a cell tombstone with local deletion time -1 reads "
          "(Cassandra 5.0 decodes 0xFFFFFFFF as 'no deletion time'); the README documents only rejection")
case("negative-ldts/invalid_range_tombstone_reader", f"{INVALID}/invalid_range_tombstone_reader",
     skip="the README does not say which rows of partition 22 the range tombstone covers, nor its timestamp")

# --- apache-cassandra-dtest ttl_test: two generations each ------------------
# "key=1, col1=1 written with a TTL whose local expiration time overflowed"; "Cassandra >= 5.0
# reads 1 row directly" (older versions return [1, 1, null, null] only after scrub).

TTL_TABLE = "CREATE TABLE ks.ttl_table (key int PRIMARY KEY, col1 int, col2 int, col3 int);"


def check_ttl_table(rows):
    # The README gives the row count for the two generations together, not col1: mc-2 holds a
    # tombstone for col1 with the same timestamp as mc-1's value, and at equal timestamps a tombstone
    # wins (Cells.resolveRegular), so Cassandra 5.0 would show col1 as null.
    assert len(rows) == 1
    assert {name: rows[0][name] for name in ("key", "col2", "col3")} == {"key": 1, "col2": None, "col3": None}


for version in ["3.0", "3.11"]:
    case(f"dtest/ttl_test/{version}/mc-1", f"apache-cassandra-dtest/ttl_test/{version}/mc-1-big-Data.db",
         TTL_TABLE, [{"key": 1, "col1": 1, "col2": None, "col3": None}], now=LATER)
    case(f"dtest/ttl_test/{version}", f"apache-cassandra-dtest/ttl_test/{version}",
         TTL_TABLE, check=check_ttl_table, now=LATER)

# --- sstable-tools-3.x: one directory holding SSTables of several tables ----

TOOLS = "sstable-tools-3.x/resources"


def check_composites(rows):
    # "2 partitions" (TestSelect: two result rows); the values are not documented.
    assert len(rows) == 2
    assert [list(row) for row in rows] == [["key1", "key2", "ckey1", "ckey2", "value"]] * 2
    assert len({(row["key1"], row["key2"]) for row in rows}) == 2


def check_wide(rows):
    # "4 partitions, each with 9 rows, clustered 1-9 with val = 'X'"; the keys are not documented.
    keys = list(dict.fromkeys(row["key"] for row in rows))
    assert len(keys) == 4
    assert rows == [{"key": key, "key2": str(n), "val": "X"} for key in keys for n in range(1, 10)]


def check_temperatures(rows):
    # TestSelect#testSelectGroupBy: two partitions, 2016-04-03 with average 71.5, 2016-04-04 with 73.5.
    by_partition = {}
    for row in rows:
        by_partition.setdefault((row["weatherstation_id"], row["date"]), []).append(row["temperature"])
    assert sorted(date for _, date in by_partition) == ["2016-04-03", "2016-04-04"]
    averages = {date: sum(t) / len(t) for (_, date), t in by_partition.items()}
    assert averages == {"2016-04-03": pytest.approx(71.5), "2016-04-04": pytest.approx(73.5)}
    for (station, date), _ in by_partition.items():
        times = [row["event_time"] for row in rows if (row["weatherstation_id"], row["date"]) == (station, date)]
        assert times == sorted(times)


case("sstable-tools/ma-1 composites", f"{TOOLS}/ma-1-big-Data.db",
     "CREATE TABLE composites (key1 varchar, key2 varchar, ckey1 varchar, ckey2 varchar, value bigint, "
     "PRIMARY KEY ((key1, key2), ckey1, ckey2));",
     check=check_composites)
case("sstable-tools/ma-2 users", f"{TOOLS}/ma-2-big-Data.db",
     "CREATE TABLE blog.users (user_name varchar PRIMARY KEY, password varchar, gender varchar, state varchar, "
     "birth_year bigint);",
     [{"user_name": "frodo", "birth_year": 1985, "gender": "male", "password": "pass@", "state": "CA"}])
case("sstable-tools/ma-3 wide", f"{TOOLS}/ma-3-big-Data.db",
     "CREATE TABLE test.wide (key text, key2 text, val text, PRIMARY KEY (key, key2));",
     check=check_wide)
case("sstable-tools/ma-4 collections", f"{TOOLS}/ma-4-big-Data.db",
     "CREATE TABLE collections (key1 varchar, listval list<text>, mapval map<text, text>, setval set<text>, "
     "PRIMARY KEY (key1));",
     [{"key1": "1", "listval": ["1"], "mapval": {"mapkey": "mapvalue"}, "setval": ["set"]}])
case("sstable-tools/mb-1 system.batches", f"{TOOLS}/mb-1-big-Data.db",
     skip="the README gives neither the batch id nor whether its one row has primary key liveness "
          "('Row:  | ' is printed for tombstoned rows too)")
case("sstable-tools/mc-1 temperature_by_day", f"{TOOLS}/mc-1-big-Data.db",
     "CREATE TABLE temperature_by_day (weatherstation_id text, date text, event_time timestamp, "
     "temperature float, PRIMARY KEY ((weatherstation_id, date), event_time));",
     check=check_temperatures)

# --- sstable-to-arrow -------------------------------------------------------

IOT = "sstable-to-arrow/baselines/iot-5b608090e03d11ebb4c1d335f841c590"


def check_iot(rows):
    # Pseudo-random NoSQLBench data: only the shape is documented, CLUSTERING ORDER BY (time DESC).
    assert rows
    partitions = {}
    for row in rows:
        assert list(row) == ["machine_id", "sensor_name", "time", "data", "sensor_value", "station_id"]
        partitions.setdefault((row["machine_id"], row["sensor_name"]), []).append(row["time"])
    keys = [(row["machine_id"], row["sensor_name"]) for row in rows]
    runs = 1 + sum(1 for a, b in zip(keys, keys[1:]) if a != b)
    assert runs == len(partitions), "a partition's rows are not contiguous"
    for times in partitions.values():
        assert times == sorted(times, reverse=True) and len(set(times)) == len(times)


case("sstable-to-arrow/iot", IOT, (FIXTURES / IOT / "snapshots/truncated-1625783969724-iot/schema.cql"),
     check=check_iot)
case("sstable-to-arrow/SSTableLoaderTest/Standard1", "sstable-to-arrow/SSTableLoaderTest/Standard1",
     skip="the README calls the schema only probable (key, name, val, val1 ascii), so the column names "
          "SELECT would print are not documented")

# --- pcass-cassandra-3.0.29: schema from the data directory's system_schema ---
# The README documents the kind of content of some tables, not their rows.

PCASS = "pcass-cassandra-3.0.29/cassandra3_data_want/sina_test"


def check_boolean_set(rows):
    # "row 1 inserted as {true,true} => {true}" (the column names are in system_schema only).
    assert any(list(row.values())[0] == 1 and [True] in row.values() for row in rows)


def check_twenty_rows(rows):
    # "20 text partitions": the partition key comes first in a SELECT row.
    keys = [list(row.values())[0] for row in rows]
    assert len(rows) == 20 and len(set(keys)) == 20 and all(isinstance(key, str) for key in keys)


def check_twenty_rows_composite(rows):
    # "1 partition 'A', 20 text clusterings": the partition key then the clustering column come first.
    assert len(rows) == 20
    assert all(list(row.values())[0] == "A" for row in rows)
    clusterings = [list(row.values())[1] for row in rows]
    assert len(set(clusterings)) == 20 and all(isinstance(c, str) for c in clusterings)


def check_undefined_values(rows):
    # "column `notthere` never written"
    assert rows and all(row["notthere"] is None for row in rows)


def check_sina_table(rows):
    # "PRIMARY KEY ((id), name), 68 regular columns (> 64 => large-subset column bitmaps), 7 sparse rows".
    # The count is not exact: the Statistics.db header alone names 66 regular columns (aboutme, age,
    # gender, col2..col64), and the table has col1 too. What matters is "more than 64".
    assert len(rows) == 7
    assert all(len(row) - 2 > 64 and list(row)[:2] == ["id", "name"] for row in rows)
    assert all(any(value is None for value in row.values()) for row in rows)


def check_dynamic_columns(rows):
    # "WITH COMPACT STORAGE, float clustering column incl. negative/-0.0001"
    assert any(value == pytest.approx(-0.0001) for row in rows for value in row.values()
               if isinstance(value, float))


case("pcass/table_with_boolean_set", f"{PCASS}/table_with_boolean_set-9009a8a0a1c711eeae8c6d2c86545d91",
     check=check_boolean_set)
case("pcass/twenty_rows_table", f"{PCASS}/twenty_rows_table-90b997b0a1c711eeae8c6d2c86545d91",
     check=check_twenty_rows)
case("pcass/twenty_rows_composite_table", f"{PCASS}/twenty_rows_composite_table",
     check=check_twenty_rows_composite)
case("pcass/undefined_values_table", f"{PCASS}/undefined_values_table-90dd4c50a1c711eeae8c6d2c86545d91",
     check=check_undefined_values)
case("pcass/sina_table", f"{PCASS}/sina_table-904be1c0a1c711eeae8c6d2c86545d91", check=check_sina_table)
case("pcass/dynamic_columns", f"{PCASS}/dynamic_columns-90a413e0a1c711eeae8c6d2c86545d91",
     check=check_dynamic_columns)
for name in ["table_with_set", "table_with_map", "table_with_list", "has_all_types",
             "ascii_with_special_chars", "utf8_with_special_chars", "users", "songs"]:
    case(f"pcass/{name}", f"{PCASS}/{name}", skip="the README describes the kind of values, not the rows")


# ---------------------------------------------------------------------------


def resolve(relative: str) -> pathlib.Path:
    """The fixture path; a pcass table directory may be named by its prefix."""
    path = FIXTURES / relative
    if path.exists():
        return path
    matches = sorted(path.parent.glob(path.name + "-*"))
    assert len(matches) == 1, f"{relative}: expected one table directory, found {matches}"
    return matches[0]


def select(cqlite, path, schema, now, tmp_path):
    args = ["select", path]
    if isinstance(schema, pathlib.Path):
        args += ["--schema", schema]
    elif schema:
        schema_file = tmp_path / "schema.cql"
        schema_file.write_text(schema + "\n")
        args += ["--schema", schema_file]
    if now is not None:
        args += ["--now", now]
    proc = cqlite(*args, check=False, timeout=900)
    assert proc.returncode == 0, f"cqlite {' '.join(map(str, args))} failed:\n{proc.stderr}"
    return [json.loads(line) for line in proc.stdout.splitlines()]


def same(a, b):
    """Equal JSON values of the same types (true is not 1, 1.0 is not 1), objects with their keys in
    the same order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def first_difference(got, expected):
    for i, (g, e) in enumerate(zip(got, expected)):
        if not same(g, e):
            return f"row {i}:\n  got      {json.dumps(g, ensure_ascii=False)[:600]}\n" \
                   f"  expected {json.dumps(e, ensure_ascii=False)[:600]}"
    return f"{len(got)} rows, expected {len(expected)}"
