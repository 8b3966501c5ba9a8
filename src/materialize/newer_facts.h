// Step 3 of a materialize run (materializer.h) when the new generations
// decide on their own every row they hold: a run whose cost follows its new
// data, not the table.
//
// That is so when every fact of the new generations is newer than every fact
// the fold state keeps (the consumed generations' Statistics.db maximum
// timestamp; a deletion at that timestamp still covers it), and each row they
// hold is deleted (row deletion) or written whole (primary key liveness, a
// cell for every simple column and a collection tombstone for every
// non-frozen collection, as an INSERT writes), in a table without static or
// counter columns, with no partition deletion or range tombstone among the
// new facts, and no kept row expiring since the last run. Each such row then
// folds to what the new facts alone make of it, whatever the kept facts hold
// for it, and no other row changes. The run:
//
//   1. reads the new generations once to check all this and to gather the
//      keys of their rows (the "touched" rows);
//   2. looks those keys up in the row index, both layers (fold_state.h),
//      to learn where each row is now and what its hash is;
//   3. folds the new generations alone, appends each row whose hash differs
//      from its old one to the run's data file, and deletes the position of
//      every old row that changed or is gone;
//   4. writes the update layer of the row index anew: the last one's entries
//      with this run's over them, in fold order. The base layer and every
//      kept generation stay as they are, unread but for the index scan.
//
// The update layer grows with each such run; a run that would take it past
// a quarter of the table's rows (plus a small allowance) folds everything
// instead (row_changes.h), which writes the base anew and no update layer,
// as a compaction folds a log-structured store's runs into one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cassandra/table_sstables.h"
#include "io/file_system.h"
#include "materialize/fold_state.h"
#include "materialize/iceberg_rows.h"
#include "materialize/row_changes.h"
#include "materialize/warehouse_files.h"
#include "util/status.h"

namespace cqlite::materialize {

// The most rows a run of this kind holds the keys of (and so its memory).
inline constexpr int64_t kMaxNewerFactsRows = int64_t{1} << 20;
// Update layer entries allowed beyond a quarter of the table's rows.
inline constexpr int64_t kRowIndexUpdateAllowance = 1024;

// The changes of the run whose new facts are `new_facts` (kept SSTables of
// the generations not consumed before) over the fold state `last`, when the
// new facts decide their rows alone; nullopt, with the first reason found in
// `why_not`, when they do not, before any file is written. With
// `options.threads` threads, each share of the ring (of a Murmur3 table) is
// screened, looked up in the row index and folded on a thread of its own,
// writing a data file, delete files and a part of the update layer of its
// own; the threads wait for one another only once, after screening.
Result<std::optional<RowChanges>> FoldNewerFacts(FileSystem& fs, const TableSSTables& table,
                                                 const TableMapping& mapping, const std::string& table_dir,
                                                 const std::vector<FactsSet>& new_facts, const FoldState& last,
                                                 const RowChangesOptions& options, RunFiles& files,
                                                 std::string* why_not);

}  // namespace cqlite::materialize
