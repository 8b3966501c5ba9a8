// `cqlite plan <path> | --cluster DIR...`: the token ranges a job that
// materializes each table by parts (a Spark job: spark/cqlite_spark.py,
// docs/spark.md) runs a task for: a table already published by parts keeps
// its parts' ranges; any other is split by bytes (cluster/range_split.h).
#include <iostream>
#include <memory>
#include <optional>

#include "cassandra/sstable.h"
#include "source/table_sstables.h"
#include "catalog/catalog.h"
#include "catalog/postgres_db.h"
#include "cli/commands.h"
#include "cli/source_tables.h"
#include "cluster/range_split.h"
#include "materialize/snapshot.h"
#include "net/s3_file_system.h"
#include "util/json_writer.h"
#include "util/strings.h"
#include "util/time_format.h"

namespace cqlite {

namespace {

struct PlanCommandOptions {
  std::string path;
  std::vector<std::string> cluster;
  bool allow_missing_replicas = false;
  bool repaired_only = false;
  std::string tables;
  std::string warehouse = "warehouse";
  std::string catalog;
  std::string catalog_name;
  int64_t range_bytes = int64_t{256} << 20;
  int ranges = 0;
  std::string schema_file;
  bool json = false;
};

struct TablePlan {
  std::string keyspace, table;
  int sstables = 0;
  int64_t data_bytes = 0;
  std::vector<std::string> ranges;  // each a --token-range argument
  std::string ranges_from;          // "table parts" or "bytes"
};

// The SSTables' token spans and Data.db bytes, of every replica (with
// `repaired_only`, of the repaired SSTables, which are all a run reads).
Result<std::vector<TokenSpan>> SpansOf(FileSystem& fs, const ReplicatedTable& table, const std::string& schema_file,
                                       bool repaired_only) {
  std::vector<TokenSpan> spans;
  std::vector<std::string> dirs = table.replica_dirs;
  dirs.insert(dirs.begin(), table.dir);
  for (const std::string& dir : dirs) {
    ASSIGN_OR_RETURN(TableSSTables sstables, OpenTableSSTables(fs, dir, schema_file));
    if (sstables.partitioner && *sstables.partitioner != Partitioner::kMurmur3) {
      return Status::NotSupported(StrCat(dir, ": a table of another partitioner than Murmur3 cannot be split by "
                                              "token range"));
    }
    for (const auto& sstable : sstables.sstables) {
      if (repaired_only && !MarkedRepaired(sstable->statistics())) continue;
      TokenSpan span;
      ASSIGN_OR_RETURN(auto data, fs.OpenForRead(sstable->location().DataPath()));
      span.bytes = static_cast<int64_t>(data->Size());
      const auto& stats = sstable->statistics().stats;
      if (stats && stats->first_key && stats->last_key) {
        span.first = std::max(kFirstMurmur3Token, Murmur3Token(*stats->first_key));
        span.last = Murmur3Token(*stats->last_key);
      }
      spans.push_back(span);
    }
  }
  return spans;
}

// The ranges of the parts a table in the catalog is published by; none
// when it does not exist yet or has no snapshot. InvalidArgument when it is
// published whole.
Result<std::optional<std::vector<std::string>>> PublishedParts(FileSystem& fs, catalog::Catalog* catalog,
                                                               const std::string& keyspace, const std::string& table) {
  if (catalog == nullptr) return std::optional<std::vector<std::string>>();
  ASSIGN_OR_RETURN(std::optional<catalog::LoadedTable> loaded, catalog->LoadTableMetadata(fs, {keyspace}, table));
  if (!loaded || loaded->metadata.CurrentSnapshot() == nullptr) return std::optional<std::vector<std::string>>();
  const std::string name = StrCat(keyspace, ".", table);
  ASSIGN_OR_RETURN(materialize::SnapshotFoldStates states,
                   materialize::ReadSnapshotFoldStates(fs, *loaded->metadata.CurrentSnapshot(), name));
  if (!states.by_parts) {
    return Status::InvalidArgument(StrCat(loaded->metadata_location, ": table ", name, " is published whole, not by "
                                          "token range; a job of ranges cannot go into it (publish into a new table)"));
  }
  std::vector<std::string> ranges;
  for (const materialize::FoldStatePart& part : states.parts) ranges.push_back(part.ranges.ToString());
  return std::optional<std::vector<std::string>>(std::move(ranges));
}

void PrintJson(const std::vector<TablePlan>& plans) {
  JsonWriter w(std::cout, 2);
  w.BeginObject();
  w.Key("tables");
  w.BeginArray();
  for (const TablePlan& p : plans) {
    w.BeginObject();
    w.Key("keyspace"); w.String(p.keyspace);
    w.Key("table"); w.String(p.table);
    w.Key("namespace"); w.String(p.keyspace);
    w.Key("iceberg_table"); w.String(p.table);
    w.Key("sstables"); w.Int(p.sstables);
    w.Key("data_bytes"); w.Int(p.data_bytes);
    w.Key("ranges_from"); w.String(p.ranges_from);
    w.Key("ranges");
    w.BeginArray();
    for (const std::string& r : p.ranges) w.String(r);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  std::cout << "\n";
}

int Plan(const PlanCommandOptions& options) {
  auto fail = [](const Status& status) {
    std::cout.flush();
    std::cerr << "cqlite plan: " << status.ToString() << "\n";
    return 1;
  };
  if (options.path.empty() == options.cluster.empty()) {
    return fail(Status::InvalidArgument("give a path, or --cluster and the data directories of a cluster's nodes"));
  }
  std::string warehouse = WarehousePath(options.warehouse);
  const std::string catalog_address = CatalogAddress(options.catalog, warehouse);
  const Result<std::string> catalog_name = CatalogName(options.catalog_name, catalog_address);
  if (!catalog_name.ok()) return fail(catalog_name.status());
  std::vector<std::string> other_paths = options.cluster;
  other_paths.push_back(options.path);
  auto warehouse_fs = WarehouseFileSystem(warehouse, other_paths);
  if (!warehouse_fs.ok()) return fail(warehouse_fs.status().WithContext(StrCat("--warehouse ", warehouse)));
  FileSystem& fs = **warehouse_fs;
  auto only = ParseTableList(options.tables);
  if (!only.ok()) return fail(only.status());
  auto tables = FindSourceTables(fs, options.path, options.cluster, NowOrWallClock(-1), options.allow_missing_replicas,
                                 *only);
  if (!tables.ok()) return fail(tables.status());
  // A catalog that does not exist yet has no table: every split is by bytes.
  std::unique_ptr<catalog::Catalog> catalog;
  const bool local_catalog_missing = !catalog::IsPostgresUri(catalog_address) &&
                                     !catalog::IsRestCatalogAddress(catalog_address) &&
                                     !LocalFileSystem().Exists(catalog_address);
  if (!local_catalog_missing) {
    auto opened = catalog::OpenCatalog(catalog_address, *catalog_name, /*create_if_missing=*/false);
    if (!opened.ok()) return fail(opened.status());
    catalog = std::move(*opened);
  }
  std::vector<TablePlan> plans;
  for (const ReplicatedTable& table : *tables) {
    TablePlan plan;
    std::string name = SourceTableName(table.dir);
    if (name.empty()) return fail(Status::InvalidArgument(StrCat(table.dir, ": cannot tell its keyspace and table")));
    plan.keyspace = name.substr(0, name.find('.'));
    plan.table = name.substr(name.find('.') + 1);
    auto spans = SpansOf(fs, table, options.schema_file, options.repaired_only);
    if (!spans.ok()) return fail(spans.status());
    plan.sstables = static_cast<int>(spans->size());
    for (const TokenSpan& span : *spans) plan.data_bytes += span.bytes;
    auto parts = PublishedParts(fs, catalog.get(), plan.keyspace, plan.table);
    if (!parts.ok()) return fail(parts.status());
    if (*parts) {
      plan.ranges = std::move(**parts);
      plan.ranges_from = "table parts";
    } else {
      for (const Murmur3Range& range : SplitRingByBytes(*spans, options.range_bytes, options.ranges)) {
        plan.ranges.push_back(Murmur3RangeSet({range}).ToString());
      }
      plan.ranges_from = "bytes";
    }
    plans.push_back(std::move(plan));
  }
  if (options.json) {
    PrintJson(plans);
    return 0;
  }
  for (const TablePlan& p : plans) {
    std::cout << p.keyspace << "." << p.table << ": " << p.sstables << " SSTable(s), " << p.data_bytes
              << " bytes of Data.db; " << p.ranges.size() << " range(s), from " << p.ranges_from << "\n";
    for (const std::string& r : p.ranges) std::cout << "  " << r << "\n";
  }
  return 0;
}

}  // namespace

CommandRunner AddPlanCommand(CLI::App& app) {
  auto options = std::make_shared<PlanCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "plan", "The token ranges a job that materializes tables by parts runs a task for, one "
              "`cqlite materialize --token-range R --stage DIR` each (docs/spark.md).");
  cmd->footer(
      "A table the catalog already has, published by parts, keeps its parts' ranges: each later job folds each "
      "part's new generations onto that part's state. Any other table's ring is split into ranges of about "
      "--range-bytes of Data.db (of every replica, with --cluster), each SSTable's bytes taken as spread evenly "
      "over its partitions' tokens (Statistics.db's first and last key; the whole ring for formats before nc). "
      "Murmur3 tables only.");
  cmd->add_option("path", options->path, "A Cassandra data directory, keyspace or table directory (or s3://...)");
  cmd->add_option("--cluster", options->cluster, "Instead of a path: the data directories of a cluster's nodes")
      ->expected(1, -1);
  cmd->add_flag("--allow-missing-replicas", options->allow_missing_replicas,
                "With --cluster: accept token ranges that lack some replicas, as long as each has one");
  cmd->add_flag("--repaired-only", options->repaired_only,
                "Size the ranges by the SSTables incremental repair marked repaired, the ones a job with "
                "--repaired-only reads");
  cmd->add_option("--tables", options->tables, "Only these tables: keyspace.table names, comma-separated");
  cmd->add_option("--warehouse", options->warehouse, kWarehouseHelp)->capture_default_str();
  cmd->add_option("--catalog", options->catalog, kCatalogHelp);
  cmd->add_option("--catalog-name", options->catalog_name, kCatalogNameHelp);
  cmd->add_option("--range-bytes", options->range_bytes, "Bytes of Data.db per range (default 256MiB)")
      ->transform(ByteSizeOption());
  cmd->add_option("--ranges", options->ranges, "Split into this many ranges instead (by bytes still)")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--schema", options->schema_file, "A CQL file with the CREATE TABLE statements")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--json", options->json, "Print the plan as JSON");
  return [options] { return Plan(*options); };
}

}  // namespace cqlite
