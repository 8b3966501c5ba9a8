#!/usr/bin/env python3
"""Generate every oracle scenario in every SSTable format.

    gen_all.py OUTDIR [--formats nb,oa,da] [--scenario NAME]... [--dump]
                      [--jobs N] [--force]

Each scenario x format is produced by `oracle.sh generate` and cached under
${CQLITE_CACHE:-~/.cache/cqlite}/oracle/generated/<scenario>-<format>-<key>/,
where <key> hashes the scenario text, the format and the oracle version
(`oracle.sh version`). Cached results are reused, then copied to
OUTDIR/<format>/<scenario>/<keyspace>/<table>-<id>/...

With --dump, sstabledump-batch is run over the generated Data.db files (also
cached) and its output lands in OUTDIR/<format>/<scenario>/oracle-dump/ with
one <keyspace>_<table>-<id>_<sstable>-Data.db.json (or .err) per SSTable and
a manifest.tsv.
"""

import argparse
import concurrent.futures
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ORACLE = HERE / "oracle.sh"
SCENARIOS = HERE / "scenarios"
FORMATS = ("nb", "oa", "da")


def cache_root() -> Path:
    base = os.environ.get("CQLITE_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "cqlite")
    return Path(base) / "oracle" / "generated"


def oracle_version() -> str:
    out = subprocess.run([str(ORACLE), "version"], check=True, capture_output=True, text=True)
    return out.stdout.strip()


def entry_key(scenario: Path, fmt: str, version: str) -> str:
    h = hashlib.sha256()
    h.update(scenario.read_bytes())
    h.update(b"\0" + fmt.encode() + b"\0" + version.encode())
    return h.hexdigest()[:16]


def data_files(root: Path):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*-Data.db") if "oracle-dump" not in p.parts)


def generate(scenario: Path, fmt: str, entry: Path, force: bool) -> str:
    done = entry / ".done"
    if done.exists() and not force:
        return "cached"
    entry.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=entry.name + ".", dir=entry.parent))
    try:
        log = tmp.parent / (entry.name + ".log")
        with open(log, "wb") as lf:
            rc = subprocess.run([str(ORACLE), "generate", str(scenario), str(tmp / "data"), "--format", fmt],
                                stdout=lf, stderr=subprocess.STDOUT).returncode
        if rc != 0:
            raise RuntimeError(f"oracle.sh generate failed (exit {rc}); see {log}")
        log.replace(tmp / "generate.log")
        (tmp / ".done").write_text("")
        if entry.exists():
            shutil.rmtree(entry)
        tmp.rename(entry)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return "generated"


def dump(entry: Path, force: bool) -> str:
    dump_dir = entry / "oracle-dump"
    done = entry / ".dump-done"
    if done.exists() and not force:
        return "cached"
    if dump_dir.exists():
        shutil.rmtree(dump_dir)
    data = entry / "data"
    files = data_files(data)
    # Relative paths keep the output names short and independent of the cache location.
    proc = subprocess.run([str(ORACLE), "sstabledump-batch", str(dump_dir)] + files,
                          cwd=data, capture_output=True, text=True)
    if not (dump_dir / "manifest.tsv").exists():
        raise RuntimeError("sstabledump-batch failed: " + proc.stderr[-2000:])
    done.write_text("")
    return "dumped"


def summarize_dump(entry: Path):
    manifest = entry / "oracle-dump" / "manifest.tsv"
    ok = fail = 0
    if manifest.exists():
        for line in manifest.read_text().splitlines():
            if line.startswith("OK\t"):
                ok += 1
            elif line.startswith("FAIL\t"):
                fail += 1
    return ok, fail


def publish(entry: Path, target: Path, with_dump: bool):
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(entry / "data", target)
    if with_dump and (entry / "oracle-dump").exists():
        shutil.copytree(entry / "oracle-dump", target / "oracle-dump")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--formats", default=",".join(FORMATS))
    ap.add_argument("--scenario", action="append", help="scenario name (file stem); repeatable; default all")
    ap.add_argument("--dump", action="store_true", help="also run sstabledump-batch over the results")
    ap.add_argument("--jobs", type=int, default=1, help="parallel generations (each starts a node)")
    ap.add_argument("--force", action="store_true", help="ignore cached results")
    args = ap.parse_args()

    formats = [f for f in args.formats.split(",") if f]
    for f in formats:
        if f not in FORMATS:
            ap.error(f"unknown format {f}")
    scenarios = sorted(SCENARIOS.glob("*.cql"))
    if args.scenario:
        wanted = set(args.scenario)
        scenarios = [s for s in scenarios if s.stem in wanted]
        missing = wanted - {s.stem for s in scenarios}
        if missing:
            ap.error("unknown scenario(s): " + ", ".join(sorted(missing)))

    # Build once up front so parallel jobs don't race on it.
    subprocess.run([str(ORACLE), "build"], check=True)
    version = oracle_version()
    root = cache_root()
    out = Path(args.outdir).resolve()

    work = []
    for s in scenarios:
        for f in formats:
            entry = root / f"{s.stem}-{f}-{entry_key(s, f, version)}"
            work.append((s, f, entry))

    def one(item):
        s, f, entry = item
        t0 = time.monotonic()
        status = generate(s, f, entry, args.force)
        if args.dump:
            status += "+" + dump(entry, args.force)
        publish(entry, out / f / s.stem, args.dump)
        return status, time.monotonic() - t0

    failures = 0
    t_start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(one, item): item for item in work}
        for fut in concurrent.futures.as_completed(futures):
            s, f, entry = futures[fut]
            try:
                status, secs = fut.result()
                n = len(data_files(entry / "data"))
                extra = ""
                if args.dump:
                    ok, fail = summarize_dump(entry)
                    extra = f"\tdump ok={ok} fail={fail}"
                print(f"{s.stem}\t{f}\t{status}\t{secs:.1f}s\t{n} sstables{extra}", flush=True)
            except Exception as e:  # noqa: BLE001 - report and continue with the others
                failures += 1
                print(f"{s.stem}\t{f}\tFAILED\t{e}", flush=True)
    print(f"gen_all: {len(work) - failures}/{len(work)} done in {time.monotonic() - t_start:.1f}s -> {out}",
          file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
