// The publish step of `cqlite materialize` alone: folded rows already held in
// memory as Iceberg rows -> a committed Iceberg table, the same sequence of
// calls as the first run of MaterializeTable (materializer.cc: the data file
// FoldAndMerge writes, WriteSnapshot and the commit in RunOnce) without the
// fold and without CQLite's own bookkeeping (row index, fold state, envelope
// files):
//
//   ParquetWriter::Open (ZSTD, one thread), WriteBatch of every batch, Close,
//   SyncFile; iceberg::DescribeDataFile; WriteManifest; WriteManifestList,
//   SyncFile; NewTableMetadata + AddSnapshot, the metadata JSON written;
//   SqlCatalog CreateNamespace + CreateTable (the catalog file opened before
//   the clock starts).
//
// The rows: the first --rows current rows of the table at --data (folded from
// its SSTables as of --now, converted with materialize's RowConverter, so they
// are exactly the rows a materialization writes), held as parquet::RowBatch
// of 65,536 rows, as Arrow holds a table in record batches. Before the timed
// runs they are also written once (untimed) to <out>/input.parquet, Iceberg
// field ids included, from which bench/run_materialize_bench.sh loads the same
// rows into Arrow for PyIceberg.
//
// --reps runs at ZSTD level 3 (materialize's default), then --reps at level 1
// (PyIceberg's default), each publishing a new table
// <out>/cqlite-zstd<level>-<rep>/bench/t into the catalog
// <out>/cqlite-zstd<level>-<rep>/catalog.db. Prints one JSON object: the row
// count, the value bytes, per run ("runs": level 3, "runs_level1") the wall
// and CPU seconds, the data file's path and size, and the metadata location.
//
//   publish_bench --data=DIR --out=DIR [--rows=N] [--reps=N] [--now=SECONDS]
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "source/table_sstables.h"
#include "catalog/sql_catalog.h"
#include "fold/sstable_source.h"
#include "fold/table_fold.h"
#include "iceberg/data_files.h"
#include "iceberg/manifest.h"
#include "iceberg/schema.h"
#include "iceberg/table_metadata.h"
#include "io/file_system.h"
#include "mapping/iceberg_rows.h"
#include "parquet/row_batch.h"
#include "parquet/writer.h"
#include "util/strings.h"

