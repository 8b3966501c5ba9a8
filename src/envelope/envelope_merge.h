// Merged facts files: the records of several generations' envelope files in
// one token-ordered sequence, so that a fold reads one source where it would
// read many (DESIGN D5: the fold state is merged like a Cassandra compaction,
// which bounds how many files a run holds open).
//
// Nothing is reconciled: every record of every input is kept, so folding the
// merged file gives exactly what folding its inputs gives, tombstones and
// timestamps included. A partition that several generations hold appears
// once per generation, consecutively and in input order; the column
// `<prefix>generation` says which generation a record is of, and the footer
// key cqlite.delta.generations how many the file holds
// (docs/formats/envelope.md, "Merged facts files").
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

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

// Merges `chains` (each one source: a generation's files, or an earlier
// merge's) of one table into the files `file_path(0)`, `file_path(1)`, ...
// Each is written through a temporary file and renamed; on error none is
// left. Inputs must be CQLite's own envelope files with a partitioner CQLite
// orders keys by.
Result<MergeResult> MergeFacts(FileSystem& fs, const std::vector<std::vector<std::string>>& chains,
                               const std::function<std::string(int)>& file_path, const MergeOptions& options);

}  // namespace cqlite::envelope
