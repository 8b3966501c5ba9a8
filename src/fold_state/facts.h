// The facts a fold state keeps (fold_state.h), and how a run reads them:
// every consumed generation's SSTable is kept in the warehouse as Cassandra
// wrote it, linked where the warehouse shares the data directory's file
// system (no byte copied, as `nodetool snapshot` keeps SSTables) and copied
// otherwise. A run folds new generations straight from their SSTables and
// earlier ones from their kept copies, with the same reader: no fact is
// converted to another form and read back (DESIGN D3, D5). Only a merge of
// facts sets beyond the fold's fan-in writes new files, envelope files
// (envelope_merge.h), which are read as a facts set of their own.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cassandra/sstable.h"
#include "source/table_sstables.h"
#include "fold/table_fold.h"
#include "io/file_system.h"
#include "fold_state/fold_state.h"
#include "fold_state/warehouse_files.h"
#include "util/status.h"

namespace cqlite::materialize {

// Keeps `sstable`, the run's `generation`th new generation, under the name
// `files` gives it: the components a scan reads (Data.db, Statistics.db,
// CompressionInfo.db or CRC.db, TOC.txt) and Digest.crc32, each linked or
// copied, then synced.
Result<FactsSet> KeepGeneration(FileSystem& fs, const SSTable& sstable, size_t generation, RunFiles& files);

// Facts sets opened as fold sources, one each, with the schema and
// partitioner the fold reads them with.
struct OpenedFacts {
  // The table's current schema: envelope facts written with an earlier one
  // are read as if written with it (fold/schema_projection.h).
  std::shared_ptr<const TableSchema> schema;
  std::optional<Partitioner> partitioner;
  std::vector<std::unique_ptr<FoldSource>> sources;
};

// Opens `sets`, the facts of `table` (whose SSTables give the schema and
// partitioner). A kept SSTable whose header contradicts the schema, or that
// another partitioner wrote, is an error naming it.
Result<OpenedFacts> OpenFacts(FileSystem& fs, const std::vector<FactsSet>& sets, const TableSSTables& table);
// The same, each source restricted to the partitions in `ranges`
// (fold/range_source.h) unless they are the whole ring.
Result<OpenedFacts> OpenFactsIn(FileSystem& fs, const std::vector<FactsSet>& sets, const TableSSTables& table,
                                const Murmur3RangeSet& ranges);

struct MergeSettings {
  int fan_in = 16;                 // the most sets left
  int64_t file_records = 1 << 20;  // a merged file ends at the first partition boundary past this
  int64_t row_group_rows = 4096;
  std::string envelope_prefix;     // of the merged files
  std::function<void(const std::string&)> progress;  // may be empty
};

// Merges the smallest of `sets` (PlanFactsMerges) until at most
// `settings.fan_in` are left; returns the sets left, merged ones last. The
// sets merged stay on disk for the snapshots that name them.
Result<std::vector<FactsSet>> MergeFactsSets(FileSystem& fs, std::vector<FactsSet> sets, const TableSSTables& table,
                                             const MergeSettings& settings, RunFiles& files);

}  // namespace cqlite::materialize
