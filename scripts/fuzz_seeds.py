#!/usr/bin/env python3
"""Writes seed inputs for the libFuzzer targets from real SSTables.

Usage: fuzz_seeds.py FIXTURES_DIR OUT_DIR

Walks FIXTURES_DIR (Cassandra-written SSTables and schema files), and writes
one directory per target under OUT_DIR in the input layout that target's
harness documents (fuzz/fuzz_input.h: a selector byte, 4-byte little-endian
length-prefixed blocks, the last file taking the rest). Run at fuzzing time
by scripts/fuzz.sh; the seeds are never committed.
"""
import hashlib
import os
import re
import struct
import sys

VERSIONS = ["ma", "mb", "mc", "md", "me", "na", "nb", "nc", "oa", "da"]
CHECKSUMMED = {"na", "nb", "nc", "oa", "da"}
# fuzz_compressed_data's codec order, and fuzz_codec's.
COMPRESSED_CODECS = ["LZ4Compressor", "SnappyCompressor", "DeflateCompressor", "ZstdCompressor", "NoopCompressor"]
CODEC_INDEX = {"NoopCompressor": 0, "LZ4Compressor": 1, "SnappyCompressor": 2, "DeflateCompressor": 3,
               "ZstdCompressor": 4}
MAX_SEED = 256 * 1024
NAME_RE = re.compile(r"^([a-z]{2})-([^-]+)-(big|bti)-(.+)$")


def block(b):
    return struct.pack("<I", len(b)) + b


class Writer:
    def __init__(self, out):
        self.out = out
        self.counts = {}

    def put(self, target, data):
        if len(data) > MAX_SEED:
            return
        d = os.path.join(self.out, target)
        os.makedirs(d, exist_ok=True)
        name = hashlib.sha1(data).hexdigest()
        path = os.path.join(d, name)
        if not os.path.exists(path):
            with open(path, "wb") as f:
                f.write(data)
            self.counts[target] = self.counts.get(target, 0) + 1


def read(path):
    with open(path, "rb") as f:
        return f.read()


def parse_compression_info(b, version):
    """Returns (compressor short name, chunk length, offsets) or None."""
    try:
        (n,) = struct.unpack_from(">H", b, 0)
        pos = 2
        name = b[pos:pos + n].decode()
        pos += n
        (options,) = struct.unpack_from(">i", b, pos)
        pos += 4
        for _ in range(options * 2):
            (k,) = struct.unpack_from(">H", b, pos)
            pos += 2 + k
        (chunk_length,) = struct.unpack_from(">i", b, pos)
        pos += 4
        if version in CHECKSUMMED:
            pos += 4
        pos += 8  # data length
        (count,) = struct.unpack_from(">i", b, pos)
        pos += 4
        offsets = list(struct.unpack_from(">%dq" % count, b, pos))
        return name.rsplit(".", 1)[-1], chunk_length, offsets
    except (struct.error, UnicodeDecodeError, ValueError):
        return None


def main():
    fixtures, out = sys.argv[1], sys.argv[2]
    w = Writer(out)
    for root, _, files in os.walk(fixtures):
        for f in sorted(files):
            path = os.path.join(root, f)
            if f.endswith(".cql"):
                w.put("fuzz_cql_schema", read(path))
            m = NAME_RE.match(f)
            if not m:
                continue
            w.put("fuzz_sstable_file_name", f.encode())
            version, component = m.group(1), m.group(4)
            if version not in VERSIONS or component != "Data.db":
                continue
            idx = VERSIONS.index(version)
            prefix = os.path.join(root, f[: -len("Data.db")])
            component_path = lambda c: prefix + c
            data = read(path)
            stats = read(component_path("Statistics.db")) if os.path.exists(component_path("Statistics.db")) else b""
            toc = read(component_path("TOC.txt")) if os.path.exists(component_path("TOC.txt")) else b""
            ci = read(component_path("CompressionInfo.db")) if os.path.exists(component_path("CompressionInfo.db")) else None
            fix = 0x80 if version in CHECKSUMMED else 0
            if stats:
                w.put("fuzz_statistics", bytes([idx | fix]) + stats)
                for t in re.findall(rb"org\.apache\.cassandra\.db\.marshal\.[\x21-\x7e]+", stats):
                    w.put("fuzz_marshal_type", t)
            sstable = bytes([idx | fix | (0x40 if ci is not None else 0)]) + block(toc) + block(stats)
            if ci is not None:
                sstable += block(ci)
            w.put("fuzz_sstable", sstable + data)
            if ci is None:
                layout = 0 if version.startswith("m") else 2 if version.startswith("n") else 4
                w.put("fuzz_data_reader", bytes([layout]) + data)
                continue
            w.put("fuzz_compression_info", bytes([idx]) + ci)
            w.put("fuzz_compressed_data", bytes([idx]) + block(ci) + data)
            parsed = parse_compression_info(ci, version)
            if not parsed:
                continue
            name, chunk_length, offsets = parsed
            if name not in COMPRESSED_CODECS or chunk_length < 1024 or chunk_length > 128 * 1024:
                continue
            shift = (chunk_length // 1024).bit_length() - 1
            seed = bytes([0x80 | idx, COMPRESSED_CODECS.index(name) | (shift << 3)]) + struct.pack("<I", min(
                len(data) * 4, 0xFFFFFFFF))
            bounds = offsets + [len(data)]
            for i in range(len(offsets)):
                chunk = data[bounds[i]:max(bounds[i], bounds[i + 1] - 4)]
                seed += block(chunk)
                w.put("fuzz_codec", bytes([CODEC_INDEX[name], min(255, (chunk_length + 256) // 257)]) + chunk)
            w.put("fuzz_compressed_data", seed)
    for target, n in sorted(w.counts.items()):
        print("%s: %d seeds" % (target, n))


if __name__ == "__main__":
    main()
