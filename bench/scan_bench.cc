// Full-scan throughput of SSTable::Scan against the decompression-only bound,
// over the same files in the same run (bench/run_scan_bench.sh drives it and
// adds Cassandra's sstabledump).
//
//   BM_Scan                 SSTable::Open + Scan of every SSTable, a consumer
//                           that counts envelope records and cells, nothing printed;
//   BM_DecompressOnly       the same Data.db chunks through OpenDataFile's
//                           ChunkSource: read, CRC32-verified and decompressed with
//                           the same codec, nothing parsed (the bound the scan can
//                           at best reach);
//   BM_CodecOnly            the chunks read and decompressed with the codec
//                           directly, no checksum: the library's own speed.
//
// Every benchmark reports `data_bytes` (uncompressed Data.db bytes per
// iteration), `bytes_per_second` over them, and the scan also `cells`,
// `cells_per_second`, `rows`, `partitions`. `peak_rss_mib` is the process's
// peak resident set so far (getrusage), so run one benchmark per process
// (--benchmark_filter) to attribute it.
//
// The dataset: --data=DIR (or CQLITE_BENCH_DATA), any path FindSSTables
// accepts; without either, the small example table in examples/data, so the
// binary runs without the generated 1 GiB set.
#include <sys/resource.h>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cassandra/data_file.h"
#include "cassandra/envelope.h"
#include "cassandra/sstable.h"
#include "io/codec.h"
#include "io/file_system.h"

namespace cqlite {
namespace {

std::string& DataDir() {
  static std::string dir;
  return dir;
}

// Counts what the reader produces and touches nothing else.
class CountingConsumer final : public EnvelopeConsumer {
 public:
  Status OnPartitionStart(const PartitionHeader& partition) override {
    ++partitions;
    return Status::OK();
  }
  Status OnRow(const Row& row) override {
    ++rows;
    for (const ColumnData& column : row.columns) cells += column.cells.size();
    return Status::OK();
  }
  Status OnRangeTombstoneMarker(const RangeTombstoneMarker& marker) override {
    ++markers;
    return Status::OK();
  }
  Status OnPartitionEnd() override { return Status::OK(); }

