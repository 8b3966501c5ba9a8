// `cqlite maintain [namespace[.table]]`: keeps the tables cqlite published
// fast to read (src/maintain/maintainer.h): data files rewritten past a
// delete threshold or when small, snapshots past their retention expired,
// orphan files removed.
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <set>

#include "catalog/catalog.h"
#include "cli/commands.h"
#include "cli/report_json.h"
#include "maintain/maintainer.h"
#include "net/s3_file_system.h"
#include "util/json_writer.h"
#include "util/strings.h"
#include "util/time_format.h"
#include "watch/table_lock.h"

namespace cqlite {

namespace {

struct MaintainCommandOptions {
  std::string target;  // namespace or namespace.table; empty: every table
  std::string warehouse = "warehouse";
  std::string catalog;
  std::string catalog_name;
  double delete_threshold = 0.2;
  int64_t small_file_size = int64_t{64} << 20;
  int64_t target_file_size = int64_t{512} << 20;
  int64_t expire_older_than = 7 * 86400;  // seconds
  int retain_last = 5;
  int64_t orphan_age = 3 * 86400;  // seconds
  int64_t now_seconds = -1;
  std::vector<std::string> skip;  // steps left out
  bool json = false;
  bool quiet = false;
};

struct TableName {
  std::string namespace_name, table_name;
};

// The tables `target` names in `catalog`: every table, those of a
// namespace, or one table.
Result<std::vector<TableName>> TablesOf(catalog::Catalog& catalog, const std::string& target) {
  std::vector<TableName> tables;
  auto add_namespace = [&](const catalog::Namespace& ns) -> Status {
    ASSIGN_OR_RETURN(std::vector<std::string> names, catalog.ListTables(ns));
    for (const std::string& t : names) tables.push_back({catalog::NamespaceToString(ns), t});
    return Status::OK();
  };
  if (target.empty()) {
    ASSIGN_OR_RETURN(std::vector<catalog::Namespace> namespaces, catalog.ListNamespaces());
    for (const catalog::Namespace& ns : namespaces) RETURN_IF_ERROR(add_namespace(ns));
    return tables;
  }
  if (Status valid = catalog::ValidateNamespace({target}); valid.ok()) {
    ASSIGN_OR_RETURN(bool exists, catalog.NamespaceExists({target}));
    if (exists) {
      RETURN_IF_ERROR(add_namespace({target}));
      return tables;
    }
  }
  size_t dot = target.rfind('.');
  if (dot == std::string::npos) {
    return Status::NotFound(StrCat("no namespace ", catalog::QuotedName(target), " in catalog ", catalog.DisplayName()));
  }
  TableName one{target.substr(0, dot), target.substr(dot + 1)};
  RETURN_IF_ERROR(catalog::ValidateNamespace({one.namespace_name}));
  RETURN_IF_ERROR(catalog::ValidateTableName(one.table_name));
  tables.push_back(std::move(one));
  return tables;
}

void PrintText(const std::vector<maintain::MaintainReport>& reports, double seconds) {
  for (const maintain::MaintainReport& r : reports) {
    std::cout << r.namespace_name << "." << r.table_name << ":\n  rewrite: ";
    if (r.rewrite_snapshot_id) {
      std::cout << r.rewrite.data_files_rewritten << " data file(s) rewritten into " << r.rewrite.data_files_written
                << " (" << r.rewrite.rows_rewritten << " rows), " << r.rewrite.delete_files_removed
                << " delete file(s) removed, " << r.rewrite.delete_files_written << " merged; snapshot "
                << r.rewrite_snapshot_id << "\n";
    } else {
      std::cout << "nothing to rewrite\n";
    }
    std::cout << "  expiry: " << r.snapshots_expired << " snapshot(s) expired, " << r.files_removed
              << " file(s) of theirs removed\n  orphans: ";
    if (r.orphans_skipped) {
      std::cout << "left for another time (a run holds the table)\n";
    } else {
      std::cout << r.orphans_removed << " removed\n";
    }
    std::cout << "  metadata: " << r.metadata_location << "\n";
  }
  char elapsed[32];
  std::snprintf(elapsed, sizeof(elapsed), "%.1f", seconds);
  std::cout << reports.size() << " table(s) maintained; " << elapsed << " s\n";
}

void PrintJson(const std::vector<maintain::MaintainReport>& reports, const std::string& catalog, double seconds) {
  PrintTablesJson<maintain::MaintainReport>(reports, catalog, seconds,
                  [](JsonWriter& w, const maintain::MaintainReport& r) {
    w.Key("namespace"); w.String(r.namespace_name);
    w.Key("table"); w.String(r.table_name);
    w.Key("rewrite_snapshot_id"); if (r.rewrite_snapshot_id) w.Int(r.rewrite_snapshot_id); else w.Null();
    w.Key("data_files_rewritten"); w.Int(r.rewrite.data_files_rewritten);
    w.Key("data_files_written"); w.Int(r.rewrite.data_files_written);
    w.Key("rows_rewritten"); w.Int(r.rewrite.rows_rewritten);
    w.Key("delete_files_removed"); w.Int(r.rewrite.delete_files_removed);
    w.Key("delete_files_written"); w.Int(r.rewrite.delete_files_written);
    w.Key("bytes_written"); w.Int(r.rewrite.bytes_written);
    w.Key("snapshots_expired"); w.Int(r.snapshots_expired);
    w.Key("files_removed"); w.Int(r.files_removed);
    w.Key("orphans_removed"); w.Int(r.orphans_removed);
    w.Key("orphans_skipped"); w.Bool(r.orphans_skipped);
    w.Key("metadata_location"); w.String(r.metadata_location);
  });
}

int Maintain(const MaintainCommandOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const std::string warehouse = WarehousePath(options.warehouse);
  const std::string catalog_address = CatalogAddress(options.catalog, warehouse);
  const bool terminal = ::isatty(STDERR_FILENO) && !options.quiet;
  auto fail = [](const Status& status) {
    std::cout.flush();
    std::cerr << "cqlite maintain: " << status.ToString() << "\n";
    return 1;
  };
  const bool s3_warehouse = net::IsS3Uri(warehouse);
  if (s3_warehouse && options.catalog.empty()) {
    return fail(Status::InvalidArgument(StrCat("--warehouse ", warehouse, ": an s3:// warehouse needs --catalog")));
  }
  if (!s3_warehouse && options.catalog.empty() && !LocalFileSystem().Exists(JoinPath(warehouse, "catalog.db"))) {
    return fail(Status::NotFound(StrCat("--warehouse ", warehouse, ": no catalog.db there; give the warehouse "
                                        "cqlite materialize wrote, or --catalog")));
  }
  const Result<std::string> catalog_name = CatalogName(options.catalog_name, catalog_address);
  if (!catalog_name.ok()) return fail(catalog_name.status());
  auto warehouse_fs = WarehouseFileSystem(warehouse);
  if (!warehouse_fs.ok()) return fail(warehouse_fs.status().WithContext(StrCat("--warehouse ", warehouse)));
  FileSystem& fs = **warehouse_fs;
  auto catalog = catalog::OpenCatalog(catalog_address, *catalog_name, /*create_if_missing=*/false);
  if (!catalog.ok()) return fail(catalog.status());
  auto tables = TablesOf(**catalog, options.target);
  if (!tables.ok()) return fail(tables.status());

  const std::set<std::string> skip(options.skip.begin(), options.skip.end());
  // Ages are measured to the millisecond: a snapshot committed a moment ago
  // is older than 0s.
  const double now_seconds =
      options.now_seconds >= 0
          ? static_cast<double>(options.now_seconds)
          : std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  maintain::MaintainOptions run;
  run.rewrite_data_files = !skip.count("rewrite");
  run.rewrite.delete_threshold = options.delete_threshold;
  run.rewrite.small_file_bytes = options.small_file_size;
  run.rewrite.target_file_bytes = options.target_file_size;
  run.expire_snapshots = !skip.count("expire");
  run.now_ms = static_cast<int64_t>(now_seconds * 1000);
  run.retention_ms = options.expire_older_than * 1000;
  run.retain_last = options.retain_last;
  const bool remove_orphans = !skip.count("orphans");

  std::vector<maintain::MaintainReport> reports;
  int failures = 0;
  for (const TableName& table : *tables) {
    const std::string name = StrCat(table.namespace_name, ".", table.table_name);
    if (terminal) {
      run.progress = [&name](const std::string& line) { std::cerr << "\r\033[K" << name << ": " << line << std::flush; };
    }
    // The lock materialize and watch take on the table's Cassandra source
    // (watch/table_lock.h): shared while rewriting and expiring, as a run's;
    // exclusive for the orphans, which a running run's files would be.
    std::string lock_path;
    if (!s3_warehouse) {
      auto loaded = (*catalog)->LoadTableMetadata(fs, {table.namespace_name}, table.table_name);
      if (loaded.ok() && *loaded) {
        const auto& properties = (*loaded)->metadata.properties;
        auto keyspace = properties.find("cqlite.source.keyspace");
        auto source_table = properties.find("cqlite.source.table");
        if (keyspace != properties.end() && source_table != properties.end()) {
          lock_path = watch::TableLockPath(warehouse, StrCat(keyspace->second, ".", source_table->second));
        }
      }
    }
    maintain::MaintainReport report;
    Status status;
    {
      std::unique_ptr<watch::TableLock> shared;
      if (!lock_path.empty()) {
        auto acquired = watch::TableLock::AcquireShared(fs, lock_path);
        if (acquired.ok()) {
          shared = std::move(*acquired);
        } else {
          status = acquired.status();
        }
      }
      if (status.ok()) status = maintain::MaintainTable(fs, **catalog, table.namespace_name, table.table_name, run,
                                                        &report);
    }
    if (status.ok() && remove_orphans) {
      std::unique_ptr<watch::TableLock> exclusive;
      if (!lock_path.empty()) {
        auto acquired = watch::TableLock::Acquire(lock_path);
        if (acquired.ok()) exclusive = std::move(*acquired);
        report.orphans_skipped = !acquired.ok();
      }
      if (!report.orphans_skipped) {
        if (terminal) run.progress("removing orphan files");
        status = maintain::RemoveTableOrphans(fs, **catalog, table.namespace_name, table.table_name,
                                              now_seconds - static_cast<double>(options.orphan_age), &report);
      }
    }
    if (terminal) std::cerr << "\r\033[K" << std::flush;
    if (!status.ok()) {
      ++failures;
      std::cerr << "cqlite maintain: " << status.ToString() << "\n";
      continue;
    }
    reports.push_back(std::move(report));
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

CommandRunner AddMaintainCommand(CLI::App& app) {
  auto options = std::make_shared<MaintainCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "maintain", "Keep the Iceberg tables cqlite published fast to read: rewrite data files with many deleted rows "
                  "or few rows, expire old snapshots, remove orphan files.");
  cmd->footer(
      "Each table is taken in three steps. Rewrite: data files whose deleted share reaches --delete-threshold, or "
      "smaller than --small-file-size, are written anew with their live rows (cut at --target-file-size), and every "
      "other data file's position delete files are merged into one; one snapshot (operation replace) whose rows "
      "are the current ones, and the next materialize run goes on from it. Expire: snapshots older than "
      "--expire-older-than go from the table, except the newest --retain-last, and so do the files only they "
      "referenced (time travel to them ends). Orphans: files under the table's data/, metadata/ and cqlite/ "
      "that no kept snapshot references (left by killed runs) and older than --orphan-age are removed; this step "
      "waits for no run: while a materialize run or a watcher holds the table it is left for another time. A "
      "commit that loses the race to another writer is planned again on the newer table.");
  cmd->add_option("target", options->target,
                  "A namespace, or a table as namespace.table (default: every table of the catalog)");
  cmd->add_option("--warehouse", options->warehouse, kWarehouseHelp)->capture_default_str();
  cmd->add_option("--catalog", options->catalog, kCatalogHelp);
  cmd->add_option("--catalog-name", options->catalog_name, kCatalogNameHelp);
  cmd->add_option("--delete-threshold", options->delete_threshold,
                  "Rewrite a data file once this share of its rows is deleted")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--small-file-size", options->small_file_size,
                  "Rewrite data files smaller than this together (default 64MiB)")
      ->transform(ByteSizeOption());
  cmd->add_option("--target-file-size", options->target_file_size,
                  "Cut rewritten data files at about this size (default 512MiB)")
      ->transform(ByteSizeOption());
  cmd->add_option("--expire-older-than", options->expire_older_than,
                  "Expire snapshots older than this, such as 36h or 7d (default 7d)")
      ->transform(DurationOption());
  cmd->add_option("--retain-last", options->retain_last,
                  "Keep at least this many of the newest snapshots, however old")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--orphan-age", options->orphan_age,
                  "Remove unreferenced files only once older than this (default 3d); a shorter age may remove the "
                  "files of a run still writing on another machine")
      ->transform(DurationOption());
  cmd->add_option("--now", options->now_seconds,
                  "The time snapshot and file ages are measured from: seconds since the Unix epoch or an ISO-8601 "
                  "time (default: now)")
      ->transform(InstantOption());
  cmd->add_option("--skip", options->skip, "Steps to leave out: rewrite, expire or orphans (repeatable)")
      ->check(CLI::IsMember({"rewrite", "expire", "orphans"}));
  cmd->add_flag("--json", options->json, "Print the final report as JSON");
  cmd->add_flag("-q,--quiet", options->quiet, "No progress and no report: only errors, on stderr");
  return [options] { return Maintain(*options); };
}

}  // namespace cqlite
