"""Seeded random workloads for comparing `cqlite select` with Cassandra.

    make_workloads(seed, count) -> (scenario text, [workload description])

Every workload owns a keyspace `w<index>` holding one table named after its
shape. The scenario (tools/oracle scenario syntax) creates all of them, then
replays their batches in phases: phase k runs batch k of every workload that
has one, then `-- flush` (one more SSTable generation per table written to),
then the `-- compact` directives due after that phase. Time passes between
phases, so short TTLs run out between writes, flushes and compactions. At the
end every table is queried with `-- select` (after the last flush, so the
node's answer comes from the SSTables alone), some a second time with a later
query time.

About half of the workloads alter their table between some of their
generations (SchemaChanger; drawn from a random generator of their own, so
that a workload without changes is what it was before they existed, and
make_workloads(..., schema_changes=False) leaves every workload unaltered):
columns added (regular; static when the table has clustering columns;
collections; frozen and non-frozen user types of a new type; counter columns,
and only those, in counter tables), non-key columns dropped (never a
non-frozen user type, which Cassandra refuses; in workloads with FUTURE
timestamps at a timestamp above all of them) and sometimes added again with
the same name and type, primary key columns renamed, user type fields added
and renamed, a table option changed. The batch after a change starts with its
statements, and every later statement uses the columns as they then are.
After each phase such a workload's keyspace is described (`-- describe`:
ks/schema.N.cql, naming each table's live generations), so that a test can
give each generation the schema it was written with.

A workload depends only on (seed, index): make_workloads(seed, count,
indexes=[7]) rebuilds workload 7 of a larger run on its own.

Statements are valid by construction; any statement Cassandra rejects aborts
the whole scenario. Rules kept (Cassandra 5.0):
- counter tables: UPDATE only (no INSERT), no USING TTL, no USING TIMESTAMP,
  no default_time_to_live; a counter cell is never incremented again once a
  deletion may cover it (delete-then-increment is undefined);
- setting or deleting a list element by index needs an element there when
  the statement runs: only done on lists whose content is known exactly (last
  written in full by a clock-timestamped statement without TTL, and changed
  since only by clock-timestamped statements without TTL), and never in
  workloads that write with timestamps above the clock or use a default TTL;
- regular cells are written or deleted with the full primary key; static
  cells alone with the partition key; range deletions name no columns and
  restrict the clustering columns before the ranged one by equality;
- no empty partition keys, no durations in keys, set elements or map keys,
  no static columns without clustering columns.

Explicit timestamps are either far below every clock timestamp (PAST, year
2001) or far above (FUTURE, year 2096), with small offsets so ties happen on
purpose and by chance. Clock timestamps of one node increase strictly, so the
only ties are between explicit timestamps.
"""
import argparse
import datetime
import decimal
import ipaddress
import json
import random
import uuid

PAST = 1_000_000_000_000_000
FUTURE = 4_000_000_000_000_000

# TTLs: mostly short enough to run out during the run, some outliving it.
SHORT_TTLS = (1, 1, 2, 2, 3, 3)
LONG_TTLS = (5, 20, 60, 3600, 86400)
# Offsets of a second select: see more TTLs run out.
SELECT_OFFSETS = (2, 5, 30, 100, 4000, 90000, 100_000_000)


def quote(text):
    return "'" + text.replace("'", "''") + "'"


# ---------------------------------------------------------------------------
# Types. Every type draws random values as CQL literals; `draw` returns a
# (sort key, literal) pair whose sort key follows Cassandra's order for the
# type closely enough to build non-empty ranges.


class Type:
    kind = "scalar"
    frozen = True
    keyable = True  # may be a key column, set element or map key

    def draw(self, rng):
        raise NotImplementedError

    def value(self, rng):
        return self.draw(rng)[1]

    def keys(self, rng, n, non_empty=False):
        """n distinct literals (fewer if the type has fewer), sorted."""
        seen = {}
        for _ in range(n * 20):
            if len(seen) == n:
                break
            order, literal = self.draw(rng)
            if non_empty and literal in ("''", "0x"):
                continue
            seen.setdefault(literal, order)
        return [lit for lit, _ in sorted(seen.items(), key=lambda kv: kv[1])]


class Scalar(Type):
    def __init__(self, cql, draw, keyable=True):
        self.cql = cql
        self._draw = draw
        self.keyable = keyable

    def draw(self, rng):
        return self._draw(rng)


def _int_drawer(bits, small=1000):
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1

    def draw(rng):
        r = rng.random()
        if r < 0.1:
            v = rng.choice((lo, hi, 0, -1, 1))
        elif r < 0.3:
            v = rng.randint(lo, hi)
        else:
            v = rng.randint(max(lo, -small), min(hi, small))
        return v, str(v)
    return draw


def _varint(rng):
    v = rng.choice((rng.randint(-100, 100), rng.randint(-10**30, 10**30), 2**63, -2**63 - 1, 0))
    return v, str(v)


def _decimal(rng):
    r = rng.random()
    if r < 0.2:
        text = rng.choice(("0", "0.0", "1.50", "-0.001", "1E+10", "1.5E-7", "123456789012345678901234567890.12345"))
    else:
        text = f"{rng.randint(-10**6, 10**6)}.{rng.randint(0, 999):03d}"
    return decimal.Decimal(text), text


FLOATS = ("0.0", "1.5", "-2.25", "0.1", "3.4028235E38", "1.0E-7", "100.0", "-0.0", "1234.5677")
DOUBLES = ("0.0", "1.5", "-2.25", "0.1", "1.7976931348623157E308", "4.9E-324", "1.0E-7", "3.141592653589793",
           "-1.0E100", "100.0")


def _float_drawer(choices, specials):
    def draw(rng):
        r = rng.random()
        if r < 0.03:
            text = rng.choice(specials)
            return float("-inf") if text.startswith("-") else float("inf"), text
        if r < 0.5:
            text = rng.choice(choices)
        else:
            text = repr(rng.randint(-10000, 10000) / 8)
        return float(text), text
    return draw


WORDS = ("a", "b", "c", "apple", "banana", "Zebra", "zz", "éclair", "日本", "it's", 'say "hi"', "tab\there",
         "back\\slash", " space", "ß", "emoji 🙂", "x" * 40, "0", "A", "aa")
ASCII_WORDS = ("a", "b", "abc", "ABC", "it's", "~!@#", "0123", "z", "with space", "q\"uote")


def _text(rng):
    s = "" if rng.random() < 0.05 else rng.choice(WORDS)
    return s.encode("utf-8"), quote(s)


def _ascii(rng):
    s = "" if rng.random() < 0.05 else rng.choice(ASCII_WORDS)
    return s.encode("ascii"), quote(s)


def _blob(rng):
    b = bytes(rng.randrange(256) for _ in range(rng.choice((0, 1, 2, 4, 8))))
    return b, "0x" + b.hex()


def _boolean(rng):
    v = rng.random() < 0.5
    return v, "true" if v else "false"


def _date(rng):
    days = rng.choice((rng.randint(-30000, 60000), 0, -1, rng.randint(18000, 20000)))
    d = datetime.date(1970, 1, 1) + datetime.timedelta(days=days)
    return days, quote(d.isoformat())


def _time(rng):
    nanos = rng.choice((0, 86399999999999, rng.randint(0, 86399999999999), rng.randint(0, 86399) * 10**9))
    s, ns = divmod(nanos, 10**9)
    text = f"{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}.{ns:09d}"
    return nanos, quote(text)


