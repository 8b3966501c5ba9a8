// ParquetWriter writes rows (Value trees, see value.h) into a Parquet file
// with the schema given at Open. It builds one writer per leaf column from the
// schema and shreds each row into repetition and definition levels (Dremel).
// Pages are data pages v1 (RLE levels; RLE_DICTIONARY values with a PLAIN
// dictionary page, or PLAIN, or a DELTA encoding a column asks for),
// compressed with UNCOMPRESSED, SNAPPY or ZSTD, each with the CRC-32 of its
// bytes; the footer records a CRC-32 of itself (kFooterChecksumKey).
// Memory is bounded by one row group's buffered pages: a row group is written
// out when it reaches row_group_size bytes or row_group_rows rows.
//
// WriteBatch takes rows already shredded into leaf columns (RowBatch, see
// row_batch.h) and writes them column by column: the fast way to write many
// rows. Rows written either way may be mixed; both produce the same pages.
//
// Close() writes the footer and returns what an Iceberg manifest needs about
// the file. Typical use:
//   ASSIGN_OR_RETURN(auto writer, ParquetWriter::Open(fs, path, schema, options));
//   RETURN_IF_ERROR(writer->WriteRow(Value::Struct({...})));
//   ASSIGN_OR_RETURN(WriteResult result, writer->Close());
// Not thread-safe. After an error the file is incomplete; discard it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/codec.h"
#include "io/file_system.h"
#include "parquet/parquet_format.h"
#include "parquet/row_batch.h"
#include "parquet/schema.h"
#include "parquet/value.h"
#include "util/status.h"
#include "util/version.h"

namespace cqlite::parquet {

struct WriterOptions {
  CompressionCodec compression = CompressionCodec::kZstd;  // kUncompressed, kSnappy or kZstd
  int compression_level = 0;                               // ZSTD only, 1-22; 0 = 3 (Cassandra's default)
  size_t page_size = 1 << 20;                              // target uncompressed bytes per data page
  size_t row_group_size = 128 << 20;                       // target buffered bytes per row group
  int64_t row_group_rows = 0;                              // rows per row group; 0 = no limit
  bool enable_dictionary = true;
  // Fall back to PLAIN beyond this (and, per column chunk, once more than half
  // of its first 8192 or more values were distinct).
  size_t dictionary_page_size_limit = 1 << 20;
  // Leaf columns, by dotted path, whose values take a DELTA encoding instead
  // of the dictionary and PLAIN: kDeltaBinaryPacked (INT32, INT64 columns:
  // sorted or slowly changing numbers), kDeltaLengthByteArray or
  // kDeltaByteArray (BYTE_ARRAY columns; the latter for sorted strings).
  std::map<std::string, Encoding> column_encodings;
  // Chunk statistics leave out min/max values longer than this (null_count
  // stays), so huge values do not bloat the footer. ColumnMetrics keep them.
  size_t max_statistics_size = 4096;
  std::vector<KeyValue> key_value_metadata;  // footer metadata
  // Files CQLite writes from version 0.2.0 on carry footer checksums, and
  // the reader requires them of such files (ParquetReader).
  std::string created_by = std::string("cqlite version ") + kCqliteVersion;
};

// Per leaf column, over the whole file. Counts follow the column chunks'
// num_values and null_count (levels, so an empty or null list counts one null
// in each of its leaf columns), as Iceberg's footer metrics do.
struct ColumnMetrics {
  std::optional<int32_t> field_id;
  std::vector<std::string> path;
  int64_t value_count = 0;
  int64_t null_count = 0;
  int64_t nan_count = 0;  // FLOAT and DOUBLE only
  // Statistics encodings (PLAIN, no length prefix; little-endian numbers,
  // raw bytes): the same bytes Iceberg's single-value serialization uses for
  // boolean, int, long, float, double, date, time, timestamp, string, uuid,
  // fixed and binary. Absent when the column has no non-null, non-NaN value.
  std::optional<std::string> lower_bound;
  std::optional<std::string> upper_bound;
};

struct WriteResult {
  uint64_t file_size = 0;
  int64_t num_rows = 0;
  int num_row_groups = 0;
  std::vector<ColumnMetrics> columns;  // leaf columns in schema order
};

class LeafColumnWriter;

class ParquetWriter {
 public:
  // Creates (or truncates) `path` on `fs` and writes the leading magic.
  // `fs` must outlive the writer.
  static Result<std::unique_ptr<ParquetWriter>> Open(FileSystem& fs, const std::string& path, Schema schema,
                                                     WriterOptions options = {});
  ~ParquetWriter();

  // A struct value with one value per top-level field. InvalidArgument (and
  // nothing written) if it does not fit the schema.
  Status WriteRow(const Value& row);
  // The rows of `batch` (built from a schema equal to this writer's).
  // InvalidArgument, with nothing written, if its columns do not match the
  // schema or their levels and values do not add up to batch.num_rows()
  // rows. Row groups are cut between rows as WriteRow cuts them, except that
  // the row_group_size check happens every kBatchSliceRows rows.
  Status WriteBatch(const RowBatch& batch);
  static constexpr int64_t kBatchSliceRows = 4096;
  // Writes the buffered rows as a row group now (no-op without rows).
  Status FlushRowGroup();
  // Writes the last row group and the footer, and closes the file.
  Result<WriteResult> Close();

  const Schema& schema() const { return schema_; }
  int64_t num_rows() const { return num_rows_; }

 private:
  ParquetWriter(std::string path, Schema schema, WriterOptions options, std::unique_ptr<WritableFile> file);
  Status CheckBatch(const RowBatch& batch) const;
  Status Validate(const SchemaNode& node, const Value& value, std::vector<std::string_view>* path) const;
  Status EndRows(int64_t rows, size_t buffered);

  std::string path_;
  Schema schema_;
  WriterOptions options_;
  std::unique_ptr<WritableFile> file_;
  LevelPlan plan_;
  std::vector<std::unique_ptr<LeafColumnWriter>> leaves_;
  FileMetaData metadata_;
  int64_t offset_ = 0;
  int64_t num_rows_ = 0;
  int64_t row_group_rows_ = 0;
  bool closed_ = false;
};

}  // namespace cqlite::parquet
