// Parquet writing throughput: the first N current rows of a table (folded
// from its SSTables, then converted with the envelope's CQL -> Parquet type
// mapping: one top-level column per CQL column, lists for lists and sets,
// maps for maps) are held in memory as column batches (parquet::RowBatch of
// kBatchRows rows: per leaf column, levels and typed values, as Arrow and
// DuckDB hold a table in columns), then written with ParquetWriter (SNAPPY,
// one thread). bench/run_parquet_bench.sh compares the figures with DuckDB
// and pyarrow writing the same rows in the same run.
//
//   BM_WriteParquet          ParquetWriter::Open, WriteBatch of every batch,
//                            Close, to <out>/cqlite.parquet.
//   BM_WriteParquetFillBatch the same, but each batch is first refilled value
//                            by value through ColumnBatch's Append* calls
//                            (what a producer of typed values pays to hand
//                            them over, levels included), to
//                            <out>/cqlite_fill.parquet.
//
// Before the benchmarks run, the rows are also written once (untimed) row by
// row (WriteRow of Value trees) to <out>/input.parquet, from which the other
// writers load them; `row_path_seconds` is how long that took (one cold run),
// `same_as_row_path` is 1 when the timed file is byte-identical to it.
//
// Counters: `rows`, `rows_per_second`, `file_bytes` (the output file),
// `output_bytes_per_second`, `value_bytes` (the rows' values: 4 or 8 bytes
// per fixed-width value, the length of each string, nothing for nulls and
// nesting) and bytes_per_second (value bytes written per second).
//
// Flags: --data=DIR (or CQLITE_BENCH_DATA; default the example table
// examples/data/shop/orders-*), --rows=N (default 2,000,000), --out=DIR
// (default the current directory), --reps=N (timed writes, default 3),
// --row_group_rows=N (rows per row group; default: the writer's defaults).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "source/schema_source.h"
#include "cassandra/sstable.h"
#include "cassandra/value_format.h"
#include "envelope/value_convert.h"
#include "fold/sstable_source.h"
#include "fold/table_fold.h"
#include "io/file_system.h"
#include "parquet/writer.h"