def _timestamp(rng):
    ms = rng.choice((0, -1000, rng.randint(-2208988800000, 4102444800000), rng.randint(1500000000000, 1800000000000)))
    dt = datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=ms)
    return ms, quote(dt.strftime("%Y-%m-%d %H:%M:%S.") + f"{dt.microsecond // 1000:03d}+0000")


def _uuid(rng):
    u = uuid.UUID(int=rng.getrandbits(128), version=4)
    return (4, u.bytes), str(u)


def _timeuuid(rng):
    t = rng.randint(0x01B21DD213814000, 0x01B21DD213814000 + 10**17)
    u = uuid.UUID(fields=(t & 0xFFFFFFFF, (t >> 32) & 0xFFFF, (t >> 48) & 0x0FFF, rng.randrange(64), rng.randrange(256),
                          rng.getrandbits(48)), version=1)
    return (t, u.bytes), str(u)


def _inet(rng):
    text = rng.choice(("127.0.0.1", "10.0.0.1", "192.168.1.254", "::1", "2001:db8::ff00:42:8329", "0.0.0.0",
                       f"10.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(256)}"))
    return ipaddress.ip_address(text).packed, quote(text)


def _duration(rng):
    text = rng.choice(("1h2m3s", "3mo2d", "-1d", "1y2mo3w4d5h6m7s8ms9us10ns", "0s", "100ns", "P1Y2M", "PT36H",
                       "-3mo", f"{rng.randint(1, 1000)}ms", f"{rng.randint(1, 90)}d{rng.randint(0, 23)}h"))
    return text, text


INT = Scalar("int", _int_drawer(32))
BIGINT = Scalar("bigint", _int_drawer(64))
SMALLINT = Scalar("smallint", _int_drawer(16))
TINYINT = Scalar("tinyint", _int_drawer(8, 100))
VARINT = Scalar("varint", _varint)
DECIMAL = Scalar("decimal", _decimal)
FLOAT = Scalar("float", _float_drawer(FLOATS, ("NaN", "Infinity", "-Infinity")))
DOUBLE = Scalar("double", _float_drawer(DOUBLES, ("NaN", "Infinity", "-Infinity")))
TEXT = Scalar("text", _text)
ASCII = Scalar("ascii", _ascii)
BLOB = Scalar("blob", _blob)
BOOLEAN = Scalar("boolean", _boolean)
DATE = Scalar("date", _date)
TIME = Scalar("time", _time)
TIMESTAMP = Scalar("timestamp", _timestamp)
UUID = Scalar("uuid", _uuid)
TIMEUUID = Scalar("timeuuid", _timeuuid)
INET = Scalar("inet", _inet)
DURATION = Scalar("duration", _duration, keyable=False)


class Counter(Type):
    kind = "counter"
    cql = "counter"
    keyable = False

    def draw(self, rng):
        v = rng.choice((rng.randint(-100, 100), rng.randint(-2**40, 2**40), 1, -1))
        return v, str(v)


COUNTER = Counter()


def _distinct(rng, elem, n):
    out = {}
    for _ in range(n * 4):
        if len(out) >= n:
            break
        order, lit = elem.draw(rng)
        out.setdefault(lit, order)
    return [lit for lit, _ in sorted(out.items(), key=lambda kv: kv[1])]


class ListT(Type):
    kind = "list"

    def __init__(self, elem, frozen=False):
        self.elem, self.frozen = elem, frozen
        self.keyable = frozen and elem.keyable
        inner = f"list<{elem.cql}>"
        self.cql = f"frozen<{inner}>" if frozen else inner

    def elements(self, rng, lo=0, hi=3):
        return [self.elem.value(rng) for _ in range(rng.randint(lo, hi))]

    def draw(self, rng):
        els = self.elements(rng)
        return tuple(els), "[" + ", ".join(els) + "]"


class SetT(Type):
    kind = "set"

    def __init__(self, elem, frozen=False):
        assert elem.keyable
        self.elem, self.frozen = elem, frozen
        self.keyable = frozen
        inner = f"set<{elem.cql}>"
        self.cql = f"frozen<{inner}>" if frozen else inner

    def elements(self, rng, lo=0, hi=3):
        return _distinct(rng, self.elem, rng.randint(lo, hi))

    def draw(self, rng):
        els = self.elements(rng)
        return tuple(els), "{" + ", ".join(els) + "}"


class MapT(Type):
    kind = "map"

    def __init__(self, key, val, frozen=False):
        assert key.keyable
        self.key, self.val, self.frozen = key, val, frozen
        self.keyable = frozen and val.keyable
        inner = f"map<{key.cql}, {val.cql}>"
        self.cql = f"frozen<{inner}>" if frozen else inner

    def entries(self, rng, lo=0, hi=3):
        return [(k, self.val.value(rng)) for k in _distinct(rng, self.key, rng.randint(lo, hi))]

    def draw(self, rng):
        es = self.entries(rng)
        return tuple(es), "{" + ", ".join(f"{k}: {v}" for k, v in es) + "}"


class TupleT(Type):
    kind = "tuple"

    def __init__(self, *elems):
        self.elems = elems
        self.keyable = all(e.keyable for e in elems)
        self.cql = "frozen<tuple<" + ", ".join(e.cql for e in elems) + ">>"

    def draw(self, rng):
        parts = [e.draw(rng) if rng.random() > 0.1 else (None, "null") for e in self.elems]
        order = tuple((0,) if o is None else (1, o) for o, _ in parts)
        return order, "(" + ", ".join(lit for _, lit in parts) + ")"


class UdtT(Type):
    kind = "udt"

    def __init__(self, name, fields, frozen=True):
        self.name, self.fields, self.frozen = name, fields, frozen
        self.keyable = frozen and all(t.keyable for _, t in fields)
        self.cql = f"frozen<{name}>" if frozen else name

    def create(self, ks):
        body = ", ".join(f"{f} {t.cql}" for f, t in self.fields)
        return f"CREATE TYPE {ks}.{self.name} ({body});"

    def draw(self, rng):
        chosen = [(f, t.value(rng)) for f, t in self.fields if rng.random() < 0.8]
        if not chosen:  # "{}" would be read as an empty map, not as a UDT
            f, t = rng.choice(self.fields)
            chosen = [(f, t.value(rng))]
        return tuple(chosen), "{" + ", ".join(f"{f}: {v}" for f, v in chosen) + "}"


class VectorT(Type):
    kind = "vector"
    keyable = False

    def __init__(self, elem, dim):
        self.elem, self.dim = elem, dim
        self.cql = f"vector<{elem.cql}, {dim}>"

    def draw(self, rng):
        els = [repr(rng.randint(-1000, 1000) / 4) for _ in range(self.dim)]
        return tuple(els), "[" + ", ".join(els) + "]"


# ---------------------------------------------------------------------------
# Tables.


class Column:
    def __init__(self, name, type_, role, desc=False):
        self.name, self.type, self.role, self.desc = name, type_, role, desc

    @property
    def multicell(self):
        return self.type.kind in ("list", "set", "map", "udt") and not self.type.frozen


