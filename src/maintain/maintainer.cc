#include "maintain/maintainer.h"

#include <chrono>

#include "maintain/expire.h"
#include "fold_state/warehouse_files.h"
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

// A step's commit: OK(true) when it took effect, OK(false) when another
// writer committed first (plan again), an error otherwise.
Result<bool> TryCommit(FileSystem& fs, catalog::Catalog& catalog, const std::string& namespace_name,
                       const std::string& table_name, const catalog::LoadedTable& base,
                       const iceberg::TableMetadata& next, const std::string& metadata_file,
                       materialize::RunFiles& files, std::string* metadata_location) {
  catalog::TableCommit commit;
  commit.ns = {namespace_name};
  commit.table = table_name;
  commit.base = &base;
  commit.next = &next;
  commit.metadata_file = metadata_file;
  Result<std::string> committed = catalog.Commit(fs, commit);
  if (committed.ok()) {
    files.Keep();
    *metadata_location = std::move(*committed);
    return true;
  }
  if (committed.status().kind() == StatusKind::kCommitUnknown) {
    files.Keep();
    return committed.status().WithContext("its files are kept; run maintain again to learn whether it committed");
  }
  if (committed.status().kind() == StatusKind::kCommitConflict) return false;
  return committed.status();
}

Status GaveUp(const std::string& name, const char* step, int attempts) {
  return Status::CommitConflict(StrCat(name, ": gave up the ", step, " after ", attempts,
                                       " attempts: other writers kept committing first"));
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
  const int attempts = std::max(1, options.max_attempts);
  if (options.rewrite_data_files) {
    bool done = false;
    for (int attempt = 0; attempt < attempts && !done; ++attempt) {
      ASSIGN_OR_RETURN(catalog::LoadedTable table, LoadTable(fs, catalog, namespace_name, table_name));
      report->metadata_location = table.metadata_location;
      materialize::RunFiles files(fs, iceberg::LocalFilePath(table.metadata.location));
      for (const std::string& dir : files.Directories()) RETURN_IF_ERROR(fs.CreateDirectories(dir));
      RewriteReport rewrite;
      RewriteOptions rewrite_options = options.rewrite;
      rewrite_options.progress = options.progress;
      ASSIGN_OR_RETURN(std::optional<PlannedVersion> planned,
                       RewriteDataFiles(fs, table, name, rewrite_options, files, &rewrite));
      if (!planned) {
        done = true;
        break;
      }
      progress("committing the rewrite");
      ASSIGN_OR_RETURN(done, TryCommit(fs, catalog, namespace_name, table_name, table, planned->metadata,
                                       planned->metadata_file, files, &report->metadata_location));
      if (done) {
        report->rewrite = rewrite;
        report->rewrite_snapshot_id = planned->snapshot_id;
      } else {
        progress("another writer committed first; planning the rewrite again");
      }
    }
    if (!done) return GaveUp(name, "rewrite", attempts);
  }
  if (options.expire_snapshots) {
    const int64_t now_ms = options.now_ms ? options.now_ms : WallClockMillis();
    bool done = false;
    for (int attempt = 0; attempt < attempts && !done; ++attempt) {
      ASSIGN_OR_RETURN(catalog::LoadedTable table, LoadTable(fs, catalog, namespace_name, table_name));
      report->metadata_location = table.metadata_location;
      std::optional<ExpiryPlan> plan = PlanExpiry(table, now_ms, options.retention_ms, options.retain_last);
      if (!plan) {
        done = true;
        break;
      }
      materialize::RunFiles files(fs, iceberg::LocalFilePath(table.metadata.location));
      int previous = iceberg::MetadataFileVersion(table.metadata_location);
      std::string metadata_file =
          files.MetadataFile(previous >= 0 ? previous + 1 : static_cast<int>(plan->metadata.metadata_log.size()));
      progress(StrCat("expiring ", plan->expired.size(), " snapshot(s)"));
      ASSIGN_OR_RETURN(done, TryCommit(fs, catalog, namespace_name, table_name, table, plan->metadata, metadata_file,
                                       files, &report->metadata_location));
      if (!done) {
        progress("another writer committed first; planning the expiry again");
        continue;
      }
      report->snapshots_expired = static_cast<int>(plan->expired.size());
      ASSIGN_OR_RETURN(report->files_removed, RemoveExpiredFiles(fs, plan->expired, plan->metadata.snapshots));
    }
    if (!done) return GaveUp(name, "expiry", attempts);
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
