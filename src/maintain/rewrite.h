// The first step of `cqlite maintain`: a table's data files rewritten so that
// readers apply few deletes and open few files. A data file whose deleted
// share reaches a threshold, or that is smaller than the small-file size, is
// rewritten with its live rows only, together with the others so chosen,
// into new data files cut at a target size; every other data file's position
// delete files are merged into one. The row index of the fold state
// (fold_state/fold_state.h) is rewritten to name the rows' new places, so
// that the next `cqlite materialize` run deletes and replaces rows where
// they now are; the facts stay as they are. The result is one snapshot of
// operation "replace" whose rows are the current snapshot's, row for row.
//
// Nothing here commits: the caller commits the planned version through the
// catalog, and on a lost race plans again from the newer version (the row
// index and deletes of a concurrent run must be those rewritten).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "catalog/catalog.h"
#include "io/file_system.h"
#include "fold_state/warehouse_files.h"
#include "util/status.h"

namespace cqlite::maintain {

struct RewriteOptions {
  // A data file is rewritten once this share of its rows is deleted...
  double delete_threshold = 0.2;
  // ... or when it is smaller than this (and another file is rewritten with it, or it has deletes).
  int64_t small_file_bytes = int64_t{64} << 20;
  // New data files are cut between input files once they reach about this size.
  int64_t target_file_bytes = int64_t{512} << 20;
  std::function<void(const std::string&)> progress;  // may be empty
};

struct RewriteReport {
  int data_files_rewritten = 0;  // removed from the table, their live rows written anew
  int data_files_written = 0;
  int delete_files_removed = 0;
  int delete_files_written = 0;  // merged position delete files
  int64_t rows_rewritten = 0;
  int64_t bytes_written = 0;
};

// A table version to commit: `metadata` adds snapshot `snapshot_id` on top
// of the version it was planned on.
struct PlannedVersion {
  iceberg::TableMetadata metadata;
  std::string metadata_file;  // where a catalog that needs it written puts it
  int64_t snapshot_id = 0;
};

// Plans and writes (through `files`, which removes them unless kept) the
// rewrite of `table` (named `name` in messages); nullopt when no data file
// needs rewriting and none has more than one delete file.
Result<std::optional<PlannedVersion>> RewriteDataFiles(FileSystem& fs, const catalog::LoadedTable& table,
                                                       const std::string& name, const RewriteOptions& options,
                                                       materialize::RunFiles& files, RewriteReport* report);

}  // namespace cqlite::maintain