class Table:
    def __init__(self, ks, name, pk, ck=(), statics=(), regulars=(), udts=()):
        self.ks, self.name = ks, name
        self.pk = [Column(n, t, "pk") for n, t in pk]
        self.ck = [Column(n, t, "ck", desc) for n, t, desc in ck]
        self.statics = [Column(n, t, "static") for n, t in statics]
        self.regulars = [Column(n, t, "regular") for n, t in regulars]
        self.udts = list(udts)
        self.options = []
        self.counter = any(c.type.kind == "counter" for c in self.statics + self.regulars)
        self.default_ttl = 0

    @property
    def qualified(self):
        return f"{self.ks}.{self.name}"

    def create(self):
        cols = [f"{c.name} {c.type.cql}" for c in self.pk + self.ck]
        cols += [f"{c.name} {c.type.cql} static" for c in self.statics]
        cols += [f"{c.name} {c.type.cql}" for c in self.regulars]
        pk = ", ".join(c.name for c in self.pk)
        key = ", ".join([f"({pk})" if len(self.pk) > 1 else pk] + [c.name for c in self.ck])
        options = list(self.options)
        if self.ck:
            order = ", ".join(f"{c.name} {'DESC' if c.desc else 'ASC'}" for c in self.ck)
            options.insert(0, f"CLUSTERING ORDER BY ({order})")
        text = f"CREATE TABLE {self.qualified} ({', '.join(cols)}, PRIMARY KEY ({key}))"
        if options:
            text += " WITH " + " AND ".join(options)
        return text + ";"


def shape_scalars(rng, ks):
    key = rng.choice((INT, TEXT, BIGINT, UUID, TIMEUUID, BLOB, DATE, INET, ASCII, TIMESTAMP, VARINT, SMALLINT))
    regulars = [(f"v_{t.cql}", t) for t in (ASCII, BIGINT, BLOB, BOOLEAN, DATE, DECIMAL, DOUBLE, FLOAT, INET, INT,
                                             SMALLINT, TEXT, TIME, TIMESTAMP, TIMEUUID, TINYINT, UUID, VARINT,
                                             DURATION)]
    return Table(ks, "scalars", [("k", key)], regulars=regulars)


def shape_composite(rng, ks):
    return Table(ks, "composite", [("p1", INT), ("p2", TEXT)],
                 ck=[("c1", INT, rng.random() < 0.3), ("c2", TEXT, True)],
                 statics=[("s1", TEXT), ("s2", INT), ("s3", TIMESTAMP)],
                 regulars=[("v1", INT), ("v2", TEXT), ("v3", DOUBLE), ("v4", BOOLEAN)])


def shape_ranges(rng, ks):
    return Table(ks, "ranges", [("p", INT)],
                 ck=[("c1", INT, rng.random() < 0.5), ("c2", TEXT, rng.random() < 0.5),
                     ("c3", BIGINT, rng.random() < 0.5)],
                 regulars=[("v", TEXT), ("n", INT)])


def shape_collections(rng, ks):
    return Table(ks, "collections", [("p", INT)], ck=[("c", INT, rng.random() < 0.3)],
                 statics=[("ss", SetT(TEXT))],
                 regulars=[("l", ListT(INT)), ("lt", ListT(TEXT)), ("st", SetT(INT)), ("sx", SetT(TEXT)),
                           ("m", MapT(TEXT, INT)), ("mi", MapT(INT, TEXT)), ("v", INT)])


def shape_frozen(rng, ks):
    addr = UdtT("addr", [("street", TEXT), ("number", INT), ("tags", SetT(TEXT, frozen=True))])
    faddr = UdtT("addr", addr.fields, frozen=True)
    naddr = UdtT("addr", addr.fields, frozen=False)
    return Table(ks, "frozen", [("p", TEXT)], ck=[("c", INT, rng.random() < 0.5)],
                 statics=[("sfl", ListT(INT, frozen=True))],
                 regulars=[("fl", ListT(INT, frozen=True)), ("fs", SetT(TEXT, frozen=True)),
                           ("fm", MapT(INT, TEXT, frozen=True)), ("fu", faddr),
                           ("tup", TupleT(INT, TEXT, BOOLEAN)), ("u", naddr),
                           ("nested", MapT(TEXT, ListT(INT, frozen=True), frozen=True)),
                           ("ul", ListT(faddr))],
                 udts=[addr])


def shape_counters(rng, ks):
    return Table(ks, "counters", [("p", TEXT)], ck=[("c", INT, rng.random() < 0.5)],
                 statics=[("sc", COUNTER)], regulars=[("n1", COUNTER), ("n2", COUNTER)])


def shape_statics(rng, ks):
    return Table(ks, "statics", [("p", INT)], ck=[("c", TEXT, rng.random() < 0.5)],
                 statics=[("s1", INT), ("s2", TEXT), ("s3", SetT(INT)), ("s4", MapT(TEXT, TEXT))],
                 regulars=[("v", INT), ("w", TEXT)])


def shape_keytypes(rng, ks):
    ck = [("t", TEXT, True), ("ts", TIMESTAMP, True), ("u", UUID, True)]
    for i in range(3):
        if rng.random() < 0.3:
            ck[i] = (ck[i][0], ck[i][1], False)
    return Table(ks, "keytypes", [("p", INT)], ck=ck,
                 regulars=[("m_ts", MapT(TIMESTAMP, TEXT)), ("m_uuid", MapT(UUID, INT)), ("s_inet", SetT(INET)),
                           ("s_date", SetT(DATE)), ("m_bool", MapT(BOOLEAN, BLOB)), ("s_tuuid", SetT(TIMEUUID)),
                           ("m_varint", MapT(VARINT, DECIMAL)), ("s_double", SetT(DOUBLE)),
                           ("m_time", MapT(TIME, SMALLINT)), ("s_blob", SetT(BLOB)),
                           ("m_tiny", MapT(TINYINT, BIGINT)), ("s_float", SetT(FLOAT)),
                           ("m_flist", MapT(ListT(INT, frozen=True), TEXT)),
                           ("s_tuple", SetT(TupleT(INT, TEXT))), ("m_ascii", MapT(ASCII, DURATION))])


def shape_exotic(rng, ks):
    return Table(ks, "exotic", [("p", VARINT)],
                 ck=[("c1", TupleT(INT, TEXT), rng.random() < 0.5), ("c2", DATE, rng.random() < 0.5)],
                 statics=[("st", TupleT(TEXT, DURATION))],
                 regulars=[("b", BLOB), ("vi", VARINT), ("dec", DECIMAL), ("dur", DURATION),
                           ("vec", VectorT(FLOAT, 3)), ("ld", ListT(DURATION)), ("md", MapT(TEXT, DURATION)),
                           ("tm", TIME), ("fl", FLOAT)])


def shape_keysonly(rng, ks):
    return Table(ks, "keysonly", [("p1", TEXT), ("p2", INT)],
                 ck=[("c1", BOOLEAN, rng.random() < 0.5), ("c2", INT, rng.random() < 0.5)])


SHAPES = {
    "scalars": shape_scalars,
    "composite": shape_composite,
    "ranges": shape_ranges,
    "collections": shape_collections,
    "frozen": shape_frozen,
    "counters": shape_counters,
    "statics": shape_statics,
    "keytypes": shape_keytypes,
    "exotic": shape_exotic,
    "keysonly": shape_keysonly,
}
SHAPE_NAMES = tuple(SHAPES)

