// Writes the envelope of one SSTable generation as a Parquet envelope file
// (docs/formats/envelope.md): every record the Data.db reader emits becomes
// one or more rows in the v1 shape (upsert, static_upsert, row_delete,
// range_delete, partition_delete), with our columns keeping what v1 drops.
//
// Records are written as they come, partition by partition; partitions must
// come in token order (as a Data.db holds them), which readers rely on to
// stream the file: OnPartitionStart refuses a partition key not greater than
// the previous one (when the partitioner is known).
//
// EnvelopeWriter is an EnvelopeConsumer; ExportSSTable drives it over an
// SSTable and makes the output appear atomically: it writes a temporary file
// in the output's directory and renames it over the output only when the
// footer is written, removing it on any error. Not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cassandra/envelope.h"
#include "cassandra/sstable.h"
#include "cassandra/table_schema.h"
#include "cassandra/token.h"
#include "envelope/envelope_schema.h"
#include "io/file_system.h"
#include "parquet/writer.h"

namespace cqlite::envelope {

struct ExportOptions {
  std::string prefix = kDefaultPrefix;
  parquet::CompressionCodec compression = parquet::CompressionCodec::kSnappy;
  int64_t row_group_rows = 10000;  // as the v1 writer
  // A range tombstone open over more records is split (kRangeLagKey).
  int64_t range_split_records = kRangeSplitRecords;
};

// Where the cells of one serialization-header column go.
struct HeaderColumn {
  int column = -1;  // index into TableSchema::columns; -1 drops the column's cells
  // Cells written at or before this time belong to a dropped incarnation of
  // the column and are left out, as Cassandra's reader skips them.
  int64_t dropped_at = std::numeric_limits<int64_t>::min();
};

// The generation a file holds: footer identity and the header's columns.
struct GenerationInfo {
  std::string source;  // the Data.db file name, e.g. "nb-3-big-Data.db"
  std::string generation;
  std::string sstable_version;  // "nb", "oa", "da"
  std::string sstable_format;   // "big" or "bti"
  std::string keyspace, table, table_id;
  uint64_t data_size = 0;
  std::optional<Partitioner> partitioner;
  std::vector<HeaderColumn> static_columns;   // by ColumnData::column of static rows
  std::vector<HeaderColumn> regular_columns;  // by ColumnData::column of other rows
  int64_t merged_generations = 0;  // a merge of this many (kMergedGenerationsKey); 0 if not a merge
};

// REQUIRES: `sstable` uses `table` (SSTable::UseSchema).
GenerationInfo DescribeGeneration(const SSTable& sstable, const TableSchema& table);

class EnvelopeWriter : public EnvelopeConsumer {
 public:
  // Creates `path`. InvalidArgument (before creating anything) when a table
  // column collides with the prefix. `table` must outlive the writer.
  static Result<std::unique_ptr<EnvelopeWriter>> Open(FileSystem& fs, const std::string& path,
                                                      const TableSchema& table, GenerationInfo generation,
                                                      const ExportOptions& options);

  Status OnPartitionStart(const PartitionHeader& partition) override;
  Status OnRow(const Row& row) override;
  Status OnRangeTombstoneMarker(const RangeTombstoneMarker& marker) override;
  Status OnPartitionEnd() override;

  // Writes the footer. Returns the number of records written.
  Result<int64_t> Close();
  // The records written so far.
  int64_t records() const { return records_; }

 private:
  struct PendingStart {
    std::vector<std::string> values;
    std::vector<bool> present;
    bool inclusive = true;
  };

  EnvelopeWriter(const TableSchema& table, GenerationInfo generation, EnvelopeLayout layout,
                 std::unique_ptr<parquet::ParquetWriter> writer, int64_t range_split_records);
  // A record with the partition key set and everything else null.
  std::vector<parquet::Value> NewRecord(const char* op) const;
  // Records are shredded into batch_ and written kBatchRows at a time.
  Status Write(std::vector<parquet::Value> record);
  Status FlushBatch();
  static constexpr int64_t kBatchRows = 1024;
  void SetClustering(const Clustering& clustering, std::vector<parquet::Value>* record) const;
  parquet::Value RangeBound(const std::vector<std::string>& values, const std::vector<bool>& present,
                            bool inclusive, parquet::Value* raw) const;
  Status WriteRange(const PendingStart& start, const Clustering& end, bool end_inclusive,
                    const DeletionTime& deletion);
  Status WriteRow(const Row& row);
  // Opens a range tombstone at `bound`.
  void OpenRange(const Clustering& bound, bool inclusive, const DeletionTime& deletion);
  Status SetColumns(const Row& row, std::vector<parquet::Value>* record) const;
  parquet::Value SimpleColumn(const ColumnSchema& column, const Cell& cell) const;
  parquet::Value ComplexColumn(const ColumnSchema& column, const ColumnData& data,
                               const std::vector<const Cell*>& cells) const;

