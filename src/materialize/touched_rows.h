// Step 3 of a materialize run (materializer.h) when the new generations
// touch few enough rows: a run whose cost follows its change, not the table.
//
// The rows a new generation touches are those it holds (written or deleted,
// whatever their timestamps), every row of a partition it deletes, and every
// row in a range it deletes; after a compaction, also every row the
// generations it took away held (the facts sets of the generations still
// there are read as before, the vanished ones' dropped); and every row whose
// TTL ran out since the last run (the row index records when each row next
// expires). A touched row folds to what every fact of that row makes of it,
// and no other row changes. The run, on each share of the ring:
//
//   1. reads the new generations once to gather the touched rows' keys, and
//      finds whether they decide those rows alone: when every fact of theirs
//      is newer than every fact the fold state keeps (the consumed
//      generations' Statistics.db maximum timestamp; a deletion at that
//      timestamp still covers it) and each row is deleted (row deletion) or
//      written whole (primary key liveness, a cell for every simple column
//      and a collection tombstone for every non-frozen collection, as an
//      INSERT writes), with no partition deletion or range tombstone, the
//      kept facts cannot change what they make of a row;
//   2. adds the rows the row index holds in the partitions and ranges the new
//      generations delete, and looks every touched row up in the row index,
//      both layers (fold_state.h), to learn where it is now and its hash;
//   3. folds the touched rows: from the new generations alone when they decide
//      them, else from every facts set, each read only at the touched
//      partitions (the others passed over by key, no cell decoded) and giving
//      the fold only the touched rows and every range tombstone. Each row
//      whose hash differs from its old one is appended to the run's data
//      file, and the position of every old row that changed or is gone is
//      deleted;
//   4. writes the update layer of the row index anew: the last one's entries
//      with this run's over them, in fold order. The base layer and the kept
//      generations' files stay as they are.
//
// The update layer grows with each such run; a run that would take it past
// a quarter of the table's rows (plus a small allowance) folds everything
// instead (row_changes.h), which writes the base anew and no update layer,
// as a compaction folds a log-structured store's runs into one. So does a
// table with static columns, COMPACT STORAGE or dropped columns.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "source/table_sstables.h"
#include "io/file_system.h"
#include "fold_state/fold_state.h"
#include "mapping/iceberg_rows.h"
#include "materialize/row_changes.h"
#include "fold_state/warehouse_files.h"
#include "util/status.h"

namespace cqlite::materialize {

// The most rows a run of this kind holds the keys of (and so its memory).
inline constexpr int64_t kMaxTouchedRows = int64_t{1} << 20;
// Update layer entries allowed beyond a quarter of the table's rows.
inline constexpr int64_t kRowIndexUpdateAllowance = 1024;

// How a run that folded only its touched rows found them.
struct TouchedRowsFold {
  RowChanges changes;
  // Why the kept facts were read at the touched rows (the first reason
  // found), or empty: the new generations decided their rows alone.
  std::string read_kept_facts_because;
};

// The changes of the run whose new facts are `new_facts` (kept SSTables of
// the generations not consumed before) over the fold state `last`, folding
// only the rows they touch; `vanished_facts` are the facts sets of consumed
// generations a compaction took away (their rows are touched too: the
// compaction's output, among the new facts, holds what they said but for
// what it purged); `all_facts` are every facts set a fold of everything
// would read (the kept ones of the generations present and the new ones,
// merged as the run merged them). Nullopt, with the first reason found in `why_not`, when the
// run must fold everything, before any file is written. With
// `options.threads` threads, each share of the ring (of a Murmur3 table) is
// screened, looked up in the row index and folded on a thread of its own,
// writing a data file, delete files and a part of the update layer of its
// own; the threads wait for one another only once, after screening.
Result<std::optional<TouchedRowsFold>> FoldTouchedRows(FileSystem& fs, const TableSSTables& table,
                                                       const TableMapping& mapping, const std::string& table_dir,
                                                       const std::vector<FactsSet>& new_facts,
                                                       const std::vector<FactsSet>& vanished_facts,
                                                       const std::vector<FactsSet>& all_facts, const FoldState& last,
                                                       const RowChangesOptions& options, RunFiles& files,
                                                       std::string* why_not);

}  // namespace cqlite::materialize