# Relative weights of the operations, per shape (missing = default).
DEFAULT_WEIGHTS = {
    "insert": 10, "update": 6, "update_static": 2, "insert_static": 1, "collection": 0, "udt_field": 0,
    "delete_cells": 3, "delete_static": 1, "delete_row": 3, "delete_partition": 1, "delete_range": 2, "tie": 3,
    "counter": 0, "list_index": 0,
}
SHAPE_WEIGHTS = {
    "ranges": {"delete_range": 6, "delete_row": 2},
    "collections": {"collection": 14, "update": 3, "list_index": 6},
    "frozen": {"collection": 3, "udt_field": 4},
    "counters": {"counter": 20, "insert": 0, "update": 0, "tie": 0, "delete_cells": 2, "delete_row": 1,
                 "delete_range": 1, "delete_partition": 1},
    "statics": {"update_static": 8, "insert_static": 6, "delete_static": 3, "delete_row": 5, "delete_partition": 2},
    "keytypes": {"collection": 8},
    "exotic": {"collection": 3},
    "keysonly": {"update": 0, "delete_cells": 0, "tie": 2, "delete_range": 3},
}


# ---------------------------------------------------------------------------
# Statement generation for one workload.


class Builder:
    def __init__(self, rng, table):
        self.rng = rng
        self.t = table
        r = rng.random()
        # Timestamp mode: "clock" (occasional explicit PAST timestamps),
        # "explicit" (nearly all explicit, PAST window, arbitrary order),
        # "future" (some explicit FUTURE timestamps that beat the clock).
        self.mode = "clock" if r < 0.45 else "explicit" if r < 0.75 else "future"
        self.p_ts = {"clock": 0.15, "explicit": 0.9, "future": 0.3}[self.mode]
        self.ts_base = FUTURE if self.mode == "future" else PAST
        self.ts_window = rng.choice((5, 20, 60))
        self.p_ttl = rng.choice((0.05, 0.15, 0.3))
        self.p_null = 0.04
        self.parts = self._partitions(rng.randint(2, 5))
        self.ck_domains = [c.type.keys(rng, rng.randint(2, 4)) for c in table.ck]
        # List contents known exactly: (part, ckey, column) -> [literal, ...].
        self.lists = {}
        self.index_ops = self.mode != "future" and not table.default_ttl
        # Counter cells a deletion may have reached: never increment them again.
        self.dead_parts, self.dead_rows, self.dead_cells = set(), set(), set()
        self.columns_changed()

    def columns_changed(self):
        """Sets the operations' weights from the table's columns as they are now (again after a schema
        change: a column added or dropped may enable or disable an operation)."""
        table = self.t
        self.weights = dict(DEFAULT_WEIGHTS)
        self.weights.update(SHAPE_WEIGHTS.get(table.name, {}))
        if not table.ck:
            for op in ("update_static", "insert_static", "delete_static", "delete_range"):
                self.weights[op] = 0
        if not table.statics:
            for op in ("update_static", "insert_static", "delete_static"):
                self.weights[op] = 0
        if not any(c.multicell and c.type.kind != "udt" for c in table.statics + table.regulars):
            self.weights["collection"] = 0
        if not any(c.multicell and c.type.kind == "udt" for c in table.regulars):
            self.weights["udt_field"] = 0
        self.int_lists = [c for c in table.statics + table.regulars
                          if c.multicell and c.type.kind == "list" and c.type.elem is INT]
        if not self.int_lists:
            self.weights["list_index"] = 0
        if table.counter:
            self.weights["update_static"] = self.weights["insert_static"] = 0
        self.ops = [op for op in self.weights if self.weights[op] > 0]

    def _partitions(self, n):
        domains = [c.type.keys(self.rng, n + 1, non_empty=True) for c in self.t.pk]
        parts = set()
        for _ in range(n * 10):
            if len(parts) == n:
                break
            parts.add(tuple(self.rng.choice(d) for d in domains))
        return sorted(parts)

    # -- helpers

    def part(self):
        return self.rng.choice(self.parts)

    def ckey(self):
        return tuple(self.rng.choice(d) for d in self.ck_domains)

    def where(self, part, ckey=(), prefix=None):
        terms = [f"{c.name} = {v}" for c, v in zip(self.t.pk, part)]
        cks = ckey if prefix is None else ckey[:prefix]
        terms += [f"{c.name} = {v}" for c, v in zip(self.t.ck, cks)]
        return " AND ".join(terms)

    def timestamp(self, force=False):
        if self.t.counter:
            return None
        if force or self.rng.random() < self.p_ts:
            return self.ts_base + self.rng.randint(0, self.ts_window)
        return None

    def ttl(self):
        if self.t.counter:
            return None
        if self.t.default_ttl and self.rng.random() < 0.3:
            return 0  # no TTL despite the table's default
        if self.rng.random() >= self.p_ttl:
            return None
        return self.rng.choice(SHORT_TTLS if self.rng.random() < 0.7 else LONG_TTLS)

    def using(self, ttl=None, ts=None):
        parts = []
        if ttl is not None:
            parts.append(f"TTL {ttl}")
        if ts is not None:
            parts.append(f"TIMESTAMP {ts}")
        return " USING " + " AND ".join(parts) if parts else ""

    def value(self, col):
        if self.rng.random() < self.p_null:
            return "null"
        if col.type in (INT, BIGINT) and self.rng.random() < 0.03:
            return f"blobAs{col.type.cql.capitalize()}(0x)"  # an empty value, not a null
        return col.type.value(self.rng)

    def pick(self, cols, lo=1):
        if not cols:
            return []
        n = self.rng.randint(min(lo, len(cols)), min(len(cols), 4))
        return self.rng.sample(cols, n)

    def pick_row(self, p_static, lo=1):
        """Columns for a statement naming the full primary key: regular ones,
        sometimes static ones too, never static ones alone (Cassandra rejects
        a clustering restriction on a statement that only touches statics)."""
        t = self.t
        cols = self.pick(t.regulars + (t.statics if self.rng.random() < p_static else []), lo)
        if cols and all(c.role == "static" for c in cols) and t.ck:
            cols.append(self.rng.choice(t.regulars))
        return cols

    # -- list bookkeeping

    def lists_written(self, part, ckey, cols, values, ttl, ts):
        for col, val in zip(cols, values):
            if col.type.kind == "list" and col.multicell:
                self.list_overwrite(part, ckey, col, val, ttl, ts)

    def list_overwrite(self, part, ckey, col, literal, ttl, ts):
        key = (part, ckey, col.name)
        if ts is not None:
            return  # PAST: hidden under the clock writes (or the list was unknown anyway)
        if ttl is None and literal != "null" and col.type.elem is INT:
            self.lists[key] = [x.strip() for x in literal.strip("[]").split(",") if x.strip()]
        else:
            self.lists.pop(key, None)

    def column_dropped(self, name):
        """Forgets what the bookkeeping knew of a dropped column (added again, it starts empty)."""
        for key in [k for k in self.lists if k[2] == name]:
            del self.lists[key]

    def forget_lists(self, part, ckey=None):
        for key in list(self.lists):
            if key[0] == part and (ckey is None or key[1] == ckey):
                del self.lists[key]

    # -- operations; each returns a list of statements

    def op_insert(self):
        t, part = self.t, self.part()
        ckey = self.ckey()
        cols = self.pick_row(0.3, lo=0)
        values = [self.value(c) for c in cols]
        ttl, ts = self.ttl(), self.timestamp()
        names = [c.name for c in t.pk + t.ck + cols]
        lits = list(part) + list(ckey) + values
        self.lists_written(part, ckey, cols, values, ttl, ts)
        return [f"INSERT INTO {t.qualified} ({', '.join(names)}) VALUES ({', '.join(lits)}){self.using(ttl, ts)};"]

    def op_insert_static(self):
        t, part = self.t, self.part()
        cols = self.pick(t.statics)
        names = [c.name for c in t.pk + cols]
        lits = list(part) + [self.value(c) for c in cols]
        return [f"INSERT INTO {t.qualified} ({', '.join(names)}) VALUES ({', '.join(lits)})"
                f"{self.using(self.ttl(), self.timestamp())};"]

    def op_update(self):
        t, part, ckey = self.t, self.part(), self.ckey()
        cols = self.pick_row(0.2)
        values = [self.value(c) for c in cols]
        ttl, ts = self.ttl(), self.timestamp()
        self.lists_written(part, ckey, cols, values, ttl, ts)
        sets = ", ".join(f"{c.name} = {v}" for c, v in zip(cols, values))
        return [f"UPDATE {t.qualified}{self.using(ttl, ts)} SET {sets} WHERE {self.where(part, ckey)};"]

    def op_update_static(self):
        t, part = self.t, self.part()
        cols = self.pick(t.statics)
        sets = ", ".join(f"{c.name} = {self.value(c)}" for c in cols)
        return [f"UPDATE {t.qualified}{self.using(self.ttl(), self.timestamp())} SET {sets} WHERE {self.where(part)};"]

    def op_collection(self):
        t, rng = self.t, self.rng
        col = rng.choice([c for c in t.statics + t.regulars if c.multicell and c.type.kind != "udt"])
        part = self.part()
        ckey = () if col.role == "static" else self.ckey()
        where = self.where(part, ckey)
        ttl, ts = self.ttl(), self.timestamp()
        typ, name, q = col.type, col.name, t.qualified
        key = (part, ckey, name)
        if typ.kind == "list":
            known = self.lists.get(key) if self.index_ops else None
            choices = ["append", "prepend", "remove", "overwrite"]
            if known:
                choices += ["set_index", "set_index", "delete_index", "delete_index"]
            what = rng.choice(choices)
            if what in ("set_index", "delete_index"):
                return [self.list_index(key, col, where, what, ttl, ts)]
            els = typ.elements(rng, 1, 3)
            lit = "[" + ", ".join(els) + "]"
            if what == "overwrite":
                self.list_overwrite(part, ckey, col, lit, ttl, ts)
                return [f"UPDATE {q}{self.using(ttl, ts)} SET {name} = {lit} WHERE {where};"]
            if ts is None and known is not None:
                if ttl is not None:
                    self.lists.pop(key, None)
                elif what == "append":
                    known.extend(els)
                elif what == "prepend":
                    known[:0] = els
                else:
                    known[:] = [x for x in known if x not in els]
            expr = {"append": f"{name} + {lit}", "prepend": f"{lit} + {name}", "remove": f"{name} - {lit}"}[what]
            return [f"UPDATE {q}{self.using(ttl, ts)} SET {name} = {expr} WHERE {where};"]
        if typ.kind == "set":
            what = rng.choice(("add", "add", "remove", "overwrite", "delete_element", "empty"))
            els = typ.elements(rng, 1, 3)
            lit = "{" + ", ".join(els) + "}"
            if what == "delete_element":
                return [f"DELETE {name}[{els[0]}] FROM {q}{self.using(None, ts)} WHERE {where};"]
            expr = {"add": f"{name} + {lit}", "remove": f"{name} - {lit}", "overwrite": lit, "empty": "{}"}[what]
            return [f"UPDATE {q}{self.using(ttl, ts)} SET {name} = {expr} WHERE {where};"]
        # map
        what = rng.choice(("put", "put", "add", "remove", "overwrite", "delete_key"))
        entries = typ.entries(rng, 1, 3)
        lit = "{" + ", ".join(f"{k}: {v}" for k, v in entries) + "}"
        if what == "put":
            k, v = entries[0]
            return [f"UPDATE {q}{self.using(ttl, ts)} SET {name}[{k}] = {v} WHERE {where};"]
        if what == "delete_key":
            return [f"DELETE {name}[{entries[0][0]}] FROM {q}{self.using(None, ts)} WHERE {where};"]
        if what == "remove":
            keys = "{" + ", ".join(k for k, _ in entries) + "}"
            return [f"UPDATE {q}{self.using(ttl, ts)} SET {name} = {name} - {keys} WHERE {where};"]
        expr = f"{name} + {lit}" if what == "add" else lit
        return [f"UPDATE {q}{self.using(ttl, ts)} SET {name} = {expr} WHERE {where};"]

    def list_index(self, key, col, where, what, ttl, ts):
        """Sets or deletes an element of a list whose content is known."""
        known, q, name = self.lists[key], self.t.qualified, col.name
        i = self.rng.randrange(len(known))
        if what == "set_index":
            v = col.type.elem.value(self.rng)
            if ts is None:
                if ttl is None:
                    known[i] = v
                else:
                    del self.lists[key]
            return f"UPDATE {q}{self.using(ttl, ts)} SET {name}[{i}] = {v} WHERE {where};"
        if ts is None:
            del known[i]
        return f"DELETE {name}[{i}] FROM {q}{self.using(None, ts)} WHERE {where};"

    def op_list_index(self):
        """Index operations on lists: on a known list, or first a clock-stamped
        overwrite without TTL that makes one known."""
        if not self.index_ops:
            return self.op_collection()
        rng = self.rng
        known = sorted(k for k, v in self.lists.items() if v)
        if known and rng.random() < 0.75:
            key = rng.choice(known)
            part, ckey, name = key
            col = next(c for c in self.t.statics + self.t.regulars if c.name == name)
            what = rng.choice(("set_index", "set_index", "delete_index"))
            return [self.list_index(key, col, self.where(part, ckey), what, self.ttl(), self.timestamp())]
        col = rng.choice(self.int_lists)
        part = self.part()
        ckey = () if col.role == "static" else self.ckey()
        lit = "[" + ", ".join(col.type.elements(rng, 1, 4)) + "]"
        self.list_overwrite(part, ckey, col, lit, None, None)
        return [f"UPDATE {self.t.qualified} SET {col.name} = {lit} WHERE {self.where(part, ckey)};"]

    def op_udt_field(self):
        t, rng = self.t, self.rng
        col = rng.choice([c for c in t.regulars if c.multicell and c.type.kind == "udt"])
        part, ckey = self.part(), self.ckey()
        field, ftype = rng.choice(col.type.fields)
        ts = self.timestamp()
        if rng.random() < 0.3:
            return [f"DELETE {col.name}.{field} FROM {t.qualified}{self.using(None, ts)} "
                    f"WHERE {self.where(part, ckey)};"]
        return [f"UPDATE {t.qualified}{self.using(self.ttl(), ts)} SET {col.name}.{field} = {ftype.value(rng)} "
                f"WHERE {self.where(part, ckey)};"]

    def op_counter(self):
        t, rng = self.t, self.rng
        live_parts = [p for p in self.parts if p not in self.dead_parts]
        if not live_parts:
            return []
        part = rng.choice(live_parts)
        if t.statics and rng.random() < 0.25:
            cols, ckey = t.statics, ()
        else:
            ckey = self.ckey()
            if (part, ckey) in self.dead_rows:
                return []
            cols = self.pick(t.regulars)
        cols = [c for c in cols if (part, ckey, c.name) not in self.dead_cells]
        if not cols:
            return []
        sets = []
        for c in cols:
            v = c.type.value(rng)
            sets.append(f"{c.name} = {c.name} - {v[1:]}" if v.startswith("-") else f"{c.name} = {c.name} + {v}")
        return [f"UPDATE {t.qualified} SET {', '.join(sets)} WHERE {self.where(part, ckey)};"]

    def op_delete_cells(self):
        t, part, ckey = self.t, self.part(), self.ckey()
        cols = self.pick_row(0.2)
        ts = self.timestamp()
        for c in cols:
            ck = () if c.role == "static" else ckey
            self.dead_cells.add((part, ck, c.name))
            if ts is None:
                self.lists.pop((part, ck, c.name), None)
        names = ", ".join(c.name for c in cols)
        return [f"DELETE {names} FROM {t.qualified}{self.using(None, ts)} WHERE {self.where(part, ckey)};"]

    def op_delete_static(self):
        t, part = self.t, self.part()
        cols = self.pick(t.statics)
        ts = self.timestamp()
        for c in cols:
            self.dead_cells.add((part, (), c.name))
            if ts is None:
                self.lists.pop((part, (), c.name), None)
        names = ", ".join(c.name for c in cols)
        return [f"DELETE {names} FROM {t.qualified}{self.using(None, ts)} WHERE {self.where(part)};"]

    def op_delete_row(self):
        t, part, ckey = self.t, self.part(), self.ckey()
        ts = self.timestamp()
        if t.ck:
            self.dead_rows.add((part, ckey))
        else:
            self.dead_parts.add(part)
        if ts is None:
            self.forget_lists(part, ckey)
        return [f"DELETE FROM {t.qualified}{self.using(None, ts)} WHERE {self.where(part, ckey)};"]

    def op_delete_partition(self):
        t, part = self.t, self.part()
        if self.rng.random() < 0.5 and len(self.parts) > 1 and self.mode == "future":
            ts = None  # FUTURE partition tombstones wipe a partition for good: keep them rare
        else:
            ts = self.timestamp()
        self.dead_parts.add(part)
        if ts is None:
            self.forget_lists(part)
        return [f"DELETE FROM {t.qualified}{self.using(None, ts)} WHERE {self.where(part)};"]

    def range_condition(self):
        """WHERE terms on the clustering columns for a range deletion."""
        rng, ck, doms = self.rng, self.t.ck, self.ck_domains
        n = len(ck)
        form = rng.choice(("prefix", "open", "closed", "exclusive", "multi") if n > 1 else
                          ("open", "closed", "exclusive"))
        if form == "prefix":
            j = rng.randrange(1, n)  # equality on the first j columns
            return [f"{ck[i].name} = {rng.choice(doms[i])}" for i in range(j)]
        if form == "multi" and n >= 2:
            j = rng.randrange(0, n - 1)  # equality on the first j, then a tuple over the rest
            terms = [f"{ck[i].name} = {rng.choice(doms[i])}" for i in range(j)]
            names = "(" + ", ".join(c.name for c in ck[j:]) + ")"
            lo = "(" + ", ".join(rng.choice(doms[i]) for i in range(j, n)) + ")"
            hi = "(" + ", ".join(rng.choice(doms[i]) for i in range(j, n)) + ")"
            shape = rng.choice(("lo", "hi", "both"))
            if shape in ("lo", "both"):
                terms.append(f"{names} {rng.choice(('>', '>='))} {lo}")
            if shape in ("hi", "both"):
                terms.append(f"{names} {rng.choice(('<', '<='))} {hi}")
            return terms
        j = rng.randrange(0, n)  # equality on the first j, bounds on column j
        terms = [f"{ck[i].name} = {rng.choice(doms[i])}" for i in range(j)]
        dom, name = doms[j], ck[j].name
        if form == "open" or len(dom) < 2:
            terms.append(f"{name} {rng.choice(('>', '>=', '<', '<='))} {rng.choice(dom)}")
            return terms
        a, b = sorted(rng.sample(range(len(dom)), 2))
        if form == "closed":
            terms += [f"{name} {rng.choice(('>=', '>'))} {dom[a]}", f"{name} {rng.choice(('<', '<='))} {dom[b]}"]
        else:
            terms += [f"{name} > {dom[a]}", f"{name} < {dom[b]}"]
        return terms

    def op_delete_range(self):
        t, part = self.t, self.part()
        ts = self.timestamp()
        self.dead_parts.add(part)  # counters: any row of the partition may be covered
        if ts is None:
            self.forget_lists(part)
        cond = " AND ".join([self.where(part)] + self.range_condition())
        return [f"DELETE FROM {t.qualified}{self.using(None, ts)} WHERE {cond};"]

    def op_tie(self):
        """Two writes with the same explicit timestamp on the same data."""
        t, rng = self.t, self.rng
        ts = self.timestamp(force=True)
        part, ckey = self.part(), self.ckey()
        where = self.where(part, ckey)
        scalars = [c for c in t.regulars if not c.multicell]
        kind = rng.choice(("values", "value_delete", "ttl_plain", "ttl_ttl", "row", "element") if scalars else
                          ("row",))
        if kind == "element":
            maps = [c for c in t.regulars if c.multicell and c.type.kind in ("map", "set")]
            if not maps:
                kind = "values"
        q = t.qualified
        if kind == "row":
            names = ", ".join(c.name for c in t.pk + t.ck)
            lits = ", ".join(list(part) + list(ckey))
            first = f"INSERT INTO {q} ({names}) VALUES ({lits}){self.using(self.ttl(), ts)};"
            if t.ck and rng.random() < 0.3:
                second = f"DELETE FROM {q}{self.using(None, ts)} WHERE {self.where(part, ckey, prefix=1)};"
            elif rng.random() < 0.2:
                second = f"DELETE FROM {q}{self.using(None, ts)} WHERE {self.where(part)};"
            else:
                second = f"DELETE FROM {q}{self.using(None, ts)} WHERE {where};"
            pair = [first, second]
        elif kind == "element":
            col = rng.choice(maps)
            if col.type.kind == "map":
                k = col.type.key.value(rng)
                pair = [f"UPDATE {q}{self.using(None, ts)} SET {col.name}[{k}] = {col.type.val.value(rng)} WHERE {where};",
                        rng.choice((f"UPDATE {q}{self.using(None, ts)} SET {col.name}[{k}] = {col.type.val.value(rng)} "
                                    f"WHERE {where};",
                                    f"DELETE {col.name}[{k}] FROM {q}{self.using(None, ts)} WHERE {where};"))]
            else:
                e = col.type.elem.value(rng)
                pair = [f"UPDATE {q}{self.using(None, ts)} SET {col.name} = {col.name} + {{{e}}} WHERE {where};",
                        f"UPDATE {q}{self.using(None, ts)} SET {col.name} = {col.name} - {{{e}}} WHERE {where};"]
        else:
            col = rng.choice(scalars)
            v1 = col.type.value(rng)
            v2 = col.type.value(rng) if rng.random() < 0.8 else v1
            ttl1 = rng.choice(SHORT_TTLS + LONG_TTLS)
            ttl2 = rng.choice(SHORT_TTLS + LONG_TTLS)
            a = {"values": None, "value_delete": None, "ttl_plain": ttl1, "ttl_ttl": ttl1}[kind]
            b = {"values": None, "ttl_plain": None, "ttl_ttl": ttl2}.get(kind)
            first = f"UPDATE {q}{self.using(a, ts)} SET {col.name} = {v1} WHERE {where};"
            if kind == "value_delete":
                second = f"DELETE {col.name} FROM {q}{self.using(None, ts)} WHERE {where};"
            else:
                second = f"UPDATE {q}{self.using(b, ts)} SET {col.name} = {v2} WHERE {where};"
            pair = [first, second]
        rng.shuffle(pair)
        return pair

    def statements(self, count):
        out, deferred = [], []
        weights = [self.weights[op] for op in self.ops]
        while len(out) < count:
            op = self.rng.choices(self.ops, weights)[0]
            stmts = getattr(self, "op_" + op)()
            if op == "tie" and self.rng.random() < 0.4:
                # The second write of the tie comes a little later, often in
                # another generation. Neither touches what the list and
                # counter bookkeeping relies on.
                deferred.append((len(out) + self.rng.randint(2, 20), stmts.pop()))
            out.extend(stmts)
            for due in [d for d in deferred if d[0] <= len(out)]:
                deferred.remove(due)
                out.append(due[1])
        out.extend(stmt for _, stmt in deferred)
        return out


