// The data file a materialize run writes its rows to (one per token range,
// warehouse_files.h): filled a RowBatch at a time in columns
// (RowBatchConverter), opened when the first batch is written, and synced
// when closed. A row appended to the batch can be taken back until the next
// call of batch() (RowBatch::MarkTo).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "iceberg/data_files.h"
#include "iceberg/schema.h"
#include "io/file_system.h"
#include "parquet/row_batch.h"
#include "parquet/writer.h"
#include "util/status.h"

namespace cqlite::materialize {

class BatchedDataFile {
 public:
  // Rows converted into one RowBatch before it is handed to the writer.
  static constexpr int64_t kRowsPerBatch = 8192;

  BatchedDataFile(FileSystem& fs, std::string path, const iceberg::Schema& schema,
                  const parquet::WriterOptions& options)
      : fs_(fs),
        path_(std::move(path)),
        iceberg_schema_(schema),
        parquet_schema_(iceberg::ToParquetSchema(schema)),
        options_(options),
        batch_(parquet_schema_) {}

  const std::string& path() const { return path_; }
  // The position the next row appended gets.
  int64_t next_position() const { return written_ + batch_.num_rows(); }

  // The batch to append the next row to.
  Result<parquet::RowBatch*> batch() {
    if (batch_.num_rows() >= kRowsPerBatch) RETURN_IF_ERROR(Flush());
    return &batch_;
  }

  // The file, written and synced; nullopt (and no file) if no row came.
  Result<std::optional<iceberg::DataFile>> Close() {
    RETURN_IF_ERROR(Flush());
    if (!writer_) return std::optional<iceberg::DataFile>();
    ASSIGN_OR_RETURN(parquet::WriteResult written, writer_->Close());
    RETURN_IF_ERROR(fs_.SyncFile(path_));
    return std::optional<iceberg::DataFile>(iceberg::DescribeDataFile(path_, written, iceberg_schema_));
  }

 private:
  Status Flush() {
    if (batch_.num_rows() == 0) return Status::OK();
    if (!writer_) {
      ASSIGN_OR_RETURN(writer_, parquet::ParquetWriter::Open(fs_, path_, parquet_schema_, options_));
    }
    RETURN_IF_ERROR(writer_->WriteBatch(batch_));
    written_ += batch_.num_rows();
    batch_.Clear();
    return Status::OK();
  }

  FileSystem& fs_;
  std::string path_;
  const iceberg::Schema& iceberg_schema_;
  parquet::Schema parquet_schema_;
  parquet::WriterOptions options_;
  std::unique_ptr<parquet::ParquetWriter> writer_;
  parquet::RowBatch batch_;
  int64_t written_ = 0;
};

}  // namespace cqlite::materialize
