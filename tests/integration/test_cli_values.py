"""The command line's habits: `--now` as seconds or ISO-8601, an unknown
command an error, each command's --help its own.

The bundled price_points table holds one row written with a TTL; Cassandra's
own tools print when it expires (the dump's `expires_at`, which equals
sstabledump's), and the row must be there one second before that instant
and gone at it, however the instant is written. The seconds are Python's
`calendar.timegm` of the same instant.
"""
import calendar
import datetime
import json
import pathlib
import re

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1].parent
EXAMPLE = REPO / "examples" / "data" / "shop"


@pytest.fixture(scope="module")
def price_points():
    return sorted(EXAMPLE.glob("price_points-*"))[0]


def expiry(cqlite, table):
    dump = cqlite("dump", table).stdout
    found = re.findall(r'"expires_at" : "([^"]+)"', dump)
    assert len(found) == 1, found
    return datetime.datetime.fromisoformat(found[0].replace("Z", "+00:00"))


def rows_at(cqlite, table, now):
    return [json.loads(line) for line in cqlite("select", table, "--now", now).stdout.splitlines()]


def test_now_takes_seconds_and_iso_8601_alike(cqlite, price_points):
    expires = expiry(cqlite, price_points)
    before, at = expires - datetime.timedelta(seconds=1), expires
    forms = {
        "before": [str(calendar.timegm(before.utctimetuple())), before.strftime("%Y-%m-%dT%H:%M:%SZ"),
                   before.strftime("%Y-%m-%d %H:%M:%S.999Z"),
                   before.astimezone(datetime.timezone(datetime.timedelta(hours=2))).isoformat()],
        "at": [str(calendar.timegm(at.utctimetuple())), at.strftime("%Y-%m-%dT%H:%M:%SZ"),
               at.astimezone(datetime.timezone(datetime.timedelta(hours=-5, minutes=-30))).isoformat()],
    }
    answers = {when: [rows_at(cqlite, price_points, form) for form in texts] for when, texts in forms.items()}
    for when, results in answers.items():
        assert all(r == results[0] for r in results), when
    assert len(answers["before"][0]) == len(answers["at"][0]) + 1, "the TTL row runs out at its expires_at"
    assert all(row in answers["before"][0] for row in answers["at"][0])


@pytest.mark.parametrize("command", ["select", "materialize"])
@pytest.mark.parametrize("bad", ["yesterday", "2027-02-30", "2027-01-01T25:00Z", "-1", "1969-12-31"])
def test_a_bad_now_is_one_line_naming_the_option(cqlite, price_points, tmp_path, command, bad):
    args = [command, price_points, "--now", bad]
    if command == "materialize":
        args += ["--warehouse", tmp_path / "wh"]
    proc = cqlite(*args, check=False)
    assert proc.returncode != 0 and proc.returncode < 128
    assert proc.stdout == ""
    assert "--now" in proc.stderr and bad in proc.stderr, proc.stderr
    assert not (tmp_path / "wh").exists(), "nothing written"


@pytest.mark.parametrize("args", [["nosuch"], ["nosuch", "--help"], ["watchh", "/tmp"]])
def test_an_unknown_command_is_an_error(cqlite, args):
    proc = cqlite(*args, check=False)
    assert proc.returncode == 2, proc
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and f"unknown command '{args[0]}'" in lines[0], proc.stderr
    for command in ("ls", "dump", "select", "delta-export", "materialize", "watch"):
        assert command in lines[0]


@pytest.mark.parametrize("command, options", [
    ("watch", ["--interval", "--metrics-port", "--status", "--tables", "systemd"]),
    ("materialize", ["--threads", "--now", "ISO-8601"]),
    ("select", ["--where", "--now", "ISO-8601"]),
])
def test_each_command_has_help_of_its_own(cqlite, command, options):
    proc = cqlite(command, "--help")
    assert proc.returncode == 0
    assert f"{command} [OPTIONS]" in proc.stdout, proc.stdout[:400]
    for option in options:
        assert option in proc.stdout, option


@pytest.mark.parametrize("command", ["materialize", "watch"])
def test_a_catalog_name_with_a_rest_catalog_is_an_error_before_anything_is_written(cqlite, command, tmp_path):
    # A REST catalog server names its own catalog: a --catalog-name would be
    # silently ignored. Nothing listens on the port: the run ends before it
    # asks the server anything.
    warehouse = tmp_path / "wh"
    proc = cqlite(command, EXAMPLE, "--warehouse", warehouse, "--catalog", "rest:http://127.0.0.1:9",
                  "--catalog-name", "other", check=False)
    assert proc.returncode == 1, proc
    assert proc.stdout == ""
    assert "--catalog-name other: a REST catalog server names its own catalog" in proc.stderr, proc.stderr
    assert "127.0.0.1:9" not in proc.stderr, "the server was not asked"
    assert not warehouse.exists(), "nothing written"