# ---------------------------------------------------------------------------
# Schema changes between generations.

# Share of workloads whose table is altered between some of their flushes.
P_SCHEMA_CHANGES = 0.5
# Types of columns added by ALTER TABLE ADD (regular and static ones) and of user type fields added.
ADDED_SCALARS = (INT, TEXT, BIGINT, DOUBLE, BOOLEAN, TIMESTAMP, UUID, BLOB, DECIMAL, DATE, TIME, DURATION)
ADDED_COLLECTIONS = (lambda: ListT(INT), lambda: ListT(TEXT), lambda: SetT(INT), lambda: SetT(TEXT),
                     lambda: MapT(TEXT, INT), lambda: MapT(INT, TEXT), lambda: ListT(INT, frozen=True),
                     lambda: SetT(TEXT, frozen=True), lambda: MapT(INT, TEXT, frozen=True))
FIELD_TYPES = (INT, TEXT, BIGINT, BOOLEAN, DOUBLE, TIMESTAMP, UUID, BLOB)
# Table options an ALTER TABLE ... WITH changes (compression: the generations after it are written with
# another compressor).
OPTION_CHANGES = (
    "comment = 'altered by the workload'",
    "compression = {'class': 'ZstdCompressor', 'chunk_length_in_kb': 4}",
    "compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': 8}",
    "compression = {'enabled': false}",
    "caching = {'keys': 'NONE', 'rows_per_partition': 'ALL'}",
    "bloom_filter_fp_chance = 0.1",
)


