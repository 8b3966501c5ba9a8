// Merged facts files: several generations' envelope files merged into one
// generation, so that a fold reads one source where it would read many
// (DESIGN D5: the fold state is merged like a Cassandra compaction, which
// bounds how many files a run holds open).
//
// The merge is a Cassandra compaction that purges nothing
// (PartitionFolder::BeginMerge): each cell is reconciled, tombstones,
// expired cells and shadowed data kept, deletions of each kind the latest,
// range tombstones their union; so folding the merged file gives what
// folding its inputs gives, and it is read like any generation's facts, a
// piece of a partition at a time. The footer key
// cqlite.delta.merged_generations says how many generations it holds
// (docs/formats/envelope.md, "Merged facts files"). Merged files of the
// earlier kind (every record kept, with a generation column) are read and
// merged too.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cassandra/table_schema.h"
#include "cassandra/token.h"
#include "envelope/envelope_schema.h"
#include "fold/table_fold.h"
#include "io/file_system.h"
#include "parquet/writer.h"
#include "util/status.h"

namespace cqlite::envelope {

struct MergeOptions {
  parquet::CompressionCodec compression = parquet::CompressionCodec::kSnappy;
  int64_t row_group_rows = 4096;
  // A file is ended at the first partition boundary at or past this many
  // records (0: one file); the files are read back as one chain.
  int64_t max_records_per_file = 0;
};

struct MergeResult {
  std::vector<std::string> files;  // the chain, in order
  int generations = 0;             // held by the result
  int64_t records = 0;
};

// What a merged facts file's footer says it holds.
struct MergedFacts {
  std::string sources;   // the merged generations' Data.db names, comma-separated
  std::string keyspace, table, table_id;
  int64_t generations = 0;  // how many generations the inputs hold together
  std::string prefix = kDefaultPrefix;  // the envelope prefix (CheckPrefix must pass)
};

// Merges `sources` (fold sources of one table, each the facts of one
// generation or of an earlier merge, written by `partitioner`) into the
// files `file_path(0)`, `file_path(1)`, ... Each is written through a
// temporary file and renamed; on error none is left.
Result<MergeResult> MergeFoldSources(FileSystem& fs, const TableSchema& table, Partitioner partitioner,
                                     std::vector<std::unique_ptr<FoldSource>> sources, const MergedFacts& identity,
                                     const std::function<std::string(int)>& file_path, const MergeOptions& options);

// Merges `chains` (each one source: a generation's files, or an earlier
// merge's) of one table into the files `file_path(0)`, `file_path(1)`, ...
// Each is written through a temporary file and renamed; on error none is
// left. Inputs must be CQLite's own envelope files with a partitioner CQLite
// orders keys by.
Result<MergeResult> MergeFacts(FileSystem& fs, const std::vector<std::vector<std::string>>& chains,
                               const std::function<std::string(int)>& file_path, const MergeOptions& options);

}  // namespace cqlite::envelope
