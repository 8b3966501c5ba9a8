"""The runs of bench/run_change_bench.sh: a first `cqlite materialize` of the
bench table, then, for each change of about 1% of the rows, the run (or runs)
that publish it, each starting from the first run's snapshot, with 1 and 2
threads and, for comparison in the same run, with --fold-everything (every
kept generation folded again, what a run cost before it could fold only the
rows a change touches). Each run is timed by /usr/bin/time -v (wall, CPU,
peak RSS); its rows written and deleted are checked against what the
generator says it changed. Writes report.md and report.json into --out.

    change_bench.py --cqlite BIN --table DIR --work DIR --out DIR --now SECONDS
                    --change NAME=GENERATOR_DIR ...
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

# A run of a pattern: the change's generations it adds to the table directory
# (and renames: {generation: new generation}), those it takes away, the
# seconds after --now it runs at, and what else it is given.
def step(add=(), remove=(), rename=None, later=0, extra=()):
    return {"add": list(add), "remove": list(remove), "rename": rename or {}, "later": later, "extra": list(extra)}


DAY = 24 * 3600
# (pattern, what it is, the change it takes, its runs: the last is the one
# measured, each from the first run's snapshot)
PATTERNS = [
    ("1", "updates and deletes newer than the table, one run", "changes", [step(add=[1001, 1002])]),
    ("2", "the same as two runs, the deletes' timestamps interleaving with the updates'", "changes",
     [step(add=[1001]), step(add=[1002])]),
    ("3", "rows rewritten whole with timestamps older than the table's newest write", "after-row",
     [step(add=[1001, 1002])]),
    ("4", "row, range and partition deletions of old rows", "deletions", [step(add=[1001, 1002, 1003])]),
    ("5", "one column of old rows set with a timestamp older than the row's other cells", "column",
     [step(add=[1001])]),
    ("6", "1% of the partitions rewritten whole", "partitions", [step(add=[1001])]),
    # A single-SSTable compaction (as upgradesstables or a tombstone
    # compaction rewrites one): the consumed updates vanish, and the same
    # rows come back as a new generation. A complete source, so that the run
    # sees a compaction.
    ("7", "a compaction of consumed generations that purges nothing", "changes",
     [step(add=[1001, 1002], extra=["--complete-source"]),
      step(remove=[1001], rename={1001: 1005}, extra=["--complete-source"])]),
    ("9", "rows whose TTL runs out (1% of the rows, written with a TTL of a day)", "ttl",
     [step(add=[1001]), step(later=DAY + 120)]),
]


def log(message):
    print(f"change_bench.py: {message}", file=sys.stderr, flush=True)


def generation_counts(change_dir):
    text = (change_dir / "generation.txt").read_text()
    return {k: int(v) for k, v in re.findall(r"\b(updated|deleted|rows)=(\d+)", text.splitlines()[0])}


def expected(pattern, counts, step, steps):
    """(rows written, rows deleted) the step of the pattern must report."""
    updated, deleted = counts["updated"], counts["deleted"]
    if pattern == "2":
        return (updated, updated) if step == 0 else (0, deleted)
    if pattern == "7":
        return (updated, updated + deleted) if step == 0 else (0, 0)
    if pattern == "9":
        return (updated, updated) if step == 0 else (0, updated)
    if pattern in ("1", "3"):
        return updated, updated + deleted
    if pattern == "4":
        return 0, deleted
    return updated, updated


def time_v(path):
    text = path.read_text()
    field = lambda name: re.search(rf"{re.escape(name)}: (.*)", text).group(1).strip()
    wall = field("Elapsed (wall clock) time (h:mm:ss or m:ss)")
    parts = [float(p) for p in wall.split(":")]
    seconds = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
    return {
        "wall": seconds,
        "cpu": float(field("User time (seconds)")) + float(field("System time (seconds)")),
        "peak_rss_mib": int(field("Maximum resident set size (kbytes)")) / 1024,
    }


def loadavg():
    return " ".join(pathlib.Path("/proc/loadavg").read_text().split()[:3])


def materialize(args, name, table, warehouse, *extra, later=0):
    out = pathlib.Path(args.out)
    log(f"{name}: materialize {' '.join(extra)}")
    load_before = loadavg()
    proc = subprocess.run(["/usr/bin/time", "-v", "-o", str(out / f"{name}.time"), args.cqlite, "materialize",
                           str(table), "--warehouse", str(warehouse), "--now", str(args.now + later), "--json",
                           *extra],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    (out / f"{name}.stderr").write_text(proc.stderr)
    if proc.returncode != 0:
        raise SystemExit(f"change_bench.py: {name} failed (exit {proc.returncode}): {proc.stderr[-2000:]}")
    report = json.loads(proc.stdout)["tables"][0]
    result = time_v(out / f"{name}.time")
    result.update(load=f"{load_before} to {loadavg()}", written=report["rows_written"],
                  deleted=report["rows_deleted"], folded=report["folded"],
                  because=report.get("read_kept_facts_because") or report.get("folded_everything_because", ""))
    return result


def fold_state_bytes(catalog):
    """The bytes of the files the current snapshot's fold state names (kept facts, row index) and of the
    state file itself."""
    import sqlite3
    with sqlite3.connect(catalog) as db:
        (location,) = db.execute("SELECT metadata_location FROM iceberg_tables").fetchone()
    metadata = json.loads(pathlib.Path(location).read_text())
    current = next(s for s in metadata["snapshots"] if s["snapshot-id"] == metadata["current-snapshot-id"])
    state_path = pathlib.Path(current["summary"]["cqlite.fold-state"])
    state = json.loads(state_path.read_text())
    files = [f for facts in state["facts"] for f in facts["files"]]
    files += state.get("row-index", []) + state.get("row-index-updates", [])
    return state_path.stat().st_size + sum(pathlib.Path(f).stat().st_size for f in files)


def du(path):
    return sum(f.stat().st_size for f in pathlib.Path(path).rglob("*") if f.is_file())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cqlite", required=True)
    parser.add_argument("--table", required=True, type=pathlib.Path)
    parser.add_argument("--work", required=True, type=pathlib.Path)
    parser.add_argument("--out", required=True, type=pathlib.Path)
    parser.add_argument("--now", required=True, type=int)
    parser.add_argument("--change", action="append", default=[])
    args = parser.parse_args()
    changes = {}
    for spec in args.change:
        name, directory = spec.split("=", 1)
        directory = pathlib.Path(directory)
        changes[name] = (directory, next((directory / "data" / "bench").glob("sensor_readings-*")))

    shutil.rmtree(args.work, ignore_errors=True)
    table = args.work / "data" / "bench" / args.table.name
    table.parent.mkdir(parents=True)
    shutil.copytree(args.table, table, copy_function=os.link)
    warehouse = args.work / "warehouse"
    sstable_bytes = du(table)
    data_bytes = sum(f.stat().st_size for f in table.glob("*-Data.db"))

    first = materialize(args, "first", table, warehouse, "--threads", "1")
    catalog = warehouse / "catalog.db"
    shutil.copy(catalog, args.work / "catalog.first")
    warehouse_bytes = du(warehouse)
    state_bytes = fold_state_bytes(catalog)
    results = []
    for pattern, what, change, steps in PATTERNS:
        directory, change_table = changes[change]
        counts = generation_counts(directory)
        for threads, extra in (("1", ()), ("2", ()), ("2", ("--fold-everything",))):
            shutil.copy(args.work / "catalog.first", catalog)
            added = []
            try:
                for step, run in enumerate(steps):
                    for generation in run["remove"]:
                        for f in table.glob(f"*-{generation}-*"):
                            f.unlink()
                    for generation in run["add"] + list(run["rename"]):
                        new = run["rename"].get(generation, generation)
                        for f in change_table.glob(f"*-{generation}-*"):
                            name = f.name.replace(f"-{generation}-", f"-{new}-", 1)
                            os.link(f, table / name)
                            added.append(table / name)
                    name = f"p{pattern}-t{threads}{'-everything' if extra else ''}-s{step + 1}"
                    result = materialize(args, name, table, warehouse, "--threads", threads, *extra, *run["extra"],
                                         later=run["later"])
                    want = expected(pattern, counts, step, len(steps))
                    result["expected"] = want
                    result["counts_ok"] = (result["written"], result["deleted"]) == want
                    if not result["counts_ok"]:
                        log(f"{name}: wrote {result['written']} and deleted {result['deleted']}, the generator "
                            f"changed {want}")
                    results.append(dict(result, pattern=pattern, what=what, threads=threads,
                                        everything=bool(extra), step=step + 1, steps=len(steps),
                                        ratio=result["wall"] / first["wall"]))
            finally:
                for f in added:
                    f.unlink(missing_ok=True)
    report = {"first": first, "sstable_bytes": sstable_bytes, "data_bytes": data_bytes,
              "fold_state_bytes_after_first": state_bytes, "warehouse_bytes_after_first": warehouse_bytes,
              "runs": results, "now": args.now}
    (args.out / "report.json").write_text(json.dumps(report, indent=1))
    lines = [
        "# Change bench",
        "",
        f"Table: {data_bytes / 2**20:,.1f} MiB of Data.db ({sstable_bytes / 2**20:,.1f} MiB of SSTables). "
        f"First run, one thread: {first['wall']:.2f} s wall, {first['cpu']:.2f} s CPU, "
        f"{first['peak_rss_mib']:.1f} MiB peak RSS, load {first['load']}. After it the fold state (kept "
        f"SSTables, linked, and row index) is {state_bytes / sstable_bytes:.3f}x the SSTables, the whole "
        f"warehouse (with the data files) {warehouse_bytes / sstable_bytes:.3f}x.",
        "",
        "| pattern | run | threads | fold | wall | / first run | CPU | peak RSS | written | deleted | as generated | load |",
        "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for r in results:
        run = f"{r['step']} of {r['steps']}" if r["steps"] > 1 else "1"
        fold = r["folded"] + (" (--fold-everything)" if r["everything"] else "")
        lines.append(f"| {r['pattern']}. {r['what']} | {run} | {r['threads']} | {fold} | {r['wall']:.2f} s | "
                     f"{r['ratio']:.3f} | {r['cpu']:.2f} s | {r['peak_rss_mib']:.1f} MiB | {r['written']:,} | "
                     f"{r['deleted']:,} | {'yes' if r['counts_ok'] else 'NO: ' + str(r['expected'])} | {r['load']} |")
    lines += ["", "Why the kept facts were read (runs of touched rows) or everything folded:", ""]
    for r in results:
        if r["because"] and not r["everything"]:
            lines.append(f"- pattern {r['pattern']}, run {r['step']}, {r['threads']} thread(s): {r['because']}")
    (args.out / "report.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if all(r["counts_ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
