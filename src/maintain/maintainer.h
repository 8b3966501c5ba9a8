// `cqlite maintain` for one table: its data files rewritten (rewrite.h),
// then its expired snapshots and their files removed (expire.h), each step
// one commit through the catalog; and, separately, its orphan files removed.
//
// A commit that loses the catalog's compare-and-swap to another writer (a
// `cqlite materialize` run, another maintenance) changes nothing: the step
// is planned again on the newer version, up to `max_attempts` times, and
// the lost attempt's files are removed. A commit whose outcome is unknown
// keeps its files and ends the step with an error.
//
// Orphan removal must not run while a run of another process is writing the
// table (its files are not referenced yet): the command takes the table's
// lock exclusively for it (watch/table_lock.h), and leaves it for another
// time when a run holds it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "catalog/catalog.h"
#include "io/file_system.h"
#include "maintain/rewrite.h"
#include "util/status.h"

namespace cqlite::maintain {

struct MaintainOptions {
  bool rewrite_data_files = true;
  RewriteOptions rewrite;
  bool expire_snapshots = true;
  int64_t now_ms = 0;  // when snapshot ages are measured; 0: the wall clock
  int64_t retention_ms = int64_t{7} * 24 * 3600 * 1000;
  int retain_last = 5;
  int max_attempts = 4;  // commits lost to other writers before a step gives up
  std::function<void(const std::string&)> progress;  // may be empty
};

struct MaintainReport {
  std::string namespace_name, table_name;
  RewriteReport rewrite;
  int64_t rewrite_snapshot_id = 0;  // 0: no rewrite committed
  int snapshots_expired = 0;
  int files_removed = 0;  // files only expired snapshots referenced
  int orphans_removed = 0;
  bool orphans_skipped = false;  // another process held the table
  std::string metadata_location;  // the table's current metadata afterwards
};

// Rewrites and expires `namespace_name`.`table_name` as `options` say,
// filling `report`. NotFound when the table does not exist.
Status MaintainTable(FileSystem& fs, catalog::Catalog& catalog, const std::string& namespace_name,
                     const std::string& table_name, const MaintainOptions& options, MaintainReport* report);

// Removes the table's orphan files older than `older_than_seconds` (since
// the epoch), adding them to `report`. REQUIRES: no other process writes
// the table meanwhile.
Status RemoveTableOrphans(FileSystem& fs, catalog::Catalog& catalog, const std::string& namespace_name,
                          const std::string& table_name, double older_than_seconds, MaintainReport* report);

}  // namespace cqlite::maintain