  const TableSchema& table_;
  GenerationInfo generation_;
  EnvelopeLayout layout_;
  std::unique_ptr<parquet::ParquetWriter> writer_;
  parquet::RowBatch batch_;
  std::vector<const ColumnSchema*> partition_key_columns_;
  std::vector<const ColumnSchema*> clustering_columns_;
  int first_clustering_field_ = 0;

  // The current partition.
  bool has_key_ = false;
  std::string key_;
  std::vector<parquet::Value> key_values_;
  // The open range tombstone: its start, deletion and the records written
  // since it opened (see kRangeLagKey).
  const int64_t range_split_records_;
  std::optional<PendingStart> pending_start_;
  DeletionTime pending_deletion_;
  int64_t records_in_range_ = 0;
  int64_t records_ = 0;
};

// Writes `sstable`'s envelope to `output` through a temporary file beside it
// (removed on error). Returns the number of records.
Result<int64_t> ExportSSTable(FileSystem& fs, const SSTable& sstable, const TableSchema& table,
                              const std::string& output, const ExportOptions& options);

// The files of a chain (see SegmentedEnvelopeWriter) as they are written:
// each under a temporary name beside its own, renamed once complete. Unless
// Keep() is called, the destructor removes the file being written and every
// file completed.
class ChainFiles {
 public:
  ChainFiles(FileSystem& fs, std::function<std::string(int)> file_path)
      : fs_(fs), file_path_(std::move(file_path)) {}
  ~ChainFiles();
  ChainFiles(const ChainFiles&) = delete;
  ChainFiles& operator=(const ChainFiles&) = delete;

  // Where to write the next file (its temporary name).
  std::string StartNext();
  // The file started last is complete: renamed to its own name.
  Status Complete();
  size_t completed() const { return completed_.size(); }
  // The completed files, which the destructor then leaves.
  std::vector<std::string> Keep();

 private:
  FileSystem& fs_;
  std::function<std::string(int)> file_path_;
  std::string temporary_;  // the file being written, if any
  std::vector<std::string> completed_;
  bool kept_ = false;
};

// One generation's envelope as a sequence of files, each a complete envelope
// file: a file is ended after the partition that brings it to `max_records`
// records (0: no limit), so no partition is split and the files, read one
// after another (OpenEnvelopeChains), are the generation's records in order.
// `file_path(i)` names the i-th file; each is written through a temporary
// file and renamed when full. Unless Finish succeeds, the destructor removes
// every file written.
class SegmentedEnvelopeWriter : public EnvelopeConsumer {
 public:
  SegmentedEnvelopeWriter(FileSystem& fs, const TableSchema& table, GenerationInfo generation,
                          std::function<std::string(int)> file_path, int64_t max_records, ExportOptions options);
  ~SegmentedEnvelopeWriter() override;

  Status OnPartitionStart(const PartitionHeader& partition) override;
  Status OnRow(const Row& row) override;
  Status OnRangeTombstoneMarker(const RangeTombstoneMarker& marker) override;
  Status OnPartitionEnd() override;

  // Ends the last file (a generation without partitions still gets one) and
  // returns the files' paths.
  Result<std::vector<std::string>> Finish();
  int64_t records() const { return records_ + (writer_ ? writer_->records() : 0); }

 private:
  Status OpenFile();
  Status CloseFile();

  FileSystem& fs_;
  const TableSchema& table_;
  GenerationInfo generation_;
  int64_t max_records_;
  ExportOptions options_;
  ChainFiles files_;
  std::unique_ptr<EnvelopeWriter> writer_;  // closed before files_ removes its file
  int64_t records_ = 0;                     // in the completed files
  std::string last_key_;                    // of the last partition started
  bool has_last_key_ = false;
};

// `sstable`'s envelope through a SegmentedEnvelopeWriter. Returns the files.
Result<std::vector<std::string>> ExportSSTableSegments(FileSystem& fs, const SSTable& sstable,
                                                       const TableSchema& table,
                                                       const std::function<std::string(int)>& segment_path,
                                                       int64_t max_records_per_file, const ExportOptions& options);

// The temporary name ExportSSTable writes `output` under.
std::string TemporaryPath(const std::string& output);

}  // namespace cqlite::envelope
