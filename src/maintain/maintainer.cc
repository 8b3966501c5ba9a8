#include "maintain/maintainer.h"

#include <chrono>

#include "catalog/commit_retry.h"
#include "fold_state/warehouse_files.h"
#include "maintain/expire.h"
#include "util/strings.h"

namespace cqlite::maintain {

namespace {

int64_t WallClockMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Result<catalog::LoadedTable> LoadTable(FileSystem& fs, catalog::Catalog& catalog, const std::string& namespace_name,
                                       const std::string& table_name) {
  ASSIGN_OR_RETURN(std::optional<catalog::LoadedTable> table,
                   catalog.LoadTableMetadata(fs, {namespace_name}, table_name));
  if (!table) {
    return Status::NotFound(StrCat(namespace_name, ".", table_name, ": no such table in catalog ",
                                   catalog.DisplayName()));
  }
  return std::move(*table);
}

// The commit of a step that wrote `files`: kept once it took effect, or may
// have (CommitUnknown).
Status KeepCommittedFiles(const Result<std::optional<catalog::Committed>>& committed, materialize::RunFiles* files) {
  if (committed.ok() || committed.status().kind() == StatusKind::kCommitUnknown) {
    if (files) files->Keep();
  }
  if (committed.status().kind() == StatusKind::kCommitUnknown) {
    return committed.status().WithContext("its files are kept; run maintain again to learn whether it committed");
  }
  return committed.status();
}

}  // namespace

Status MaintainTable(FileSystem& fs, catalog::Catalog& catalog, const std::string& namespace_name,
                     const std::string& table_name, const MaintainOptions& options, MaintainReport* report) {
  report->namespace_name = namespace_name;
  report->table_name = table_name;
  const std::string name = StrCat(namespace_name, ".", table_name);
  auto progress = [&](const std::string& line) {
    if (options.progress) options.progress(line);
  };
  catalog::CommitRetryOptions retry;
  retry.max_attempts = options.max_attempts;
  retry.table = name;
  if (options.rewrite_data_files) {
    // Each attempt plans on the table as it then is; a lost attempt's files
    // go with its RunFiles.
    std::optional<catalog::LoadedTable> table;
    std::optional<materialize::RunFiles> files;
    std::optional<PlannedVersion> planned;
    RewriteReport rewrite;
    auto plan = [&](int attempt, const Status&) -> Result<std::optional<catalog::TableCommit>> {
      if (attempt > 1) progress("another writer committed first; planning the rewrite again");
      planned.reset();
      files.reset();
      ASSIGN_OR_RETURN(table, LoadTable(fs, catalog, namespace_name, table_name));
      report->metadata_location = table->metadata_location;
      files.emplace(fs, iceberg::LocalFilePath(table->metadata.location));
      for (const std::string& dir : files->Directories()) RETURN_IF_ERROR(fs.CreateDirectories(dir));
      rewrite = RewriteReport{};
      RewriteOptions rewrite_options = options.rewrite;
      rewrite_options.progress = options.progress;
      ASSIGN_OR_RETURN(planned, RewriteDataFiles(fs, *table, name, rewrite_options, *files, &rewrite));
      if (!planned) return std::optional<catalog::TableCommit>();
      progress("committing the rewrite");
      return std::optional<catalog::TableCommit>(
          catalog::TableCommit{{namespace_name}, table_name, &*table, &planned->metadata, planned->metadata_file});
    };
    retry.what = "the rewrite";
    auto committed = catalog::CommitWithRetry(fs, catalog, plan, retry);
    RETURN_IF_ERROR(KeepCommittedFiles(committed, files ? &*files : nullptr));
    if (*committed) {
      report->metadata_location = (*committed)->metadata_location;
      report->rewrite = rewrite;
      report->rewrite_snapshot_id = planned->snapshot_id;
    }
  }
  if (options.expire_snapshots) {
    const int64_t now_ms = options.now_ms ? options.now_ms : WallClockMillis();
    std::optional<catalog::LoadedTable> table;
    std::optional<materialize::RunFiles> files;
    std::optional<ExpiryPlan> expiry;
    std::string metadata_file;
    auto plan = [&](int attempt, const Status&) -> Result<std::optional<catalog::TableCommit>> {
      if (attempt > 1) progress("another writer committed first; planning the expiry again");
      files.reset();
      ASSIGN_OR_RETURN(table, LoadTable(fs, catalog, namespace_name, table_name));
      report->metadata_location = table->metadata_location;
      expiry = PlanExpiry(*table, now_ms, options.retention_ms, options.retain_last);
      if (!expiry) return std::optional<catalog::TableCommit>();
      files.emplace(fs, iceberg::LocalFilePath(table->metadata.location));
      int previous = iceberg::MetadataFileVersion(table->metadata_location);
      metadata_file =
          files->MetadataFile(previous >= 0 ? previous + 1 : static_cast<int>(expiry->metadata.metadata_log.size()));
      progress(StrCat("expiring ", expiry->expired.size(), " snapshot(s)"));
      return std::optional<catalog::TableCommit>(
          catalog::TableCommit{{namespace_name}, table_name, &*table, &expiry->metadata, metadata_file});
    };
    retry.what = "the expiry";
    auto committed = catalog::CommitWithRetry(fs, catalog, plan, retry);
    RETURN_IF_ERROR(KeepCommittedFiles(committed, files ? &*files : nullptr));
    if (*committed) {
      report->metadata_location = (*committed)->metadata_location;
      report->snapshots_expired = static_cast<int>(expiry->expired.size());
      ASSIGN_OR_RETURN(report->files_removed, RemoveExpiredFiles(fs, expiry->expired, expiry->metadata.snapshots));
    }
  }
  return Status::OK();
}

Status RemoveTableOrphans(FileSystem& fs, catalog::Catalog& catalog, const std::string& namespace_name,
                          const std::string& table_name, double older_than_seconds, MaintainReport* report) {
  ASSIGN_OR_RETURN(catalog::LoadedTable table, LoadTable(fs, catalog, namespace_name, table_name));
  report->metadata_location = table.metadata_location;
  ASSIGN_OR_RETURN(int removed, RemoveOrphanFiles(fs, table, older_than_seconds));
  report->orphans_removed += removed;
  return Status::OK();
}

}  // namespace cqlite::maintain