class SchemaChanger:
    """Alters a workload's table between its generations, as Cassandra 5.0 allows, and keeps the table
    model (and so the later statements of the builder) in step: columns added of every kind (regular,
    static when the table has clustering columns, collections, frozen and non-frozen user types of a new
    type; counters only, and only they, in counter tables), non-key columns dropped and sometimes added
    again later with the same name and type (the values written at or before the drop's timestamp stay
    hidden, later writes with PAST timestamps too), primary key columns renamed, user type fields added
    and renamed, an option changed. Each change returns its statements; names are never used twice."""

    def __init__(self, rng, table, builder):
        self.rng, self.t, self.b = rng, table, builder
        self.n = 0
        self.dropped = []  # (name, type, role) that may be added again

    def fresh(self, stem):
        self.n += 1
        return f"{stem}{self.n}"

    def kinds(self):
        t = self.t
        kinds = {"add": 6, "rename_key": 2, "option": 1}
        droppable = self.droppable()
        if droppable and not t.counter:
            kinds["drop"] = 4
        if self.dropped:
            kinds["readd"] = 3
        if self.udts():
            kinds["udt_add_field"] = 2
            kinds["udt_rename_field"] = 2
        return kinds

    def droppable(self):
        """Non-key columns that may go: every static, and regular ones while another one stays (a table
        that had regular columns keeps one, so that statements naming statics have a regular to add);
        never a column of a non-frozen user type, which Cassandra refuses to drop."""
        t = self.t
        cols = t.statics + (t.regulars if len(t.regulars) > 1 else [])
        return [c for c in cols if not (c.type.kind == "udt" and not c.type.frozen)]

    def udts(self):
        """The user types the table's columns use (at the top level or inside a collection)."""
        found = {}
        for c in self.t.statics + self.t.regulars:
            for typ in (c.type, getattr(c.type, "elem", None), getattr(c.type, "val", None)):
                if isinstance(typ, UdtT):
                    found[typ.name] = typ
        return [found[k] for k in sorted(found)]

    def change(self):
        """One change, drawn at random: its statements."""
        kinds = self.kinds()
        names = sorted(kinds)
        kind = self.rng.choices(names, [kinds[k] for k in names])[0]
        stmts = getattr(self, "change_" + kind)()
        self.b.columns_changed()
        return stmts

    def _add(self, name, typ, role):
        col = Column(name, typ, role)
        (self.t.statics if role == "static" else self.t.regulars).append(col)
        return f"ALTER TABLE {self.t.qualified} ADD {name} {typ.cql}" + (" static" if role == "static" else "") + ";"

    def change_add(self):
        t, rng = self.t, self.rng
        static = bool(t.ck) and bool(t.regulars) and rng.random() < 0.25
        role = "static" if static else "regular"
        if t.counter:
            return [self._add(self.fresh("xn"), COUNTER, role)]
        r = rng.random()
        if r < 0.4:
            typ = rng.choice(ADDED_SCALARS)
            return [self._add(self.fresh(f"x{typ.cql}_"), typ, role)]
        if r < 0.75 or static:
            typ = rng.choice(ADDED_COLLECTIONS)()
            return [self._add(self.fresh(f"x{typ.kind}_"), typ, role)]
        # A column of a new user type, frozen or not.
        tname = self.fresh("xt")
        fields = [(self.fresh("f"), rng.choice(FIELD_TYPES)) for _ in range(rng.randint(1, 3))]
        if rng.random() < 0.3:
            fields.append((self.fresh("f"), SetT(TEXT, frozen=True)))
        udt = UdtT(tname, fields, frozen=rng.random() < 0.5)
        t.udts.append(udt)
        return [udt.create(t.ks), self._add(self.fresh("xu"), udt, "regular")]

    def change_drop(self):
        col = self.rng.choice(self.droppable())
        (self.t.statics if col.role == "static" else self.t.regulars).remove(col)
        self.b.column_dropped(col.name)
        if col.type.kind != "udt":  # a user type may have changed since: not added again
            self.dropped.append((col.name, col.type, col.role))
        using = ""
        if self.b.mode == "future":
            # Dropped at a timestamp above every FUTURE one, so that no cell of the column outlives the
            # drop: Cassandra still counts such a cell (never shown) as making its row live, which
            # cqlite does not yet do (it leaves such a row out).
            using = f" USING TIMESTAMP {FUTURE + self.b.ts_window + 1}"
        return [f"ALTER TABLE {self.t.qualified} DROP {col.name}{using};"]

    def change_readd(self):
        name, typ, role = self.dropped.pop(self.rng.randrange(len(self.dropped)))
        if role == "static" and not (self.t.ck and self.t.regulars):
            return self.change_option()
        return [self._add(name, typ, role)]

    def change_rename_key(self):
        col = self.rng.choice(self.t.pk + self.t.ck)
        old, col.name = col.name, self.fresh(col.name.split("_r")[0] + "_r")
        return [f"ALTER TABLE {self.t.qualified} RENAME {old} TO {col.name};"]

    def change_option(self):
        return [f"ALTER TABLE {self.t.qualified} WITH {self.rng.choice(OPTION_CHANGES)};"]

    def change_udt_add_field(self):
        udt = self.rng.choice(self.udts())
        name, typ = self.fresh("g"), self.rng.choice(FIELD_TYPES)
        udt.fields.append((name, typ))
        return [f"ALTER TYPE {self.t.ks}.{udt.name} ADD {name} {typ.cql};"]

    def change_udt_rename_field(self):
        udt = self.rng.choice(self.udts())
        i = self.rng.randrange(len(udt.fields))
        old, typ = udt.fields[i]
        udt.fields[i] = (self.fresh(old.split("_r")[0] + "_r"), typ)
        return [f"ALTER TYPE {self.t.ks}.{udt.name} RENAME {old} TO {udt.fields[i][0]};"]


