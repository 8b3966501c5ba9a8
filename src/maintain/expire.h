// The later steps of `cqlite maintain`: snapshots past their retention
// taken out of a table's metadata, the files only they referenced removed,
// and orphan files (those no snapshot the table keeps references, left by
// runs killed before their commit) removed once they are old enough that no
// run still writing can own them.
//
// A snapshot is kept when it is the current one, one of the newest
// `retain_last` of the current snapshot's ancestry, or younger than the
// retention; every other one expires, as Iceberg's expire_snapshots decides.
// The files of an expired snapshot go only after the catalog committed the
// metadata without it, and only those no kept snapshot references; a kill
// in between leaves them to the orphan step.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "iceberg/table_metadata.h"
#include "io/file_system.h"
#include "util/status.h"

namespace cqlite::maintain {

struct ExpiryPlan {
  iceberg::TableMetadata metadata;         // the table without the expired snapshots
  std::vector<iceberg::Snapshot> expired;
};

// The snapshots of `table` that expire as of `now_ms`: older than
// `retention_ms` and not among the `retain_last` (at least 1) newest of the
// current ancestry; nullopt when none does.
std::optional<ExpiryPlan> PlanExpiry(const catalog::LoadedTable& table, int64_t now_ms, int64_t retention_ms,
                                     int retain_last);

// Removes the files `expired` referenced that none of `kept` does; returns
// how many. A file already gone is not an error.
Result<int> RemoveExpiredFiles(FileSystem& fs, const std::vector<iceberg::Snapshot>& expired,
                               const std::vector<iceberg::Snapshot>& kept);

// Removes the files under the table's data/, metadata/ and cqlite/
// directories that neither its metadata (the current file and the metadata
// log) nor its snapshots reference and that were last modified before
// `older_than_seconds` (seconds since the epoch); returns how many, and
// empty directories left under cqlite/facts/ go too.
Result<int> RemoveOrphanFiles(FileSystem& fs, const catalog::LoadedTable& table, double older_than_seconds);

}  // namespace cqlite::maintain
