"""The tier's Cassandra data: a real Cassandra 5.0 node (tools/oracle) writes the
keyspace `fleet` in GENERATIONS flushes and records its `SELECT JSON *` of each
table after flush FIRST_JOB and after the last one. Cached by node_runs.generated
under ${CQLITE_CACHE:-~/.cache/cqlite}/oracle/generated/, keyed by the scenario
text and the oracle's version.

fleet.events (a few thousand rows over a few hundred partitions): inserts in
every flush; from the second on, overwrites, cell, row, range and partition
deletions and set element removals; rows with a TTL of 2 s in flushes 2 and 5
(the node sleeps past them before its next select, so they have expired there)
and with a TTL of a few days in flush 3 (live at both selects).
fleet.devices: a small table every flush changes (inserts, updates, deletions).
"""
import random

import node_runs

KEYSPACE = "fleet"
TABLES = ("events", "devices")
GENERATIONS = 6
FIRST_JOB = 4          # the first job consumes generations 1..FIRST_JOB, the second the rest
DEVICES, SEQS = 300, 40


def scenario_text():
    r = random.Random(18)
    out = [f"CREATE KEYSPACE {KEYSPACE} WITH replication = {{'class': 'SimpleStrategy', 'replication_factor': 1}};",
           f"CREATE TABLE {KEYSPACE}.events (device int, seq int, kind text, amount bigint, tags set<text>, "
           "note text, PRIMARY KEY (device, seq));",
           f"CREATE TABLE {KEYSPACE}.devices (id int PRIMARY KEY, name text, firmware text, retired boolean);"]
    ts = 1_000_000

    def stamp():
        nonlocal ts
        ts += 1
        return ts

    def key():
        return f"device = {r.randrange(DEVICES)} AND seq = {r.randrange(SEQS)}"

    def insert(ttl=None):
        tags = ", ".join(f"'t{r.randrange(6)}'" for _ in range(r.randrange(3)))
        using = f"USING TIMESTAMP {stamp()}" + (f" AND TTL {ttl}" if ttl else "")
        return (f"INSERT INTO {KEYSPACE}.events (device, seq, kind, amount, tags, note) VALUES "
                f"({r.randrange(DEVICES)}, {r.randrange(SEQS)}, 'k{r.randrange(5)}', {r.randrange(-10**12, 10**12)}, "
                f"{{{tags}}}, '{'n' * r.randrange(30)}') {using};")

    for generation in range(1, GENERATIONS + 1):
        out.append(f"-- generation {generation}")
        out += [insert() for _ in range(1200 if generation == 1 else 700)]
        if generation > 1:
            for _ in range(80):
                out.append(f"UPDATE {KEYSPACE}.events USING TIMESTAMP {stamp()} SET note = 'updated {generation}', "
                           f"amount = {r.randrange(100)} WHERE {key()};")
            out += [f"DELETE FROM {KEYSPACE}.events USING TIMESTAMP {stamp()} WHERE {key()};" for _ in range(40)]
            out += [f"DELETE note FROM {KEYSPACE}.events USING TIMESTAMP {stamp()} WHERE {key()};" for _ in range(15)]
            out += [f"UPDATE {KEYSPACE}.events USING TIMESTAMP {stamp()} SET tags = tags - {{'t{r.randrange(6)}'}} "
                    f"WHERE {key()};" for _ in range(15)]
            lo = r.randrange(SEQS - 10)
            out.append(f"DELETE FROM {KEYSPACE}.events USING TIMESTAMP {stamp()} "
                       f"WHERE device = {r.randrange(DEVICES)} AND seq > {lo} AND seq < {lo + 8};")
            out.append(f"DELETE FROM {KEYSPACE}.events USING TIMESTAMP {stamp()} WHERE device = {r.randrange(DEVICES)};")
        if generation in (2, 5):
            out += [insert(ttl=2) for _ in range(20)]
        if generation == 3:
            out += [insert(ttl=5 * 86400) for _ in range(20)]
        for _ in range(60 if generation == 1 else 20):
            out.append(f"INSERT INTO {KEYSPACE}.devices (id, name, firmware, retired) VALUES ({r.randrange(120)}, "
                       f"'d{r.randrange(1000)}', '{generation}.{r.randrange(10)}', {r.choice(['true', 'false'])}) "
                       f"USING TIMESTAMP {stamp()};")
        if generation > 1:
            out += [f"DELETE FROM {KEYSPACE}.devices USING TIMESTAMP {stamp()} WHERE id = {r.randrange(120)};"
                    for _ in range(4)]
        out.append("-- flush")
        if generation in (2, 5):
            out.append("-- sleep 3")  # the TTL 2 rows expire before the next select
        if generation in (FIRST_JOB, GENERATIONS):
            out += [f"-- select {KEYSPACE}.{table}" for table in TABLES]
    return "\n".join(out) + "\n"


def node_output(oracle):
    """The node's output: <dir>/fleet/<table>-<id>/ (every generation's SSTables), <dir>/fleet/schema.cql and
    <dir>/fleet/<table>.select{1,2}.jsonl."""
    return node_runs.generated(oracle, scenario_text(), "spark-job-fleet", "the spark job tier's tables",
                               lambda out: all((out / KEYSPACE / f"{t}.select2.jsonl").exists() for t in TABLES))


def generations(table_dir):
    """SSTable component prefixes ("oa-3-big-") of a table directory, in generation order."""
    prefixes = {p.name[:-len("Data.db")] for p in table_dir.glob("*-Data.db")}
    return sorted(prefixes, key=lambda p: int(p.split("-")[1]))
