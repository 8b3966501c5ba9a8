// Fold throughput: every generation of a table merged into current rows
// (TableFold, as `cqlite select` runs it, without rendering), against
// scanning the same generations unmerged (SSTable::Scan with a counting
// consumer), in the same run. bench/run_fold_bench.sh drives it over tables
// of 1, 4 and 16 generations.
//
//   BM_Fold      open every SSTable, fold them, count live rows and cells;
//   BM_ScanOnly  the same files decoded into envelope records, nothing merged.
//
// Counters: `input_rows` (rows in the files), `rows` (current rows out),
// `rows_per_second` (input rows folded per second), `data_bytes`
// (uncompressed Data.db bytes), `peak_rss_mib` (the process's peak resident
// set: run one benchmark per process to attribute it).
//
// The table: --data=DIR (or CQLITE_BENCH_DATA), a table directory; without
// either, the example table examples/data/shop/orders-*.
#include <sys/resource.h>

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cassandra/data_file.h"
#include "source/schema_source.h"
#include "cassandra/sstable.h"
#include "fold/sstable_source.h"
#include "fold/table_fold.h"
#include "io/file_system.h"

namespace cqlite {
namespace {

std::string& DataDir() {
  static std::string dir;
  return dir;
}

double PeakRssMiB() {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// Reads every file's rows once to size the input.
class RowCounter final : public EnvelopeConsumer {
 public:
  Status OnPartitionStart(const PartitionHeader&) override { return Status::OK(); }
  Status OnRow(const Row& row) override {
    rows += !row.is_static;
    for (const ColumnData& column : row.columns) cells += column.cells.size();
    return Status::OK();
  }
  Status OnRangeTombstoneMarker(const RangeTombstoneMarker&) override { return Status::OK(); }
  Status OnPartitionEnd() override { return Status::OK(); }
  int64_t rows = 0;
  int64_t cells = 0;
};

struct Table {
  std::vector<SSTableLocation> sstables;
  ResolvedSchema schema;
  uint64_t data_bytes = 0;
  Status status;
};

const Table& GetTable() {
  static const Table table = [] {
    Table t;
    FileSystem& fs = LocalFileSystem();
    auto found = FindSSTables(fs, DataDir());
    if (!found.ok()) {
      t.status = found.status();
      return t;
    }
    t.sstables = *found;
    auto first = SSTable::Open(fs, t.sstables.front());
    if (!first.ok()) {
      t.status = first.status();
      return t;
    }
    auto schema = ResolveTableSchema(fs, t.sstables.front(), {first->get()}, "");
    if (!schema.ok()) {
      t.status = schema.status();
      return t;
    }
    t.schema = *schema;
    for (const SSTableLocation& location : t.sstables) {
      auto source = OpenDataFile(fs, JoinPath(location.directory, location.name.prefix), location.name.version);
      if (!source.ok()) {
        t.status = source.status();
        return t;
      }
      t.data_bytes += (*source)->TotalLength();
    }
    return t;
  }();
  return table;
}

void SetCounters(benchmark::State& state, const Table& table, int64_t input_rows) {
  state.SetBytesProcessed(static_cast<int64_t>(table.data_bytes) * state.iterations());
  state.counters["data_bytes"] = static_cast<double>(table.data_bytes);
  state.counters["generations"] = static_cast<double>(table.sstables.size());
  state.counters["input_rows"] = static_cast<double>(input_rows);
  state.counters["rows_per_second"] =
      benchmark::Counter(static_cast<double>(input_rows), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peak_rss_mib"] = PeakRssMiB();
}

int64_t NowSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void BM_Fold(benchmark::State& state) {
  const Table& table = GetTable();
  if (!table.status.ok()) {
    state.SkipWithError(table.status.ToString().c_str());
    return;
  }
  FileSystem& fs = LocalFileSystem();
  int64_t input_rows = 0, rows = 0, cells = 0;
  for (auto _ : state) {
    std::vector<std::unique_ptr<SSTable>> sstables;
    std::vector<std::unique_ptr<FoldSource>> sources;
    input_rows = rows = cells = 0;
    for (const SSTableLocation& location : table.sstables) {
      auto sstable = SSTable::Open(fs, location);
      if (!sstable.ok()) return state.SkipWithError(sstable.status().ToString().c_str());
      (*sstable)->UseSchema(table.schema.table);
      auto source = OpenSSTableFoldSource(**sstable, table.schema.table);
      if (!source.ok()) return state.SkipWithError(source.status().ToString().c_str());
      sstables.push_back(std::move(*sstable));
      sources.push_back(std::move(*source));
    }
    auto fold = TableFold::Make(table.schema.table, sstables.front()->Partitioner(), std::move(sources), NowSeconds());
    if (!fold.ok()) return state.SkipWithError(fold.status().ToString().c_str());
    FoldedPartition partition;
    while (true) {
      auto more = (*fold)->Next(&partition);
      if (!more.ok()) return state.SkipWithError(more.status().ToString().c_str());
      if (!*more) break;
      rows += static_cast<int64_t>(partition.rows.size());
      for (const FoldRow& row : partition.rows) {
        for (const FoldColumn& column : row.columns) cells += static_cast<int64_t>(column.cells.size());
      }
    }
    state.PauseTiming();
    for (auto& sstable : sstables) {
      RowCounter counter;
      if (sstable->Scan(counter).ok()) input_rows += counter.rows;
    }
    state.ResumeTiming();
  }
  state.counters["rows"] = static_cast<double>(rows);
  state.counters["cells"] = static_cast<double>(cells);
  SetCounters(state, table, input_rows);
}

void BM_ScanOnly(benchmark::State& state) {
  const Table& table = GetTable();
  if (!table.status.ok()) {
    state.SkipWithError(table.status.ToString().c_str());
    return;
  }
  FileSystem& fs = LocalFileSystem();
  int64_t input_rows = 0;
  for (auto _ : state) {
    RowCounter counter;
    for (const SSTableLocation& location : table.sstables) {
      auto sstable = SSTable::Open(fs, location);
      if (!sstable.ok()) return state.SkipWithError(sstable.status().ToString().c_str());
      (*sstable)->UseSchema(table.schema.table);
      Status status = (*sstable)->Scan(counter);
      if (!status.ok()) return state.SkipWithError(status.ToString().c_str());
    }
    input_rows = counter.rows;
    benchmark::DoNotOptimize(counter.cells);
  }
  SetCounters(state, table, input_rows);
}

BENCHMARK(BM_Fold)->Unit(benchmark::kSecond)->UseRealTime()->Iterations(1);
BENCHMARK(BM_ScanOnly)->Unit(benchmark::kSecond)->UseRealTime()->Iterations(1);

}  // namespace
}  // namespace cqlite

int main(int argc, char** argv) {
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--data=", 7) == 0) {
      cqlite::DataDir() = argv[i] + 7;
    } else {
      args.push_back(argv[i]);
    }
  }
  if (cqlite::DataDir().empty()) {
    const char* env = std::getenv("CQLITE_BENCH_DATA");
    cqlite::DataDir() = env ? env : CQLITE_EXAMPLE_TABLE;
  }
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