namespace cqlite {
namespace {

using parquet::Value;

struct Flags {
  std::string data_dir;
  std::string out_dir = ".";
  int64_t rows = 2000000;
  int reps = 3;
  int64_t row_group_rows = 0;  // WriterOptions::row_group_rows; 0 = the writer's default
};

Flags& GetFlags() {
  static Flags flags;
  return flags;
}

std::string OutPath(const char* name) { return JoinPath(GetFlags().out_dir, name); }

parquet::WriterOptions BenchOptions() {
  parquet::WriterOptions options;
  options.compression = parquet::CompressionCodec::kSnappy;
  options.row_group_rows = GetFlags().row_group_rows;
  return options;
}

int64_t NowSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Value Typed(const CqlType& type, std::string_view bytes) {
  return envelope::ToTyped(type, bytes).value_or(Value::Null());
}

// The current value of a column from its live cells.
Value ColumnValue(const CqlType& type, const FoldColumn& column) {
  if (!column.is_complex) {
    if (column.cells.empty()) return Value::Null();
    return Typed(type, column.cells.front().value);
  }
  std::vector<Value> elements;
  std::vector<std::pair<Value, Value>> entries;
  std::vector<Value> fields(type.kind == CqlKind::kUdt ? type.params.size() : 0);
  for (const FoldCell& cell : column.cells) {
    switch (type.kind) {
      case CqlKind::kList:
        elements.push_back(Typed(*type.params[0], cell.value));
        break;
      case CqlKind::kSet:
        elements.push_back(Typed(*type.params[0], cell.path));
        break;
      case CqlKind::kMap:
        if (auto key = envelope::ToTyped(*type.params[0], cell.path)) {
          entries.emplace_back(std::move(*key), Typed(*type.params[1], cell.value));
        }
        break;
      case CqlKind::kUdt:
        if (cell.path.size() == 2) {
          size_t i = (static_cast<uint8_t>(cell.path[0]) << 8) | static_cast<uint8_t>(cell.path[1]);
          if (i < fields.size()) fields[i] = Typed(*type.params[i], cell.value);
        }
        break;
      default:
        break;
    }
  }
  if (type.kind == CqlKind::kMap) return Value::Map(std::move(entries));
  if (type.kind == CqlKind::kUdt) return Value::Struct(std::move(fields));
  return Value::List(std::move(elements));
}

int64_t ValueBytes(const Value& value) {
  switch (value.kind()) {
    case Value::Kind::kNull:
      return 0;
    case Value::Kind::kBool:
      return 1;
    case Value::Kind::kInt32:
    case Value::Kind::kFloat:
      return 4;
    case Value::Kind::kInt64:
    case Value::Kind::kDouble:
      return 8;
    case Value::Kind::kBytes:
      return static_cast<int64_t>(value.bytes().size());
    default: {
      int64_t sum = 0;
      for (const Value& child : value.elements()) sum += ValueBytes(child);  // map entries too
      return sum;
    }
  }
}

constexpr int64_t kBatchRows = 65536;

struct Rows {
  parquet::Schema schema;
  std::vector<Value> rows;  // freed once written to input.parquet and batched
  std::vector<parquet::RowBatch> batches;
  int64_t num_rows = 0;
  int64_t value_bytes = 0;
  double row_path_seconds = 0;  // writing input.parquet with WriteRow (once, a cold run)
  Status status;
};

Status LoadRows(Rows* out) {
  FileSystem& fs = LocalFileSystem();
  ASSIGN_OR_RETURN(std::vector<SSTableLocation> locations, FindSSTables(fs, GetFlags().data_dir));
  ASSIGN_OR_RETURN(auto first, SSTable::Open(fs, locations.front()));
  ASSIGN_OR_RETURN(ResolvedSchema resolved, ResolveTableSchema(fs, locations.front(), {first.get()}, ""));
  const TableSchema& table = resolved.table;
  std::vector<std::unique_ptr<SSTable>> sstables;
  std::vector<std::unique_ptr<FoldSource>> sources;
  for (const SSTableLocation& location : locations) {
    ASSIGN_OR_RETURN(auto sstable, SSTable::Open(fs, location));
    sstable->UseSchema(table);
    ASSIGN_OR_RETURN(auto source, OpenSSTableFoldSource(*sstable, table));
    sstables.push_back(std::move(sstable));
    sources.push_back(std::move(source));
  }
  ASSIGN_OR_RETURN(auto fold,
                   TableFold::Make(table, sstables.front()->Partitioner(), std::move(sources), NowSeconds()));

  std::vector<int> key_columns, clustering_columns;
  for (size_t i = 0; i < table.columns.size(); ++i) {
    const ColumnSchema& column = table.columns[i];
    parquet::Repetition repetition = parquet::Repetition::kOptional;
    if (column.kind == ColumnKind::kPartitionKey) {
      key_columns.push_back(static_cast<int>(i));
      repetition = parquet::Repetition::kRequired;
    } else if (column.kind == ColumnKind::kClustering) {
      clustering_columns.push_back(static_cast<int>(i));
    }
    out->schema.fields.push_back(envelope::TypedField(column.name, *column.type, repetition));
  }
  auto position = [&](int column) { return static_cast<size_t>(table.columns[column].position); };

  FoldedPartition partition;
  std::vector<std::string> key_parts;
  while (static_cast<int64_t>(out->rows.size()) < GetFlags().rows) {
    ASSIGN_OR_RETURN(bool more, fold->Next(&partition));
    if (!more) break;
    if (key_columns.size() == 1) {
      key_parts.assign(1, partition.key);
    } else {
      ASSIGN_OR_RETURN(key_parts, SplitCompositeKey(*table.PartitionKeyType(), partition.key));
    }
    for (const FoldRow& row : partition.rows) {
      if (static_cast<int64_t>(out->rows.size()) >= GetFlags().rows) break;
      std::vector<Value> fields(table.columns.size());
      for (int c : key_columns) {
        size_t p = position(c);
        if (p < key_parts.size()) fields[c] = Typed(*table.columns[c].type, key_parts[p]);
      }
      for (int c : clustering_columns) {
        size_t p = position(c);
        bool present =
            p < row.clustering.values.size() && (row.clustering.present.empty() || row.clustering.present[p]);
        if (present) fields[c] = Typed(*table.columns[c].type, row.clustering.values[p]);
      }
      if (partition.has_static_row) {
        for (const FoldColumn& column : partition.static_row.columns) {
          fields[column.column] = ColumnValue(*table.columns[column.column].type, column);
        }
      }
      for (const FoldColumn& column : row.columns) {
        fields[column.column] = ColumnValue(*table.columns[column.column].type, column);
      }
      Value value = Value::Struct(std::move(fields));
      out->value_bytes += ValueBytes(value);
      out->rows.push_back(std::move(value));
    }
  }
  return Status::OK();
}

Result<parquet::WriteResult> WriteRows(const Rows& rows, const std::string& path) {
  ASSIGN_OR_RETURN(auto writer,
                   parquet::ParquetWriter::Open(LocalFileSystem(), path, rows.schema, BenchOptions()));
  for (const Value& row : rows.rows) RETURN_IF_ERROR(writer->WriteRow(row));
  return writer->Close();
}

Result<parquet::WriteResult> WriteBatches(const Rows& rows, const std::string& path) {
  ASSIGN_OR_RETURN(auto writer,
                   parquet::ParquetWriter::Open(LocalFileSystem(), path, rows.schema, BenchOptions()));
  for (const parquet::RowBatch& batch : rows.batches) RETURN_IF_ERROR(writer->WriteBatch(batch));
  return writer->Close();
}

Status MakeBatches(Rows* r) {
  for (size_t i = 0; i < r->rows.size(); ++i) {
    if (i % kBatchRows == 0) r->batches.emplace_back(r->schema);
    RETURN_IF_ERROR(r->batches.back().AppendRow(r->rows[i]));
  }
  return Status::OK();
}

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Appends column `in` to `out` value by value, as a producer would.
void Refill(const parquet::ColumnBatch& in, parquet::ColumnBatch* out) {
  const std::span<const int16_t> def = in.def_levels();
  const std::span<const int16_t> rep = in.rep_levels();
  const int max_def = in.max_def_level();
  size_t v = 0;
  auto each = [&](auto append) {
    for (size_t i = 0; i < in.num_levels(); ++i) {
      const int d = def.empty() ? max_def : def[i];
      const int r = rep.empty() ? 0 : rep[i];
      if (d == max_def) {
        append(v++, r);
      } else {
        out->AppendNull(d, r);
      }
    }
  };
  switch (in.physical_type()) {
    case parquet::PhysicalType::kBoolean:
      return each([&](size_t i, int r) { out->AppendBool(in.bools()[i] != 0, r); });
    case parquet::PhysicalType::kInt32:
      return each([&](size_t i, int r) { out->AppendInt32(in.int32s()[i], r); });
    case parquet::PhysicalType::kInt64:
      return each([&](size_t i, int r) { out->AppendInt64(in.int64s()[i], r); });
    case parquet::PhysicalType::kFloat:
      return each([&](size_t i, int r) { out->AppendFloat(in.floats()[i], r); });
    case parquet::PhysicalType::kDouble:
      return each([&](size_t i, int r) { out->AppendDouble(in.doubles()[i], r); });
    default: {
      const std::string_view bytes = in.bytes();
      const std::span<const uint64_t> offsets = in.offsets();
      return each([&](size_t i, int r) {
        out->AppendBytes(bytes.substr(offsets[i], offsets[i + 1] - offsets[i]), r);
      });
    }
  }
}

Result<parquet::WriteResult> FillAndWriteBatches(const Rows& rows, const std::string& path) {
  ASSIGN_OR_RETURN(auto writer,
                   parquet::ParquetWriter::Open(LocalFileSystem(), path, rows.schema, BenchOptions()));
  parquet::RowBatch scratch(rows.schema);
  for (const parquet::RowBatch& batch : rows.batches) {
    scratch.Clear();
    for (int c = 0; c < batch.num_columns(); ++c) Refill(batch.column(c), &scratch.column(c));
    scratch.EndRows(batch.num_rows());
    RETURN_IF_ERROR(writer->WriteBatch(scratch));
  }
  return writer->Close();
}

const Rows& GetRows() {
  static const Rows rows = [] {
    Rows r;
    r.status = LoadRows(&r);
    r.num_rows = static_cast<int64_t>(r.rows.size());
    if (r.status.ok()) {
      const auto start = std::chrono::steady_clock::now();
      auto input = WriteRows(r, OutPath("input.parquet"));
      r.row_path_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (!input.ok()) r.status = input.status();
    }
    if (r.status.ok()) r.status = MakeBatches(&r);
    r.rows = {};
    return r;
  }();
  return rows;
}

using WriteFn = Result<parquet::WriteResult> (*)(const Rows&, const std::string&);

void RunWrite(benchmark::State& state, WriteFn write, const char* file) {
  const Rows& rows = GetRows();
  if (!rows.status.ok()) return state.SkipWithError(rows.status.ToString().c_str());
  const std::string path = OutPath(file);
  parquet::WriteResult result;
  for (auto _ : state) {
    auto written = write(rows, path);
    if (!written.ok()) return state.SkipWithError(written.status().ToString().c_str());
    result = std::move(*written);
  }
  const double n = static_cast<double>(rows.num_rows);
  state.SetBytesProcessed(rows.value_bytes * state.iterations());
  state.SetItemsProcessed(static_cast<int64_t>(n) * state.iterations());
  state.counters["rows"] = n;
  state.counters["rows_per_second"] = benchmark::Counter(n, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["value_bytes"] = static_cast<double>(rows.value_bytes);
  state.counters["file_bytes"] = static_cast<double>(result.file_size);
  state.counters["row_groups"] = result.num_row_groups;
  state.counters["output_bytes_per_second"] = benchmark::Counter(
      static_cast<double>(result.file_size), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["row_path_seconds"] = rows.row_path_seconds;
  state.counters["same_as_row_path"] = ReadWholeFile(path) == ReadWholeFile(OutPath("input.parquet")) ? 1 : 0;
}

void BM_WriteParquet(benchmark::State& state) { RunWrite(state, WriteBatches, "cqlite.parquet"); }
void BM_WriteParquetFillBatch(benchmark::State& state) {
  RunWrite(state, FillAndWriteBatches, "cqlite_fill.parquet");
}

}  // namespace
}  // namespace cqlite

int main(int argc, char** argv) {
  cqlite::Flags& flags = cqlite::GetFlags();
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--data=", 7) == 0) {
      flags.data_dir = argv[i] + 7;
    } else if (std::strncmp(argv[i], "--rows=", 7) == 0) {
      flags.rows = std::strtoll(argv[i] + 7, nullptr, 10);
    } else if (std::strncmp(argv[i], "--row_group_rows=", 17) == 0) {
      flags.row_group_rows = std::strtoll(argv[i] + 17, nullptr, 10);
    } else if (std::strncmp(argv[i], "--reps=", 7) == 0) {
      flags.reps = std::atoi(argv[i] + 7);
    } else if (std::strncmp(argv[i], "--out=", 6) == 0) {
      flags.out_dir = argv[i] + 6;
    } else {
      args.push_back(argv[i]);
    }
  }
  if (flags.data_dir.empty()) {
    const char* env = std::getenv("CQLITE_BENCH_DATA");
    flags.data_dir = env ? env : CQLITE_EXAMPLE_TABLE;
  }
  using Benchmark = void (*)(benchmark::State&);
  const std::pair<const char*, Benchmark> benchmarks[] = {
      {"BM_WriteParquet", cqlite::BM_WriteParquet},
      {"BM_WriteParquetFillBatch", cqlite::BM_WriteParquetFillBatch},
  };
  for (const auto& [name, fn] : benchmarks) {
    benchmark::RegisterBenchmark(name, fn)
        ->Unit(benchmark::kSecond)
        ->UseRealTime()
        ->Iterations(1)
        ->Repetitions(flags.reps);
  }
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
