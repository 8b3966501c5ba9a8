"""The report of bench/run_spark_job_bench.sh, from its raw outputs.

    spark_job_report.py <out-dir> "<executor counts>" <range bytes>

Prints Markdown: each contender's wall time and speedup against the single
process, the Spark jobs' task figures, the speedup of more executors, and a
projection for 100 TB from the first load's per-range figures.
"""
import json, pathlib, sys

out = pathlib.Path(sys.argv[1])
executors = sys.argv[2].split()
range_bytes = sys.argv[3]


def timed(path):
    fields = {}
    for line in path.read_text().splitlines():
        key, _, value = line.strip().rpartition(": ")
        fields[key] = value
    wall = 0.0
    for part in fields["Elapsed (wall clock) time (h:mm:ss or m:ss)"].split(":"):
        wall = wall * 60 + float(part)
    return {"wall": wall, "cpu": float(fields["User time (seconds)"]) + float(fields["System time (seconds)"]),
            "rss_mib": int(fields["Maximum resident set size (kbytes)"]) / 1024}


data_bytes = int((out / "data_bytes").read_text())
print("# cqlite materialize as a Spark job\n")
print(f"Dataset: {data_bytes / 2**20:,.1f} MiB of SSTables; ranges of about {range_bytes}; "
      f"{(out / 'cores').read_text().strip()} cores; --now {(out / 'now').read_text().strip()}.\n")
print("| step | contender | wall s | speedup vs single | tasks | task s (sum) | task s (max) | task peak RSS MiB | commit s | load before |")
print("|---|---|---|---|---|---|---|---|---|---|")
per_range = []
for step in (0, 1):
    single = timed(out / f"single.step{step}.time")
    print(f"| {'first load' if step == 0 else '1% change'} | single process (--threads 2) | {single['wall']:.2f} | 1.00 | | | | "
          f"{single['rss_mib']:.0f} (process) | | {(out / f'single.step{step}.load').read_text().strip()} |")
    for n in executors:
        name = f"spark{n}"
        t = timed(out / f"{name}.step{step}.time")
        summary = json.loads((out / f"{name}.step{step}.json").read_text())
        table = summary["tables"][0]
        ranges = table["ranges"]
        seconds = [r["seconds"] for r in ranges]
        rss = max(r["peak_rss_kib"] for r in ranges) / 1024
        commit_s = summary["commit"].get("seconds", 0.0)
        if step == 0:
            per_range += [(table["data_bytes"] / len(ranges), s) for s in seconds]
        print(f"| {'first load' if step == 0 else '1% change'} | Spark job, {n} executor(s) | {t['wall']:.2f} | "
              f"{single['wall'] / t['wall']:.2f} | {len(ranges)} | {sum(seconds):.1f} | {max(seconds):.1f} | {rss:.0f} | "
              f"{float(commit_s):.2f} | {(out / f'{name}.step{step}.load').read_text().strip()} |")
print()
counts = [int(n) for n in executors]
if len(counts) > 1:
    base = min(counts)
    for step in (0, 1):
        walls = {n: timed(out / f"spark{n}.step{step}.time")["wall"] for n in counts}
        print(f"- {'First load' if step == 0 else '1% change'}: " + "; ".join(
            f"{n} executors against {base}: {walls[base] / walls[n]:.2f}x" for n in counts if n != base) + ".")
    change = json.loads((out / f"spark{base}.step1.json").read_text())["tables"][0]["ranges"]
    print(f"- A job's wall time includes starting Spark (the driver, the local cluster's JVMs): the 1% change's "
          f"tasks took {sum(r['seconds'] for r in change):.1f} task-seconds of its "
          f"{timed(out / f'spark{base}.step1.time')['wall']:.1f} s with {base} executor(s).")
    print()
if per_range:
    total_bytes = sum(b for b, _ in per_range)
    total_seconds = sum(s for _, s in per_range)
    rate = total_bytes / total_seconds  # bytes of SSTables per task-second, first load
    tb = 100 * 10**12
    core_hours = tb / rate / 3600
    print("## Projection for 100 TB (a projection from the figures above, not a measurement)\n")
    print(f"First-load tasks folded {total_bytes / 2**20:,.0f} MiB in {total_seconds:.1f} task-seconds "
          f"(the {len(per_range)} tasks of the first-load jobs): {rate / 2**20:.1f} MiB of SSTables per task-second on one core.")
    print(f"At that rate 100 TB (10^14 bytes, replicas included) is {core_hours:,.0f} core-hours of tasks: "
          f"{core_hours / 400:,.1f} hours on 100 executors of 4 cores, {core_hours / 1600:,.1f} hours on 400 such executors, "
          "if tasks scale as they do here, storage delivers the bytes as fast as this machine's disk did, "
          "and the commit (one per table, on the driver) stays small against the tasks.")