  uint64_t partitions = 0;
  uint64_t rows = 0;
  uint64_t markers = 0;
  uint64_t cells = 0;
};

struct Dataset {
  std::vector<SSTableLocation> sstables;
  uint64_t data_bytes = 0;        // uncompressed Data.db, all SSTables
  uint64_t compressed_bytes = 0;  // Data.db on disk
};

// Finds the SSTables once per process; exits on error (a benchmark without
// its input has nothing to report).
const Dataset& GetDataset() {
  static const Dataset dataset = [] {
    Dataset d;
    FileSystem& fs = LocalFileSystem();
    auto found = FindSSTables(fs, DataDir());
    if (!found.ok()) {
      std::fprintf(stderr, "scan_bench: %s\n", found.status().ToString().c_str());
      std::exit(1);
    }
    d.sstables = std::move(found).value();
    for (const SSTableLocation& location : d.sstables) {
      auto source = OpenDataFile(fs, JoinPath(location.directory, location.name.prefix), location.name.version);
      auto file = fs.OpenForRead(location.DataPath());
      if (!source.ok() || !file.ok()) {
        const Status& st = !source.ok() ? source.status() : file.status();
        std::fprintf(stderr, "scan_bench: %s\n", st.ToString().c_str());
        std::exit(1);
      }
      d.data_bytes += (*source)->TotalLength();
      d.compressed_bytes += (*file)->Size();
    }
    return d;
  }();
  return dataset;
}

double PeakRssMiB() {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

void SetCommonCounters(benchmark::State& state, const Dataset& dataset) {
  state.SetBytesProcessed(static_cast<int64_t>(dataset.data_bytes * state.iterations()));
  state.counters["data_bytes"] = static_cast<double>(dataset.data_bytes);
  state.counters["compressed_bytes"] = static_cast<double>(dataset.compressed_bytes);
  state.counters["sstables"] = static_cast<double>(dataset.sstables.size());
  state.counters["peak_rss_mib"] = PeakRssMiB();
}

void BM_Scan(benchmark::State& state) {
  const Dataset& dataset = GetDataset();
  FileSystem& fs = LocalFileSystem();
  CountingConsumer total;
  for (auto _ : state) {
    CountingConsumer consumer;
    for (const SSTableLocation& location : dataset.sstables) {
      auto sstable = SSTable::Open(fs, location);
      if (!sstable.ok()) {
        state.SkipWithError(sstable.status().ToString().c_str());
        return;
      }
      Status st = (*sstable)->Scan(consumer);
      if (!st.ok()) {
        state.SkipWithError(st.ToString().c_str());
        return;
      }
    }
    total = consumer;
    benchmark::DoNotOptimize(consumer.cells);
  }
  SetCommonCounters(state, dataset);
  auto per_iteration = [&](uint64_t n) { return static_cast<double>(n); };
  state.counters["cells"] = per_iteration(total.cells);
  state.counters["rows"] = per_iteration(total.rows);
  state.counters["partitions"] = per_iteration(total.partitions);
  state.counters["markers"] = per_iteration(total.markers);
  state.counters["cells_per_second"] =
      benchmark::Counter(static_cast<double>(total.cells * state.iterations()), benchmark::Counter::kIsRate);
}

void BM_DecompressOnly(benchmark::State& state) {
  const Dataset& dataset = GetDataset();
  FileSystem& fs = LocalFileSystem();
  for (auto _ : state) {
    uint64_t bytes = 0;
    for (const SSTableLocation& location : dataset.sstables) {
      auto source = OpenDataFile(fs, JoinPath(location.directory, location.name.prefix), location.name.version);
      if (!source.ok()) {
        state.SkipWithError(source.status().ToString().c_str());
        return;
      }
      for (;;) {
        auto chunk = (*source)->NextChunk();
        if (!chunk.ok()) {
          state.SkipWithError(chunk.status().ToString().c_str());
          return;
        }
        if (chunk->empty()) break;
        bytes += chunk->size();
        benchmark::DoNotOptimize(chunk->data());
      }
    }
    if (bytes != dataset.data_bytes) {
      state.SkipWithError("decompressed length differs from CompressionInfo.db");
      return;
    }
  }
  SetCommonCounters(state, dataset);
}

void BM_CodecOnly(benchmark::State& state) {
  const Dataset& dataset = GetDataset();
  FileSystem& fs = LocalFileSystem();
  std::vector<uint8_t> compressed;
  std::vector<uint8_t> uncompressed;
  for (auto _ : state) {
    uint64_t bytes = 0;
    for (const SSTableLocation& location : dataset.sstables) {
      auto info = ReadCompressionInfo(fs, location.ComponentPath("CompressionInfo.db"), location.name.version);
      auto file = fs.OpenForRead(location.DataPath());
      if (!info.ok() || !file.ok()) {
        state.SkipWithError("BM_CodecOnly needs compressed SSTables");
        return;
      }
      const Codec& codec = GetCodec(info->codec);
      uncompressed.resize(info->chunk_length);
      const std::vector<uint64_t>& offsets = info->chunk_offsets;
      uint64_t file_bytes = 0;
      for (size_t i = 0; i < offsets.size(); ++i) {
        uint64_t end = i + 1 < offsets.size() ? offsets[i + 1] : (*file)->Size();
        compressed.resize(end - offsets[i]);
        Status read = (*file)->ReadExactly(offsets[i], compressed);
        if (!read.ok()) {
          state.SkipWithError(read.ToString().c_str());
          return;
        }
        auto body = std::span<const uint8_t>(compressed.data(), compressed.size() - 4);  // minus the CRC32
        if (body.size() >= info->max_compressed_length) {
          // Stored uncompressed (compression did not pay); the last one is zero-padded.
          size_t n = static_cast<size_t>(
              std::min<uint64_t>(info->chunk_length, info->data_length - std::min(info->data_length, file_bytes)));
          std::memcpy(uncompressed.data(), body.data(), std::min(n, body.size()));
          file_bytes += n;
        } else {
          auto n = codec.Decompress(body, uncompressed);
          if (!n.ok()) {
            state.SkipWithError(n.status().ToString().c_str());
            return;
          }
          file_bytes += *n;
        }
        benchmark::DoNotOptimize(uncompressed.data());
      }
      bytes += file_bytes;
    }
    if (bytes != dataset.data_bytes) {
      state.SkipWithError("decompressed length differs from CompressionInfo.db");
      return;
    }
  }
  SetCommonCounters(state, dataset);
}

BENCHMARK(BM_Scan)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_DecompressOnly)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_CodecOnly)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace cqlite

int main(int argc, char** argv) {
  // Our own flag first; Google Benchmark rejects flags it does not know.
  std::string& dir = cqlite::DataDir();
  if (const char* env = std::getenv("CQLITE_BENCH_DATA"); env != nullptr && *env != '\0') dir = env;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--data=", 7) == 0) {
      dir = argv[i] + 7;
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  if (dir.empty()) dir = CQLITE_EXAMPLES_DATA_DIR;
  std::fprintf(stderr, "scan_bench: dataset %s\n", dir.c_str());

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