# ---------------------------------------------------------------------------
# Workloads and the scenario.


class Workload:
    def __init__(self, seed, index, schema_changes=True):
        rng = random.Random(f"cqlite-workload/{seed}/{index}")
        self.seed, self.index = seed, index
        self.keyspace = f"w{index}"
        self.shape = SHAPE_NAMES[index % len(SHAPE_NAMES)]
        table = SHAPES[self.shape](rng, self.keyspace)
        self.table = table.name
        self.gc_grace = rng.choice((0, 0, 3600, 864000))
        table.options.append(f"gc_grace_seconds = {self.gc_grace}")
        if not table.counter and rng.random() < 0.15:
            table.default_ttl = rng.choice((3, 60, 60, 7200, 7200))
            table.options.append(f"default_time_to_live = {table.default_ttl}")
        if rng.random() < 0.3:
            table.options.append(rng.choice((
                "compression = {'class': 'ZstdCompressor', 'chunk_length_in_kb': 4}",
                "compression = {'class': 'SnappyCompressor'}",
                "compression = {'class': 'DeflateCompressor', 'chunk_length_in_kb': 16}",
                "compression = {'enabled': false}",
            )))
        self.schema = [f"CREATE KEYSPACE {self.keyspace} WITH replication = "
                       f"{{'class': 'SimpleStrategy', 'replication_factor': 1}};"]
        self.schema += [u.create(self.keyspace) for u in table.udts]
        self.schema.append(table.create())

        builder = Builder(rng, table)
        self.mode = "clock" if table.counter else builder.mode
        total = rng.randint(20, 70)
        nbatches = rng.randint(2, 6)
        cuts = sorted(rng.sample(range(1, total), nbatches - 1))
        # Schema changes are drawn from a random generator of their own, so that a workload without
        # any is the same as before they existed.
        srng = random.Random(f"cqlite-workload-schema/{seed}/{index}")
        self.altered_before = set()  # batches that start with schema changes
        if schema_changes and srng.random() < P_SCHEMA_CHANGES:
            self.altered_before = set(srng.sample(range(1, nbatches), srng.randint(1, min(3, nbatches - 1))))
        self.schema_changes = 0
        if not self.altered_before:
            stmts = builder.statements(total)
            bounds = [0] + cuts + [len(stmts)]
            self.batches = [stmts[bounds[i]:bounds[i + 1]] for i in range(nbatches)]
        else:
            # Batch by batch, each one's statements (the late halves of ties too) written with the schema
            # of its generation; a batch after a change starts with the change's statements.
            changer = SchemaChanger(srng, table, builder)
            bounds = [0] + cuts + [total]
            self.batches = []
            for i in range(nbatches):
                ddl = []
                if i in self.altered_before:
                    for _ in range(srng.choice((1, 1, 2, 3))):
                        ddl += changer.change()
                        self.schema_changes += 1
                self.batches.append(ddl + builder.statements(bounds[i + 1] - bounds[i]))
        self.compact_after = set()
        if rng.random() < 0.35:
            self.compact_after.add(rng.choice((nbatches - 1, rng.randrange(nbatches))))
        self.select_offsets = [0]
        if rng.random() < 0.5:
            self.select_offsets.append(rng.choice(SELECT_OFFSETS))

    @property
    def statements(self):
        return sum(len(b) for b in self.batches)

    @property
    def altered(self):
        """Whether the table's schema changes between generations."""
        return bool(self.altered_before)

    def describe(self):
        return {
            "index": self.index,
            "keyspace": self.keyspace,
            "table": self.table,
            "shape": self.shape,
            "mode": self.mode,
            "gc_grace_seconds": self.gc_grace,
            "statements": self.statements,
            "generations": len(self.batches),
            "compact_after": sorted(self.compact_after),
            "select_offsets": list(self.select_offsets),
            "schema_changes": self.schema_changes,
            "altered_before_batches": sorted(self.altered_before),
        }


