// `cqlite materialize <data-dir|table-dir>`: publishes each Cassandra table
// found under the path as an Iceberg v2 table in a SQLite or PostgreSQL catalog (see
// src/materialize/materializer.h for what one run does).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <thread>

#include "cassandra/sstable.h"
#include "catalog/catalog.h"
#include "cli/commands.h"
#include "cli/report_json.h"
#include "cli/source_tables.h"
#include "cluster/coverage.h"
#include "cluster/node_metadata.h"
#include "materialize/materializer.h"
#include "net/s3_file_system.h"
#include "util/json_writer.h"
#include "util/strings.h"
#include "util/time_format.h"
#include "watch/table_lock.h"

namespace cqlite {

namespace {

// The machine's cores (at least 1).
int DefaultThreads() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

struct MaterializeCommandOptions {
  std::string path;
  std::vector<std::string> cluster;  // data directories of a cluster's nodes
  std::string tables;                // --tables ks.t,...
  std::string token_range;           // --token-range first:last,...
  std::string stage_dir;             // --stage
  bool allow_missing_replicas = false;
  bool repaired_only = false;
  bool primary_range_only = false;
  std::string warehouse = "warehouse";
  std::string catalog;  // default: sqlite:<warehouse>/catalog.db
  std::string catalog_name;  // CatalogName
  std::string namespace_name;
  std::string table_name;
  int64_t now_seconds = -1;
  std::string schema_file;
  int32_t decimal_scale = 18;
  bool truncate_time = false;
  std::string time_as;  // empty: not given
  std::string compression = "zstd";
  int compression_level = 0;  // 0: not given (3)
  int format_version = 2;
  int fold_fan_in = 16;
  int threads = DefaultThreads();
  bool json = false;
  bool quiet = false;
  bool complete_source = false;
  bool fold_everything = false;
};

void PrintText(const std::vector<materialize::TableReport>& reports, double seconds) {
  int64_t appended = 0, deleted = 0, bytes = 0, generations = 0;
  int files = 0, committed = 0;
  for (const auto& r : reports) {
    std::cout << r.namespace_name << "." << r.table_name << ": " << r.message << "\n";
    if (r.committed) {
      std::cout << "  generations: " << r.generations_consumed << " consumed of " << r.generations_found
                << " found; rows: " << r.rows_appended << " written, " << r.rows_deleted << " deleted, "
                << r.rows_total << (r.part_of_ring ? " in this run's token ranges" : " in the table");
      if (r.static_only_partitions) std::cout << " (" << r.static_only_partitions << " static-only partitions, no row)";
      std::cout << "\n  files: " << r.data_files << " data, " << r.delete_files << " position delete, "
                << r.bytes_written << " bytes; TTLs evaluated at " << r.now_seconds << "\n  metadata: "
                << r.metadata_location << "\n";
      if (!r.schema_changes.empty()) std::cout << "  schema changed: " << Join(r.schema_changes, "; ") << "\n";
      if (!r.folded_everything_because.empty()) {
        std::cout << "  folded every kept generation: " << r.folded_everything_because << "\n";
      }
      if (!r.read_kept_facts_because.empty()) {
        std::cout << "  folded the touched rows from every kept generation: " << r.read_kept_facts_because << "\n";
      }
      if (r.unrepaired_left_out) {
        std::cout << "  left out (--repaired-only): " << r.unrepaired_left_out << " unrepaired generation(s), "
                  << r.unrepaired_bytes_left_out << " bytes of Data.db\n";
      }
    }
    appended += r.rows_appended;
    deleted += r.rows_deleted;
    bytes += r.bytes_written;
    generations += r.generations_consumed;
    files += r.data_files + r.delete_files;
    committed += r.committed;
  }
  char elapsed[32];
  std::snprintf(elapsed, sizeof(elapsed), "%.1f", seconds);
  std::cout << reports.size() << " table(s), " << committed << " committed; " << generations
            << " generation(s) consumed; " << appended << " rows written, " << deleted << " deleted; " << files
            << " files, " << bytes << " bytes; " << elapsed << " s\n";
}

void PrintJson(const std::vector<materialize::TableReport>& reports, const std::string& catalog,
               double seconds) {
  PrintTablesJson<materialize::TableReport>(reports, catalog, seconds,
                  [](JsonWriter& w, const materialize::TableReport& r) {
    w.Key("namespace"); w.String(r.namespace_name);
    w.Key("table"); w.String(r.table_name);
    w.Key("source"); w.String(r.source);
    w.Key("committed"); w.Bool(r.committed);
    w.Key("staged"); w.Bool(r.staged);
    w.Key("snapshot_id"); if (r.committed) w.Int(r.snapshot_id); else w.Null();
    w.Key("metadata_location"); w.String(r.metadata_location);
    w.Key("generations_found"); w.Int(r.generations_found);
    w.Key("generations_consumed"); w.Int(r.generations_consumed);
    w.Key("rows_written"); w.Int(r.rows_appended);
    w.Key("rows_deleted"); w.Int(r.rows_deleted);
    w.Key("rows_total"); w.Int(r.rows_total);
    w.Key("part_of_ring"); w.Bool(r.part_of_ring);
    w.Key("static_only_partitions"); w.Int(r.static_only_partitions);
    w.Key("unrepaired_generations_left_out"); w.Int(r.unrepaired_left_out);
    w.Key("unrepaired_bytes_left_out"); w.Int(r.unrepaired_bytes_left_out);
    w.Key("data_files"); w.Int(r.data_files);
    w.Key("delete_files"); w.Int(r.delete_files);
    w.Key("bytes_written"); w.Int(r.bytes_written);
    w.Key("ttl_evaluated_at"); w.Int(r.now_seconds);
    w.Key("attempts"); w.Int(r.attempts);
    w.Key("folded");
    w.String(r.folded_nothing                      ? "nothing"
             : !r.folded_touched_rows                ? "every generation"
             : r.read_kept_facts_because.empty() ? "new generations"
                                                  : "touched rows");
    if (!r.read_kept_facts_because.empty()) {
      w.Key("read_kept_facts_because");
      w.String(r.read_kept_facts_because);
    }
    if (!r.folded_everything_because.empty()) {
      w.Key("folded_everything_because");
      w.String(r.folded_everything_because);
    }
    if (!r.schema_changes.empty()) {
      w.Key("schema_changes");
      w.BeginArray();
      for (const std::string& change : r.schema_changes) w.String(change);
      w.EndArray();
    }
    w.Key("message"); w.String(r.message);
    if (!r.warning.empty()) {
      w.Key("warning");
      w.String(r.warning);
    }
  });
}

// The data directory of the node whose directory (or keyspace or table
// directory in it) `path` is: the nearest of them with a system/ keyspace.
Result<std::string> NodeDataDirectory(FileSystem& fs, const std::string& path) {
  std::string dir = AbsolutePath(path);
  for (int up = 0; up < 3 && !dir.empty() && dir != "/"; ++up, dir = DirName(dir)) {
    if (fs.IsDirectory(JoinPath(dir, "system"))) return dir;
  }
  return Status::InvalidArgument(StrCat(path, ": --primary-range-only needs a node's data directory (or a keyspace "
                                              "or table directory in one), with its system keyspace"));
}

// The token ranges a node is primary replica for, keyspace by keyspace, as
// its system.local and system.peers_v2 describe the ring and its
// system_schema.keyspaces each keyspace's replication.
class PrimaryRangesOfNode {
 public:
  static Result<PrimaryRangesOfNode> Read(FileSystem& fs, const std::string& data_dir, int64_t now) {
    ASSIGN_OR_RETURN(NodeMetadata node, ReadNodeMetadata(fs, data_dir, now));
    if (node.partitioner.find("Murmur3Partitioner") == std::string::npos) {
      return Status::NotSupported(StrCat(data_dir, ": --primary-range-only needs Murmur3Partitioner, not ",
                                         node.partitioner));
    }
    ASSIGN_OR_RETURN(TokenRing ring, RingFromNodes({node}));
    return PrimaryRangesOfNode(std::move(node), std::move(ring));
  }

