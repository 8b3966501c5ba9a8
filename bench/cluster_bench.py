"""`cqlite materialize --cluster` over three nodes that each hold the whole bench
table (replication factor 3), against three single-node runs of the same
directories, in the same run (bench/run_cluster_bench.sh builds and calls it).

    cluster_bench.py --cqlite BIN --oracle oracle.sh --table DIR --schema schema.cql
                     --rows N --work DIR --out DIR --now SECONDS [--threads T] [--heap 1g]

A real 3-node Cassandra 5.0 cluster (tests/integration/live_cluster.py, on
127.0.0.1-3) is given keyspace bench with SimpleStrategy RF 3 and the table of
schema.cql; each node imports a hard-linked copy of the table's SSTables as
`nodetool import` does, so that every node is a full replica and its data
directory holds its own system tables. The cluster is stopped; then, each under
/usr/bin/time -v:
  cluster   cqlite materialize --cluster node1 node2 node3 (every row folded from
            its three replicas, published once);
  node1..3  cqlite materialize of one node's table directory, each into its own
            warehouse (what a user without --cluster runs, publishing each row
            three times over in three tables).
All four tables must hold N rows. Writes <out>/cluster_report.md.
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests" / "integration"))
import live_cluster  # noqa: E402


def loadavg():
    return open("/proc/loadavg").read().split()[0]


def timed(name, argv, out):
    """Runs argv under /usr/bin/time -v; (report JSON, wall s, user+sys s, peak RSS MiB, load before, after)."""
    before = loadavg()
    time_file = out / f"{name}.time"
    proc = subprocess.run(["/usr/bin/time", "-v", "-o", str(time_file), *argv], capture_output=True, text=True)
    after = loadavg()
    (out / f"{name}.json").write_text(proc.stdout)
    (out / f"{name}.stderr").write_text(proc.stderr)
    if proc.returncode != 0:
        sys.exit(f"cluster_bench.py: {name} failed (exit {proc.returncode}): {proc.stderr[-2000:]}")
    t = time_file.read_text()
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", t).group(1)
    seconds = 0.0
    for part in wall.split(":"):
        seconds = seconds * 60 + float(part)
    cpu = float(re.search(r"User time \(seconds\): (\S+)", t).group(1)) + float(
        re.search(r"System time \(seconds\): (\S+)", t).group(1))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1)) / 1024
    return json.loads(proc.stdout), seconds, cpu, rss, before, after


def main():
    ap = argparse.ArgumentParser()
    for flag in ("--cqlite", "--oracle", "--table", "--schema", "--work", "--out"):
        ap.add_argument(flag, required=True)
    ap.add_argument("--rows", type=int, required=True)
    ap.add_argument("--now", required=True)
    ap.add_argument("--threads", default=str(os.cpu_count()))
    ap.add_argument("--heap", default="1g")
    args = ap.parse_args()
    work, out, table = pathlib.Path(args.work), pathlib.Path(args.out), pathlib.Path(args.table)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    out.mkdir(parents=True, exist_ok=True)

    placements = [{"dc": "dc1", "rack": f"r{i + 1}", "num_tokens": 4} for i in range(3)]
    cluster = live_cluster.LiveCluster(args.oracle, work / "cluster", placements, heap=args.heap)
    import_seconds = []
    try:
        print("cluster_bench.py: starting 3 nodes", file=sys.stderr)
        cluster.start()
        first = cluster.nodes[0]
        first.command("cql-at ALL CREATE KEYSPACE bench WITH replication = "
                      "{'class': 'SimpleStrategy', 'replication_factor': 3}")
        create = re.sub(r"\s+", " ", pathlib.Path(args.schema).read_text().strip().rstrip(";"))
        first.command("cql-at ALL " + create)
        cluster.wait_for_schema_agreement()
        for i, node in enumerate(cluster.nodes):
            staged = work / "import" / f"node{i + 1}"
            staged.mkdir(parents=True)
            for f in table.iterdir():
                if f.is_file():
                    os.link(f, staged / f.name)
            print(f"cluster_bench.py: node{i + 1} imports the table", file=sys.stderr)
            start = time.monotonic()
            node.command(f"import bench sensor_readings {staged}")
            import_seconds.append(time.monotonic() - start)
            node.flush_schema()
    finally:
        cluster.stop()

    data_dirs = cluster.data_dirs()
    table_dirs = [next((d / "bench").glob("sensor_readings-*")) for d in data_dirs]
    data_bytes = [sum(f.stat().st_size for f in t.glob("*-Data.db")) for t in table_dirs]
    common = ["--now", args.now, "--threads", args.threads, "--json"]
    runs = {}
    print("cluster_bench.py: materialize --cluster", file=sys.stderr)
    runs["cluster"] = timed("cluster", [args.cqlite, "materialize", "--cluster", *map(str, data_dirs), "--warehouse",
                                        str(work / "warehouse-cluster"), *common], out)
    for i, t in enumerate(table_dirs):
        print(f"cluster_bench.py: materialize node{i + 1}", file=sys.stderr)
        runs[f"node{i + 1}"] = timed(f"node{i + 1}", [args.cqlite, "materialize", str(t), "--warehouse",
                                                       str(work / f"warehouse-node{i + 1}"), *common], out)

    def bench_table(report):
        tables = [r for r in report["tables"] if (r["namespace"], r["table"]) == ("bench", "sensor_readings")]
        assert len(tables) == 1 and tables[0]["committed"], report
        return tables[0]

    for name, (report, *_rest) in runs.items():
        rows = bench_table(report)["rows_total"]
        if rows != args.rows:
            sys.exit(f"cluster_bench.py: {name} published {rows} rows, the generator wrote {args.rows}")

    singles = [runs[f"node{i + 1}"] for i in range(3)]
    cluster_wall = runs["cluster"][1]
    singles_wall = sum(r[1] for r in singles)
    mib = 1024 * 1024
    lines = [
        "# `materialize --cluster` against three single-node runs",
        "",
        f"3 nodes (Cassandra 5.0, 127.0.0.1-3, 4 tokens each), keyspace bench RF 3 (SimpleStrategy): every node "
        f"holds the whole table, {args.rows:,} rows, {data_bytes[0] / mib:,.1f} MiB of Data.db per node "
        f"({sum(data_bytes) / mib:,.1f} MiB in all). Imported as `nodetool import` does: "
        + ", ".join(f"{s:.1f} s" for s in import_seconds) + ". "
        f"`--threads {args.threads}`, `--now {args.now}`, {os.cpu_count()} cores.",
        "",
        "| run | wall | CPU | peak RSS | rows published | Data.db read | read MiB/s | rows/s published | load before → after |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name, (report, wall, cpu, rss, before, after) in runs.items():
        read = sum(data_bytes) if name == "cluster" else data_bytes[int(name[-1]) - 1]
        lines.append(f"| {name} | {wall:.2f} s | {cpu:.2f} s | {rss:.1f} MiB | {args.rows:,} | {read / mib:,.1f} MiB "
                     f"| {read / mib / wall:,.1f} | {args.rows / wall:,.0f} | {before} → {after} |")
    lines += [
        "",
        f"`--cluster` took {cluster_wall:.2f} s to publish the table once from all three replicas; the three "
        f"single-node runs took {singles_wall:.2f} s together and published it three times, in three tables "
        f"(ratio --cluster / three single runs: {cluster_wall / singles_wall:.3f}).",
        f"Peak RSS: --cluster {runs['cluster'][3]:.1f} MiB, single runs at most {max(r[3] for r in singles):.1f} MiB.",
    ]
    (out / "cluster_report.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