def make_workloads(seed, count, indexes=None, schema_changes=True):
    """Returns (scenario text, [description dict per workload]). Without schema_changes, no table is
    altered (each workload is then what it was before the generator learnt schema changes)."""
    chosen = list(range(count)) if indexes is None else sorted(set(indexes))
    workloads = [Workload(seed, i, schema_changes) for i in chosen]
    lines = [f"-- cqlite select parity workloads: seed {seed}, {len(workloads)} workloads", ""]
    for w in workloads:
        lines.append(f"-- w{w.index}: {w.shape}, {w.mode} timestamps, {w.statements} statements, "
                     f"{len(w.batches)} generations" + (f", {w.schema_changes} schema changes" if w.altered else ""))
        lines.extend(w.schema)
    lines.append("")
    phases = max(len(w.batches) for w in workloads) if workloads else 0
    for phase in range(phases):
        lines.append(f"-- phase {phase + 1}")
        for w in workloads:
            if phase < len(w.batches):
                lines.extend(w.batches[phase])
        lines.append("-- flush")
        for w in workloads:
            if phase in w.compact_after:
                lines.append(f"-- compact {w.keyspace}.{w.table}")
        for w in workloads:
            if w.altered and phase < len(w.batches):
                lines.append(f"-- describe {w.keyspace}")
        lines.append("")
    for w in workloads:
        for offset in w.select_offsets:
            lines.append(f"-- select {w.keyspace}.{w.table}" + (f" +{offset}" if offset else ""))
    return "\n".join(lines) + "\n", [w.describe() for w in workloads]


def main():
    ap = argparse.ArgumentParser(description="Prints the scenario of seeded random workloads.")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--only", help="comma-separated workload indexes")
    ap.add_argument("--describe", action="store_true", help="print the descriptions (JSON lines) instead")
    args = ap.parse_args()
    indexes = [int(x) for x in args.only.split(",")] if args.only else None
    text, described = make_workloads(args.seed, args.count, indexes)
    if args.describe:
        for d in described:
            print(json.dumps(d))
    else:
        print(text, end="")


if __name__ == "__main__":
    main()
