"""Turns rows as Cassandra's `SELECT JSON *` prints them (and `cqlite select`,
which prints the same) into the values of an Iceberg table with the schema
DESIGN's type mapping gives, normalized as iceberg_readers.normalize does, so
that a table read back by PyIceberg, DuckDB or Iceberg Java can be compared
with the node's own answer.

Only the Iceberg schema is needed: each JSON value is read by the Iceberg type
of its column (timestamps "2024-05-05 05:05:05.000Z" become microseconds,
blobs "0xcafe" hex, durations "1mo2d3h" structs, tuples structs f0, f1...,
map keys, which JSON must print as strings, are parsed back by key type; an
empty value of a non-string type, which Cassandra prints as "", is null).
A time published as a long (`--time-as long`) is the only long JSON prints
as a string ("08:12:54.123456789"): it becomes its nanoseconds since
midnight; one published as a string (`--time-as string`) stays as printed.

SELECT JSON prints NaN and infinite floats and doubles as null (JSON has no
such numbers): `mask_non_finite` makes rows comparable despite that.
"""
import datetime
import decimal
import json
import re
import struct

import iceberg_readers

_DURATION_UNITS = [("y", 12, "months"), ("mo", 1, "months"), ("w", 7, "days"), ("d", 1, "days"),
                   ("h", 3_600_000_000_000, "nanoseconds"), ("ms", 1_000_000, "nanoseconds"),
                   ("us", 1_000, "nanoseconds"), ("\u00b5s", 1_000, "nanoseconds"), ("ns", 1, "nanoseconds"),
                   ("m", 60_000_000_000, "nanoseconds"), ("s", 1_000_000_000, "nanoseconds")]


def _duration(text):
    negative = text.startswith("-")
    if negative:
        text = text[1:]
    out = {"months": 0, "days": 0, "nanoseconds": 0}
    for number, unit in re.findall(r"(\d+)([a-z\u00b5]+)", text):
        for name, factor, field in _DURATION_UNITS:
            if unit == name:
                out[field] += int(number) * factor
                break
        else:
            raise ValueError(f"duration unit {unit!r} in {text!r}")
    if negative:
        out = {k: -v for k, v in out.items()}
    return out


def _timestamp_micros(text):
    # "2024-05-05 05:05:05.000Z" (Cassandra prints milliseconds and a zone)
    parsed = datetime.datetime.strptime(text.replace("Z", "+0000"), "%Y-%m-%d %H:%M:%S.%f%z")
    return iceberg_readers.normalize(parsed, "timestamptz")


def _time(text):
    hms, _, fraction = text.partition(".")
    return f"{hms}.{(fraction + '000000')[:6]}"


_TIME_TEXT = re.compile(r"^(\d{2}):(\d{2}):(\d{2})\.(\d{9})$")


def _time_nanos(text):
    """A time as SELECT JSON prints it ("08:12:54.123456789") as nanoseconds since midnight."""
    h, m, s, ns = map(int, _TIME_TEXT.match(text).groups())
    return ((h * 60 + m) * 60 + s) * 1_000_000_000 + ns


def _key(text, itype):
    if itype == "long" and _TIME_TEXT.match(text):
        return text
    if itype in ("string", "uuid", "date", "time", "timestamptz", "binary") or itype.startswith("decimal("):
        return text if not text.startswith('"') else json.loads(text)
    return json.loads(text, parse_float=decimal.Decimal)


def from_cql_json(value, itype):
    """One SELECT JSON value of a column whose Iceberg type is itype, normalized."""
    if value is None:
        return None
    if value == "" and isinstance(itype, dict) and [f["name"] for f in itype.get("fields", [])] == [
            "months", "days", "nanoseconds"]:
        return {"months": 0, "days": 0, "nanoseconds": 0}  # Duration.toString of zero is ""
    if value == "" and itype not in ("string", "binary"):
        return None  # an empty value of a non-string type: null in the table (DESIGN's mapping)
    if isinstance(itype, dict):
        kind = itype["type"]
        if kind == "list":
            return iceberg_readers.normalize([from_cql_json(e, itype["element"]) for e in value], itype)
        if kind == "map":
            pairs = [(from_cql_json(_key(k, itype["key"]) if isinstance(itype["key"], str) else json.loads(k),
                                    itype["key"]),
                      from_cql_json(v, itype["value"])) for k, v in value.items()]
            return iceberg_readers.normalize(pairs, itype)
        if kind == "struct":
            names = [f["name"] for f in itype["fields"]]
            if names == ["months", "days", "nanoseconds"] and isinstance(value, str):
                return _duration(value)
            if isinstance(value, list):  # a tuple: fields f0, f1, ...
                value = {f"f{i}": v for i, v in enumerate(value)}
            else:  # a user type: case-sensitive field names come quoted
                value = {k[1:-1] if k.startswith('"') and k.endswith('"') else k: v for k, v in value.items()}
            return {f["name"]: from_cql_json(value.get(f["name"]), f["type"]) for f in itype["fields"]}
        raise ValueError(f"unknown Iceberg type {itype!r}")
    if itype == "float" and isinstance(value, (int, float, decimal.Decimal)):
        value = struct.unpack("<f", struct.pack("<f", float(value)))[0]
    elif itype == "double" and isinstance(value, decimal.Decimal):
        value = float(value)
    elif itype == "binary":
        value = value[2:] if value.startswith("0x") else value
    elif itype == "timestamptz":
        return _timestamp_micros(value)
    elif itype == "time":
        return _time(value)
    elif itype == "long" and isinstance(value, str):
        return _time_nanos(value)
    elif itype.startswith("decimal(") and not isinstance(value, decimal.Decimal):
        value = decimal.Decimal(str(value))
    return iceberg_readers.normalize(value, itype)


def rows_from_select_json(lines, schema):
    """The rows of SELECT JSON output lines (one JSON object each) under an Iceberg schema, normalized and sorted."""
    rows = []
    for line in lines:
        if not line.strip():
            continue
        raw = json.loads(line, parse_float=decimal.Decimal)
        raw = {k[1:-1] if k.startswith('"') and k.endswith('"') else k: v for k, v in raw.items()}
        rows.append({f["name"]: from_cql_json(raw.get(f["name"]), f["type"]) for f in schema["fields"]})
    return iceberg_readers.sort_rows(rows)


NON_FINITE_OR_NULL = "<null, NaN or infinite>"


def mask_non_finite(value, itype):
    """`value` with every float or double that is null, NaN or infinite replaced by one marker:
    SELECT JSON cannot tell them apart, so neither may a comparison with it."""
    if isinstance(itype, dict):
        if value is None:
            return None
        kind = itype["type"]
        if kind == "list":
            return [mask_non_finite(e, itype["element"]) for e in value]
        if kind == "map":
            return [[mask_non_finite(k, itype["key"]), mask_non_finite(v, itype["value"])] for k, v in value]
        if kind == "struct":
            return {f["name"]: mask_non_finite(value[f["name"]], f["type"]) for f in itype["fields"]}
        return value
    if itype in ("float", "double") and value in (None, "NaN", "Infinity", "-Infinity"):
        return NON_FINITE_OR_NULL
    return value


def mask_rows(rows, schema):
    struct = {"type": "struct", "fields": schema["fields"]}
    return iceberg_readers.sort_rows([mask_non_finite(r, struct) for r in rows])
