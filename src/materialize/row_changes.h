// Step 3 of a materialize run (materializer.h): the fold of every facts set
// as of `now`, merged in fold order with the row index of the last run, so
// that the table changes by exactly the rows that changed:
//
//  - a row whose key the index does not hold is appended to the run's data
//    file;
//  - a row whose key it holds is hashed (row_hash.h); if the hash is the
//    index's, the row keeps its place, else it is appended and its old
//    position deleted;
//  - a key the fold no longer produces (deleted, expired) has its position
//    deleted.
//
// Rows go to the data file in columns (RowBatchConverter into RowBatches),
// positions to file-scoped position delete files, a bounded buffer at a time
// (position_deletes.h), and every row the table shows to the new row index.
// With several threads, the Murmur3 ring is split into as many ranges of
// equal width, and each thread folds the partitions of its range and merges
// them with the entries of the row index in it, writing a data file, delete
// files and row index files of its own; the ranges' row index files, one
// after another, are the new row index in fold order. Each file is synced
// before the step returns; none is referenced yet.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "source/table_sstables.h"
#include "iceberg/data_files.h"
#include "io/file_system.h"
#include "materialize/batched_data_file.h"
#include "fold_state/fold_state.h"
#include "mapping/iceberg_rows.h"
#include "materialize/position_deletes.h"
#include "fold_state/warehouse_files.h"
#include "parquet/parquet_format.h"
#include "util/status.h"
#include "util/strings.h"

namespace cqlite::materialize {

struct RowChangesOptions {
  int64_t now_seconds = 0;  // when TTLs are evaluated
  // Threads, each folding and writing a range of the ring on its own (of a
  // Murmur3 table; others fold in one).
  int threads = 1;
  // The part of the ring to fold (of a Murmur3 table): partitions outside it
  // are passed over, and the row index given holds rows in it only.
  Murmur3RangeSet token_ranges = Murmur3RangeSet::WholeRing();
  // What the data file buffers of a row group, shared among the threads
  // (each buffers its own row groups), so that memory does not grow with them.
  size_t row_group_bytes = size_t{128} << 20;
  MappingOptions mapping;
  parquet::CompressionCodec compression = parquet::CompressionCodec::kZstd;
  int compression_level = 3;  // ZSTD only
  // Deleted positions kept in memory for deletion vectors (a v3 table)
  // instead of written to position delete files.
  bool deletion_vectors = false;
  std::function<void(const std::string&)> progress;  // may be empty
};

struct RowChanges {
  std::vector<std::string> row_index;           // the new row index's base files
  std::vector<std::string> row_index_updates;   // and its update layer
  int64_t row_index_update_count = 0;
  std::vector<iceberg::DataFile> data_files;    // the run's data file, if it wrote a row
  std::vector<iceberg::DataFile> delete_files;  // positions no longer current
  DeletedPositions deleted_positions;           // the same, with RowChangesOptions::deletion_vectors
  int64_t next_expiry = INT64_MAX;              // when the next TTL runs out
  int64_t rows_appended = 0;
  int64_t rows_deleted = 0;
  int64_t rows_total = 0;
  int64_t static_only_partitions = 0;
};

// What range number `k` of a run writes, whichever fold finds its changes:
// its data file (rows of `schema`) and its position deletes (delete files,
// or positions kept for deletion vectors), as `options` says.
struct RangeOutput {
  RangeOutput(FileSystem& fs, const iceberg::Schema& schema, const RowChangesOptions& options, RunFiles& files,
              int k);

  parquet::WriterOptions writer_options;
  BatchedDataFile data;
  PositionDeleteWriter deletes;
};

// Runs `fold(k, own)` for each range k of `count` on a thread of its own,
// where `own` is `options` with the row group budget shared among the
// ranges and progress lines prefixed with the range; the results come in
// range order.
template <typename T>
std::vector<Result<T>> FoldRangesOnThreads(size_t count, const RowChangesOptions& options,
                                           const std::function<Result<T>(size_t k, const RowChangesOptions& own)>& fold) {
  std::mutex progress_mu;
  std::vector<std::optional<Result<T>>> results(count);
  std::vector<std::thread> workers;
  for (size_t k = 0; k < count; ++k) {
    workers.emplace_back([&, k] {
      RowChangesOptions own = options;
      own.row_group_bytes = options.row_group_bytes / count;
      if (options.progress) {
        own.progress = [&, k](const std::string& line) {
          std::lock_guard<std::mutex> lock(progress_mu);
          options.progress(StrCat("range ", k + 1, " of ", count, ": ", line));
        };
      }
      results[k] = fold(k, own);
    });
  }
  for (std::thread& worker : workers) worker.join();
  std::vector<Result<T>> in_order;
  for (std::optional<Result<T>>& result : results) in_order.push_back(std::move(*result));
  return in_order;
}

// Folds `facts` (of `table`, whose Iceberg face is `mapping`) and merges the
// result with the row index in `row_index` (the last run's; empty for a
// new table); the new row index has no update layer. Errors name `table_dir`, and the partition of a value that
// does not fit its Iceberg type.
Result<RowChanges> FoldRowChanges(FileSystem& fs, const TableSSTables& table, const TableMapping& mapping,
                                  const std::string& table_dir, const std::vector<FactsSet>& facts,
                                  const RowIndexFiles& row_index, const RowChangesOptions& options,
                                  RunFiles& files);

}  // namespace cqlite::materialize