namespace cqlite {
namespace {

constexpr int64_t kBatchRows = 65536;

struct Flags {
  std::string data_dir;
  std::string out_dir;
  int64_t rows = 2000000;
  int reps = 3;
  int64_t now = -1;
};

double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

int64_t WallClockMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int64_t ValueBytes(const parquet::Value& value) {
  switch (value.kind()) {
    case parquet::Value::Kind::kNull:
      return 0;
    case parquet::Value::Kind::kBool:
      return 1;
    case parquet::Value::Kind::kInt32:
    case parquet::Value::Kind::kFloat:
      return 4;
    case parquet::Value::Kind::kInt64:
    case parquet::Value::Kind::kDouble:
      return 8;
    case parquet::Value::Kind::kBytes:
      return static_cast<int64_t>(value.bytes().size());
    default: {
      int64_t sum = 0;
      for (const parquet::Value& child : value.elements()) sum += ValueBytes(child);
      return sum;
    }
  }
}

struct Rows {
  materialize::TableMapping mapping;
  std::vector<parquet::RowBatch> batches;
  int64_t num_rows = 0;
  int64_t value_bytes = 0;
  std::string keyspace, table;
};

// Folds the table and keeps its first `flags.rows` rows as Iceberg rows.
Status LoadRows(const Flags& flags, Rows* out) {
  FileSystem& fs = LocalFileSystem();
  ASSIGN_OR_RETURN(TableSSTables table, OpenTableSSTables(fs, flags.data_dir, ""));
  const TableSchema& schema = table.schema.table;
  out->keyspace = schema.keyspace;
  out->table = schema.table;
  materialize::MappingOptions mapping_options;
  ASSIGN_OR_RETURN(out->mapping, materialize::MapTable(schema, mapping_options));
  std::vector<std::unique_ptr<FoldSource>> sources;
  for (const auto& sstable : table.sstables) {
    ASSIGN_OR_RETURN(auto source, OpenSSTableFoldSource(*sstable, schema));
    sources.push_back(std::move(source));
  }
  int64_t now = flags.now >= 0 ? flags.now : WallClockMillis() / 1000;
  ASSIGN_OR_RETURN(auto fold, TableFold::Make(schema, table.partitioner, std::move(sources), now));
  materialize::RowConverter converter(schema, out->mapping, mapping_options);
  parquet::Schema parquet_schema = iceberg::ToParquetSchema(out->mapping.schema);
  FoldedPartition partition;
  while (out->num_rows < flags.rows) {
    ASSIGN_OR_RETURN(bool more, fold->Next(&partition));
    if (!more) break;
    const FoldRow* static_row = partition.has_static_row ? &partition.static_row : nullptr;
    for (const FoldRow& row : partition.rows) {
      if (out->num_rows >= flags.rows) break;
      ASSIGN_OR_RETURN(parquet::Value value, converter.Convert(partition.key, static_row, row));
      if (out->num_rows % kBatchRows == 0) out->batches.emplace_back(parquet_schema);
      RETURN_IF_ERROR(out->batches.back().AppendRow(value));
      out->value_bytes += ValueBytes(value);
      ++out->num_rows;
    }
  }
  return Status::OK();
}

// As MaterializeTable: its defaults, ZSTD at `level` (materialize's
// --compression-level, 3 unless given).
parquet::WriterOptions DataFileOptions(int level = 3) {
  parquet::WriterOptions options;
  options.compression = parquet::CompressionCodec::kZstd;
  options.compression_level = level;
  return options;
}

Status WriteInput(const Rows& rows, const std::string& path) {
  ASSIGN_OR_RETURN(auto writer, parquet::ParquetWriter::Open(LocalFileSystem(), path,
                                                             iceberg::ToParquetSchema(rows.mapping.schema),
                                                             DataFileOptions()));
  for (const parquet::RowBatch& batch : rows.batches) RETURN_IF_ERROR(writer->WriteBatch(batch));
  return writer->Close().status();
}

struct Published {
  std::string data_path;
  uint64_t data_bytes = 0;
  int row_groups = 0;
  std::string metadata_location;
};

// What a first materialize run writes and commits for a new table holding `rows`.
Status Publish(const Rows& rows, int level, catalog::SqlCatalog& catalog, const std::string& location,
               Published* out) {
  FileSystem& fs = LocalFileSystem();
  const iceberg::Schema& schema = rows.mapping.schema;
  std::string run_id = iceberg::RandomUuid();
  std::string data_dir = JoinPath(location, "data");
  std::string metadata_dir = JoinPath(location, "metadata");
  for (const std::string& dir : {data_dir, metadata_dir}) RETURN_IF_ERROR(fs.CreateDirectories(dir));

  std::string data_path = JoinPath(data_dir, StrCat(run_id, "-0.parquet"));
  ASSIGN_OR_RETURN(auto writer,
                   parquet::ParquetWriter::Open(fs, data_path, iceberg::ToParquetSchema(schema), DataFileOptions(level)));
  for (const parquet::RowBatch& batch : rows.batches) RETURN_IF_ERROR(writer->WriteBatch(batch));
  ASSIGN_OR_RETURN(parquet::WriteResult written, writer->Close());
  RETURN_IF_ERROR(fs.SyncFile(data_path));
  std::vector<iceberg::DataFile> added = {iceberg::DescribeDataFile(data_path, written, schema)};
  out->data_path = data_path;
  out->data_bytes = written.file_size;
  out->row_groups = written.num_row_groups;

  int64_t snapshot_id = iceberg::RandomSnapshotId();
  int64_t sequence_number = 1;
  iceberg::ManifestWriteOptions manifest_options;
  manifest_options.table_schema_json = iceberg::SchemaToJson(schema).dump();
  manifest_options.content = iceberg::ManifestContent::kData;
  std::vector<iceberg::ManifestEntry> entries(1);
  entries[0].status = iceberg::ManifestEntryStatus::kAdded;
  entries[0].data_file = added[0];
  ASSIGN_OR_RETURN(iceberg::ManifestFile manifest,
                   iceberg::WriteManifest(fs, JoinPath(metadata_dir, StrCat(run_id, "-m0.avro")), manifest_options,
                                          entries, snapshot_id, sequence_number));
  std::string list_path = JoinPath(metadata_dir, StrCat("snap-", snapshot_id, "-1-", run_id, ".avro"));
  RETURN_IF_ERROR(iceberg::WriteManifestList(fs, list_path, snapshot_id, std::nullopt, sequence_number, {manifest}));
  RETURN_IF_ERROR(fs.SyncFile(list_path));

  iceberg::Snapshot snapshot;
  snapshot.snapshot_id = snapshot_id;
  snapshot.sequence_number = sequence_number;
  snapshot.timestamp_ms = WallClockMillis();
  snapshot.manifest_list = list_path;
  snapshot.schema_id = 0;
  snapshot.summary = iceberg::SummaryMetrics(added, {});
  snapshot.summary["operation"] = "append";
  iceberg::TableMetadata metadata = iceberg::NewTableMetadata(
      location, schema,
      {{"write.parquet.compression-codec", "zstd"}, {"write.parquet.compression-level", std::to_string(level)}},
      WallClockMillis());
  iceberg::AddSnapshot(&metadata, snapshot, "");
  std::string metadata_path = iceberg::MetadataFilePath(location, 0);
  RETURN_IF_ERROR(fs.WriteStringToFile(metadata_path, iceberg::TableMetadataToJson(metadata)));

  catalog::Namespace ns{rows.keyspace};
  RETURN_IF_ERROR(catalog.CreateNamespace(ns));
  RETURN_IF_ERROR(catalog.CreateTable(ns, rows.table, metadata_path));
  out->metadata_location = metadata_path;
  return Status::OK();
}

std::string Fixed(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.4f", v);
  return buffer;
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

int Main(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char* name) -> const char* {
      size_t n = std::strlen(name);
      return arg.compare(0, n, name) == 0 ? argv[i] + n : nullptr;
    };
    if (const char* v = value("--data=")) {
      flags.data_dir = v;
    } else if (const char* v = value("--out=")) {
      flags.out_dir = v;
    } else if (const char* v = value("--rows=")) {
      flags.rows = std::atoll(v);
    } else if (const char* v = value("--reps=")) {
      flags.reps = std::atoi(v);
    } else if (const char* v = value("--now=")) {
      flags.now = std::atoll(v);
    } else {
      std::fprintf(stderr, "publish_bench: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  if (flags.data_dir.empty() || flags.out_dir.empty()) {
    std::fprintf(stderr, "usage: publish_bench --data=DIR --out=DIR [--rows=N] [--reps=N] [--now=SECONDS]\n");
    return 2;
  }
  auto fail = [](const Status& status) {
    std::fprintf(stderr, "publish_bench: %s\n", status.ToString().c_str());
    return 1;
  };
  FileSystem& fs = LocalFileSystem();
  if (Status s = fs.CreateDirectories(flags.out_dir); !s.ok()) return fail(s);

  Rows rows;
  double load_start = WallSeconds();
  if (Status s = LoadRows(flags, &rows); !s.ok()) return fail(s);
  double load_seconds = WallSeconds() - load_start;
  std::string input_path = JoinPath(flags.out_dir, "input.parquet");
  double input_start = WallSeconds();
  if (Status s = WriteInput(rows, input_path); !s.ok()) return fail(s);
  double input_seconds = WallSeconds() - input_start;
  std::fprintf(stderr, "publish_bench: %lld rows loaded in %.1f s, input.parquet written in %.1f s\n",
               static_cast<long long>(rows.num_rows), load_seconds, input_seconds);

  // --reps runs at ZSTD level 3 (materialize's default), then --reps at
  // level 1 (PyIceberg's default).
  std::string runs[2];
  const int levels[2] = {3, 1};
  for (int l = 0; l < 2; ++l) {
    for (int rep = 0; rep < flags.reps; ++rep) {
      std::string warehouse = JoinPath(flags.out_dir, StrCat("cqlite-zstd", levels[l], "-", rep));
      if (Status s = fs.CreateDirectories(warehouse); !s.ok()) return fail(s);
      auto catalog = catalog::SqlCatalog::Open(JoinPath(warehouse, "catalog.db"), "cqlite", true);
      if (!catalog.ok()) return fail(catalog.status());
      std::string location = JoinPath(JoinPath(warehouse, rows.keyspace), rows.table);
      Published published;
      double wall = WallSeconds(), cpu = CpuSeconds();
      if (Status s = Publish(rows, levels[l], **catalog, location, &published); !s.ok()) return fail(s);
      wall = WallSeconds() - wall;
      cpu = CpuSeconds() - cpu;
      std::fprintf(stderr, "publish_bench: zstd %d run %d: %.3f s wall, %.3f s CPU, %.0f rows/s\n", levels[l],
                   rep + 1, wall, cpu, static_cast<double>(rows.num_rows) / wall);
      runs[l] += StrCat(rep ? ", " : "", "{\"wall_seconds\": ", Fixed(wall), ", \"cpu_seconds\": ", Fixed(cpu),
                        ", \"data_file\": ", JsonString(published.data_path),
                        ", \"data_bytes\": ", published.data_bytes, ", \"row_groups\": ", published.row_groups,
                        ", \"metadata_location\": ", JsonString(published.metadata_location),
                        ", \"catalog\": ", JsonString(JoinPath(warehouse, "catalog.db")), "}");
    }
  }
  std::printf(
      "{\"rows\": %lld, \"value_bytes\": %lld, \"namespace\": %s, \"table\": %s, \"input\": %s, "
      "\"schema\": %s, \"load_seconds\": %.3f, \"runs\": [%s], \"runs_level1\": [%s]}\n",
      static_cast<long long>(rows.num_rows), static_cast<long long>(rows.value_bytes),
      JsonString(rows.keyspace).c_str(), JsonString(rows.table).c_str(), JsonString(input_path).c_str(),
      iceberg::SchemaToJson(rows.mapping.schema).dump().c_str(), load_seconds, runs[0].c_str(), runs[1].c_str());
  return 0;
}

}  // namespace
}  // namespace cqlite

int main(int argc, char** argv) { return cqlite::Main(argc, argv); }