  std::string host() const { return StrCat(node_.self.Name(), " (host ", node_.self.host_id, ")"); }

  Result<Murmur3RangeSet> Of(const std::string& keyspace) const {
    ASSIGN_OR_RETURN(Replication replication, node_.KeyspaceReplication(keyspace));
    return Murmur3RangeSet(ring_.PrimaryRanges(ring_.FindNode(node_.self.host_id), replication));
  }

 private:
  PrimaryRangesOfNode(NodeMetadata node, TokenRing ring) : node_(std::move(node)), ring_(std::move(ring)) {}
  NodeMetadata node_;
  TokenRing ring_;
};

int Materialize(const MaterializeCommandOptions& options) {
  auto start = std::chrono::steady_clock::now();
  std::string warehouse = WarehousePath(options.warehouse);
  const std::string catalog_address = CatalogAddress(options.catalog, warehouse);
  bool terminal = ::isatty(STDERR_FILENO) && !options.quiet;
  auto fail = [](const Status& status) {
    std::cout.flush();
    std::cerr << "cqlite materialize: " << status.ToString() << "\n";
    return 1;
  };
  const bool s3_warehouse = net::IsS3Uri(warehouse);
  if (s3_warehouse && options.catalog.empty()) {
    return fail(Status::InvalidArgument(StrCat("--warehouse ", warehouse, ": an s3:// warehouse needs --catalog (a "
                                               "SQLite file on this machine, postgresql://... or rest:...)")));
  }
  const Result<std::string> catalog_name = CatalogName(options.catalog_name, catalog_address);
  if (!catalog_name.ok()) return fail(catalog_name.status());
  std::vector<std::string> other_paths = options.cluster;
  other_paths.push_back(options.path);
  other_paths.push_back(options.stage_dir);
  auto warehouse_fs = WarehouseFileSystem(warehouse, other_paths);
  if (!warehouse_fs.ok()) return fail(warehouse_fs.status().WithContext(StrCat("--warehouse ", warehouse)));
  FileSystem& fs = **warehouse_fs;

  // Names given on the command line are checked before anything is created.
  if (!options.namespace_name.empty()) {
    if (Status s = catalog::ValidateNamespace({options.namespace_name}); !s.ok()) return fail(s);
  }
  if (!options.table_name.empty()) {
    if (Status s = catalog::ValidateTableName(options.table_name); !s.ok()) return fail(s);
  }

  if (options.path.empty() == options.cluster.empty()) {
    return fail(Status::InvalidArgument("give a path, or --cluster and the data directories of a cluster's nodes"));
  }
  const Result<std::set<std::string>> only = ParseTableList(options.tables);
  if (!only.ok()) return fail(only.status());
  std::optional<Murmur3RangeSet> token_range;
  if (!options.token_range.empty()) {
    auto parsed = Murmur3RangeSet::Parse(options.token_range);
    if (!parsed.ok()) return fail(parsed.status().WithContext("--token-range"));
    if (options.primary_range_only) {
      return fail(Status::InvalidArgument("give --token-range or --primary-range-only, not both"));
    }
    token_range = std::move(*parsed);
  }
  if (!options.stage_dir.empty() && (!token_range || token_range->whole_ring())) {
    return fail(Status::InvalidArgument(
        "--stage needs --token-range with a part of the ring (every token Murmur3 gives is in "
        "-9223372036854775807:9223372036854775807; cqlite plan splits the ring for a job)"));
  }
  if (!options.stage_dir.empty() && options.format_version >= 3) {
    return fail(Status::NotSupported("--stage writes v2 position delete files; --format-version 3 cannot be staged yet"));
  }
  // Each table to publish, and its other replicas' table directories.
  auto found = FindSourceTables(fs, options.path, options.cluster, NowOrWallClock(options.now_seconds),
                                options.allow_missing_replicas, *only);
  if (!found.ok()) return fail(found.status());
  std::vector<ReplicatedTable> tables = std::move(*found);
  const std::string& source = options.cluster.empty() ? options.path : options.cluster[0];
  if (tables.size() > 1 && !options.table_name.empty()) {
    return fail(Status::InvalidArgument(StrCat(source, " holds ", tables.size(),
                                               " tables; --table names one, so point at one table directory")));
  }
  materialize::MaterializeOptions run;
  run.warehouse = warehouse;
  run.schema_file = options.schema_file;
  run.namespace_name = options.namespace_name;
  run.table_name = options.table_name;
  run.now_seconds = options.now_seconds;
  run.mapping.decimal_scale = options.decimal_scale;
  run.mapping.truncate_time = options.truncate_time;
  if (!options.time_as.empty()) {
    run.mapping.time_as = *materialize::ParseTimeAs(options.time_as);  // checked by the option
    run.mapping.time_as_given = true;
  }
  run.compression = options.compression == "snappy" ? parquet::CompressionCodec::kSnappy
                    : options.compression == "none" ? parquet::CompressionCodec::kUncompressed
                                                    : parquet::CompressionCodec::kZstd;
  if (options.compression_level != 0) {
    if (run.compression != parquet::CompressionCodec::kZstd) {
      return fail(Status::InvalidArgument(
          StrCat("--compression-level is for --compression zstd only, not ", options.compression)));
    }
    run.compression_level = options.compression_level;
  }
  run.format_version = options.format_version;
  run.fold_fan_in = options.fold_fan_in;
  run.repaired_only = options.repaired_only;
  run.threads = options.threads;
  if (token_range) run.token_ranges = *token_range;
  run.stage_dir = options.stage_dir.empty() ? "" : WarehousePath(options.stage_dir);
  std::optional<PrimaryRangesOfNode> primary_ranges;
  if (options.primary_range_only) {
    if (!options.cluster.empty()) {
      return fail(Status::InvalidArgument("--primary-range-only is for one node's data directory, not --cluster"));
    }
    auto data_dir = NodeDataDirectory(fs, options.path);
    if (!data_dir.ok()) return fail(data_dir.status());
    auto read = PrimaryRangesOfNode::Read(fs, *data_dir, NowOrWallClock(options.now_seconds));
    if (!read.ok()) return fail(read.status());
    primary_ranges = std::move(*read);
  }
  // The ranges of the keyspace of `table_dir` this node is primary for, when
  // the run is of those (reported once per keyspace).
  std::set<std::string> keyspaces_reported;
  auto restrict_to_primary_ranges = [&](const std::string& table_dir) -> Status {
    if (!primary_ranges) return Status::OK();
    auto location = TableDirectoryLocation(table_dir);
    if (!location || location->keyspace.empty()) {
      return Status::InvalidArgument(StrCat(table_dir, ": --primary-range-only needs the table's keyspace, which a "
                                                       "directory outside a node's data directory does not name"));
    }
    ASSIGN_OR_RETURN(run.token_ranges, primary_ranges->Of(location->keyspace));
    if (!options.quiet && keyspaces_reported.insert(location->keyspace).second) {
      std::cerr << "primary ranges of " << primary_ranges->host() << " for keyspace " << location->keyspace << ": "
                << run.token_ranges.ranges().size() << " token range(s)\n";
    }
    return Status::OK();
  };

  // Tables that would be refused are refused before the warehouse or the
  // catalog is created.
  std::vector<ReplicatedTable> accepted;
  int failures = 0;
  for (const ReplicatedTable& table : tables) {
    run.replica_dirs = table.replica_dirs;
    Status s = restrict_to_primary_ranges(table.dir);
    if (s.ok() && primary_ranges && run.token_ranges.empty()) {
      if (!options.quiet) {
        std::cerr << "cqlite materialize: " << table.dir << ": " << primary_ranges->host()
                  << " is primary replica for no token range of its keyspace (its data centre holds none of it); "
                     "nothing to publish\n";
      }
      continue;
    }
    if (s.ok()) s = materialize::CheckTable(fs, table.dir, run);
    if (!s.ok()) {
      ++failures;
      std::cerr << "cqlite materialize: " << s.ToString() << " (nothing committed for " << table.dir << ")\n";
      continue;
    }
    accepted.push_back(table);
  }
  // Nothing committed: a failure, unless every table was one this node is
  // primary for none of.
  if (accepted.empty()) return failures > 0 || tables.empty() ? 1 : 0;
  if (Status s = fs.CreateDirectories(warehouse); !s.ok()) {
    return fail(s.WithContext("cannot create the warehouse"));
  }
  auto catalog = catalog::OpenCatalog(catalog_address, *catalog_name, true);
  if (!catalog.ok()) return fail(catalog.status());

  std::vector<materialize::TableReport> reports;
  for (const ReplicatedTable& table : accepted) {
    const std::string& table_dir = table.dir;
    run.replica_dirs = table.replica_dirs;
    if (Status s = restrict_to_primary_ranges(table_dir); !s.ok()) return fail(s);  // it held for CheckTable
    if (terminal) {
      run.progress = [&table_dir](const std::string& line) {
        std::cerr << "\r\033[K" << BaseName(table_dir) << ": " << line << std::flush;
      };
    }
    run.complete_source = options.complete_source || materialize::InLiveDataDirectory(fs, table_dir);
    for (const std::string& replica_dir : table.replica_dirs) {
      run.complete_source = run.complete_source && materialize::InLiveDataDirectory(fs, replica_dir);
    }
    run.fold_touched_rows = !options.fold_everything;
    // Not while a watcher keeps the table: its start removes the data files
    // no snapshot references, this run's among them (watch/table_lock.h).
    // An s3:// warehouse holds no lock files: a watcher of one keeps its locks
    // in its own --state-dir, which a run by hand does not know (README.md).
    std::unique_ptr<watch::TableLock> lock;
    if (auto location = TableDirectoryLocation(table_dir);
        !s3_warehouse && location && !location->keyspace.empty()) {
      auto shared = watch::TableLock::AcquireShared(
          fs, watch::TableLockPath(warehouse, StrCat(location->keyspace, ".", location->table)));
      if (!shared.ok()) {
        ++failures;
        std::cerr << "cqlite materialize: " << shared.status().ToString() << " (nothing committed for " << table_dir
                  << ")\n";
        continue;
      }
      lock = std::move(*shared);
    }
    auto report = materialize::MaterializeTable(fs, **catalog, table_dir, run);
    if (terminal) std::cerr << "\r\033[K" << std::flush;
    if (!report.ok()) {
      ++failures;
      // A commit whose outcome is unknown may have taken effect: say so, not "nothing committed".
      bool unknown = report.status().kind() == StatusKind::kCommitUnknown;
      std::cerr << "cqlite materialize: " << report.status().ToString()
                << (unknown ? " (perhaps committed for " : " (nothing committed for ") << table_dir << ")\n";
      continue;
    }
    if (!report->warning.empty() && !options.quiet) std::cerr << "cqlite materialize: warning: " << report->warning << "\n";
    reports.push_back(std::move(*report));
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (options.json) {
    PrintJson(reports, (*catalog)->DisplayName(), seconds);
  } else if (!options.quiet) {
    PrintText(reports, seconds);
  }
  return failures ? 1 : 0;
}

}  // namespace

CommandRunner AddMaterializeCommand(CLI::App& app) {
  auto options = std::make_shared<MaterializeCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "materialize",
      "Publish Cassandra tables as Apache Iceberg v2 tables that any Iceberg engine reads as current state.\n"
      "Each table under the path (a data directory, a keyspace or table directory, a snapshot or an incremental "
      "backup) is folded with Cassandra's rules and committed as one snapshot: new rows appended, changed and "
      "removed rows position-deleted. A later run consumes only generations it has not seen (compaction outputs "
      "of seen data change nothing) and, with nothing new, commits nothing unless rows have expired.\n"
      "Defaults serve a first run: warehouse ./warehouse, catalog <warehouse>/catalog.db (the JDBC catalog "
      "schema, which PyIceberg's SqlCatalog, Iceberg Java's JdbcCatalog and others open as is), catalog name "
      "cqlite, namespace and table named after the Cassandra keyspace and table.");
  cmd->add_option("path", options->path, "A Cassandra data directory, keyspace directory or table directory");
  cmd->add_option("--cluster", options->cluster,
                  "Instead of a path: the data directories of a cluster's nodes (live, copies, or put back from "
                  "snapshots). Each table is folded once from all its replicas, as a read at consistency ALL "
                  "merges them, after checking that the directories are of one cluster (system.local, "
                  "system.peers_v2) and hold every replica of every token range (system_schema.keyspaces)")
      ->expected(1, -1);
  cmd->add_flag("--repaired-only", options->repaired_only,
                "Read only the SSTables incremental repair has marked repaired (Statistics.db: repairedAt set, no "
                "pending repair); the report says how many unrepaired ones were left out");
  cmd->add_flag("--primary-range-only", options->primary_range_only,
                "Publish only the token ranges this node is primary replica for under each table's keyspace "
                "replication (its system.local, system.peers_v2 and system_schema.keyspaces), so that one job per "
                "node, each with --repaired-only, publishes disjoint rows into one table; such a table keeps a fold "
                "state per node's ranges, and concurrent jobs' commits go one on top of the other. A node of a data "
                "centre that holds none of a keyspace publishes nothing of it");
  cmd->add_option("--tables", options->tables,
                  "Only these tables of the path or cluster: keyspace.table names, comma-separated");
  cmd->add_option("--token-range", options->token_range,
                  "Publish only the partitions whose Murmur3 token is in these ranges: first:last (inclusive "
                  "bounds), several comma-separated. The table keeps a fold state per part (as with "
                  "--primary-range-only); a later run of the same ranges replaces that part only");
  cmd->add_option("--stage", options->stage_dir,
                  "With --token-range: fold and write the ranges' files into the warehouse, commit nothing, and "
                  "leave a staged result under this directory (local or s3://) for `cqlite commit --staged`, "
                  "which commits every staged part of a table in one snapshot (a task of a Spark job: "
                  "docs/spark.md)");
  cmd->add_flag("--allow-missing-replicas", options->allow_missing_replicas,
                "With --cluster: fold the replicas there are when a token range lacks some (a node left out), as "
                "long as every range has one");
  cmd->add_option("--warehouse", options->warehouse, kWarehouseHelp)->capture_default_str();
  cmd->add_option("--catalog", options->catalog, kCatalogHelp);
  cmd->add_option("--catalog-name", options->catalog_name, kCatalogNameHelp);
  cmd->add_option("--namespace", options->namespace_name, "The Iceberg namespace (default: the keyspace)");
  cmd->add_option("--table", options->table_name, "The Iceberg table name (default: the Cassandra table)");
  cmd->add_option("--now", options->now_seconds, kNowHelp)->transform(InstantOption());
  cmd->add_option("--schema", options->schema_file,
                  "A CQL file with the CREATE TABLE (and CREATE TYPE) statements; default as for dump")
      ->check(CLI::ExistingFile);
  cmd->add_option("--decimal-scale", options->decimal_scale,
                  "Scale of the Iceberg decimal(38, s) that CQL decimals map to; a value with more fractional "
                  "digits fails the run")
      ->check(CLI::Range(0, 38))
      ->capture_default_str();
  cmd->add_flag("--truncate-time", options->truncate_time,
                "Drop the sub-microsecond digits of CQL time values published as Iceberg times (in "
                "microseconds) instead of failing the run");
  cmd->add_option("--time-as", options->time_as, kTimeAsHelp)->check(CLI::IsMember({"time", "long", "string"}));
  cmd->add_option("--compression", options->compression, "Parquet compression of data files")
      ->check(CLI::IsMember({"zstd", "snappy", "none"}))
      ->capture_default_str();
  cmd->add_option("--compression-level", options->compression_level,
                  "ZSTD level of data files, 1 (fastest) to 22 (smallest); default 3, as Cassandra, DuckDB and "
                  "Iceberg Java (pyarrow and PyIceberg use 1)")
      ->check(CLI::Range(1, 22));
  cmd->add_option("--format-version", options->format_version,
                  "Iceberg format version of new tables: 2 (position delete files; every engine reads them) or 3 "
                  "(a deletion vector per data file in Puffin files, row lineage; Iceberg 1.8+ engines such as "
                  "Spark and Trino read them). A v2 table given 3 is upgraded in place; a v3 table stays v3")
      ->check(CLI::IsMember({2, 3}))
      ->capture_default_str();
  cmd->add_option("--fold-fan-in", options->fold_fan_in,
                  "Most facts sets (each the kept facts of a generation, or a merge of several) a run folds at "
                  "once (with --cluster, this many per node); beyond it the smallest are merged first. Memory grows "
                  "with it, not with the table")
      ->check(CLI::Range(2, 1024))
      ->capture_default_str();
  cmd->add_option("--threads", options->threads,
                  "Threads folding and writing a table at once, each over its own range of the token ring "
                  "(Murmur3 tables; others are folded by one); default: the machine's cores")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cmd->add_flag("--complete-source", options->complete_source,
                "The path holds every SSTable of its tables now (as a live data directory or a snapshot does), "
                "not only new ones: a consumed generation no longer there was compacted away, so the table is "
                "folded anew from the path's generations. Implied for table directories of a live data directory "
                "(one with a system keyspace); never give it for incremental backups");
  cmd->add_flag("--fold-everything", options->fold_everything,
                "Fold every kept generation with the new ones, even when a run would otherwise fold only the rows "
                "the new ones touch (the rows they write or delete, and those in partitions and ranges they "
                "delete) and look them up in the row index");
  cmd->add_flag("--json", options->json, "Print the final report as JSON");
  cmd->add_flag("-q,--quiet", options->quiet, "No progress and no report: only errors, on stderr");
  return [options] { return Materialize(*options); };
}

}  // namespace cqlite
