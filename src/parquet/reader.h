// ParquetReader reads Parquet files of the shapes ParquetWriter writes back
// into Value rows: the footer and schema, then row groups one at a time
// (data pages v1 with RLE levels, PLAIN or dictionary values, UNCOMPRESSED,
// SNAPPY or ZSTD), reassembled from repetition/definition levels (Dremel).
// It is used by round-trip tests and to read files CQLite wrote earlier.
// Anything malformed is a Corruption error naming the file and offset;
// other valid Parquet it does not handle is NotSupported.
//
// Memory: one row group's decoded values at a time. The FileSystem passed to
// Open must outlive the reader. Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/file_system.h"
#include "parquet/parquet_format.h"
#include "parquet/schema.h"
#include "parquet/value.h"
#include "util/status.h"

namespace cqlite::parquet {

class ParquetReader {
 public:
  static Result<std::unique_ptr<ParquetReader>> Open(FileSystem& fs, const std::string& path);

  const Schema& schema() const { return schema_; }
  const FileMetaData& metadata() const { return metadata_; }
  int64_t num_rows() const { return metadata_.num_rows; }
  int num_row_groups() const { return static_cast<int>(metadata_.row_groups.size()); }

  // Rows of one row group, each a struct of the top-level fields.
  Result<std::vector<Value>> ReadRowGroup(int index);
  // All rows of the file.
  Result<std::vector<Value>> ReadAll();

 private:
  struct DecodedColumn {
    std::vector<uint32_t> rep_levels;
    std::vector<uint32_t> def_levels;
    std::vector<Value> values;  // one per def_level == max_def_level
    size_t level_pos = 0;
    size_t value_pos = 0;
  };

  ParquetReader(std::string path, std::unique_ptr<RandomAccessFile> file)
      : path_(std::move(path)), file_(std::move(file)) {}
  Status ReadColumnChunk(const ColumnChunk& chunk, const ColumnDescriptor& column, int64_t num_rows,
                         DecodedColumn* out);
  Result<Value> Assemble(const SchemaNode& node, std::vector<DecodedColumn>& columns);
  Status Advance(const SchemaNode& node, std::vector<DecodedColumn>& columns);

  std::string path_;
  std::unique_ptr<RandomAccessFile> file_;
  FileMetaData metadata_;
  Schema schema_;
  LevelPlan plan_;
};

}  // namespace cqlite::parquet
