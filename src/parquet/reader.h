// ParquetReader reads Parquet files of the shapes ParquetWriter writes back
// into Value rows: the footer and schema, then row groups one at a time
// (data pages v1 with RLE levels; PLAIN, dictionary or DELTA values; UNCOMPRESSED,
// SNAPPY or ZSTD), reassembled from repetition/definition levels (Dremel).
// It is used by round-trip tests and to read files CQLite wrote earlier.
// AppendRowGroup copies rows into a RowBatch leaf column by leaf column.
// Page CRC-32s and the footer's own checksum (kFooterChecksumKey), when a
// file has them, are verified. Anything malformed is a Corruption error
// naming the file and offset; other valid Parquet it does not handle is
// NotSupported.
//
// Memory: one row group's decoded values at a time, plus the rows assembled
// from them (ReadRowGroup) or one row (StartRowGroup / NextRow). The
// FileSystem passed to Open must outlive the reader. Not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <memory>
#include <string>
#include <vector>

#include "io/file_system.h"
#include "parquet/encoding.h"
#include "parquet/parquet_format.h"
#include "parquet/row_batch.h"
#include "parquet/schema.h"
#include "parquet/value.h"
#include "util/status.h"
#include "util/uninitialized_vector.h"

namespace cqlite::parquet {

// One column of a row group as ReadFlatColumns decodes it.
struct FlatColumn {
  UninitializedVector<int64_t> ints;  // an INT64 column's values
  ByteArrays strings;         // a BYTE_ARRAY column's values, unless dictionary-encoded:
  ByteArrays dictionary;
  std::vector<uint32_t> indices;  // then each row's entry of the dictionary

  // Row `row`'s value of a BYTE_ARRAY column.
  std::string_view Bytes(size_t row) const {
    return indices.empty() ? strings[row] : dictionary[indices[row]];
  }
  size_t size() const { return ints.size() + (indices.empty() ? strings.size() : indices.size()); }
};

class ParquetReader {
 public:
  static Result<std::unique_ptr<ParquetReader>> Open(FileSystem& fs, const std::string& path);

  const Schema& schema() const { return schema_; }
  const FileMetaData& metadata() const { return metadata_; }
  int64_t num_rows() const { return metadata_.num_rows; }
  int num_row_groups() const { return static_cast<int>(metadata_.row_groups.size()); }

  // Rows of one row group, each a struct of the top-level fields.
  Result<std::vector<Value>> ReadRowGroup(int index);
  // The same row by row: StartRowGroup decodes the row group's column chunks,
  // and each NextRow assembles the next row, false after the last one (when
  // the decoded values are released). Starting another row group abandons
  // the one before.
  Status StartRowGroup(int index);
  Result<bool> NextRow(Value* row);
  // All rows of the file.
  Result<std::vector<Value>> ReadAll();
  // The values of one row group column by column, as plain C++ values and
  // without assembling rows: (*columns)[c] holds every row's value of
  // top-level field c. REQUIRES: every field is a required INT64 or
  // BYTE_ARRAY (InvalidArgument otherwise). Reuses the columns' buffers.
  Status ReadFlatColumns(int index, std::vector<FlatColumn>* columns);
  // The same for top-level field `field` alone, so that a reader can look
  // at one column of a row group before deciding to read the others.
  Status ReadFlatColumn(int index, int field, FlatColumn* column);
  // The rows of row group `index` that `keep` (given a row's number within
  // the row group, in order) takes, appended to `batch` with their levels as
  // the file holds them, one leaf column decoded at a time: a copy of rows
  // into a file of the same schema without assembling them. REQUIRES:
  // `batch` was made from this file's schema (InvalidArgument when its leaf
  // columns differ).
  Status AppendRowGroup(int index, const std::function<bool(int64_t row)>& keep, RowBatch* batch);

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
  // Checks the footer against the CRC-32 CQLite's writer records in it
  // (kFooterChecksumKey), and drops that entry from the metadata.
  Status VerifyFooterChecksum(std::vector<uint8_t>& footer, uint64_t footer_offset);
  bool checked_pages_ = false;  // the footer had its checksum: pages are read exactly (ParsePageHeader)
  // What a column chunk holds, page by page: a dictionary page's PLAIN
  // values, or a data page's `count` present values (after its levels, which
  // go to `levels` when it is not null; a column with levels needs it).
  struct PageValues {
    bool dictionary = false;
    Encoding encoding = Encoding::kPlain;  // PLAIN_DICTIONARY reads as RLE_DICTIONARY
    std::span<const uint8_t> values;
    size_t count = 0;
    const std::string& what;  // names the file, column and page
  };
  Status ReadPages(const ColumnChunk& chunk, const ColumnDescriptor& column, DecodedColumn* levels,
                   const std::function<Status(const PageValues&)>& visit);
  // Decodes the pages of one column chunk in turn: a dictionary page's
  // values are kept for the data pages after it.
  class PageDecoder {
   public:
    explicit PageDecoder(const Field& field) : field_(field) {}
    // Appends a data page's values to `values` (a dictionary page's to none).
    Status Decode(const PageValues& page, std::vector<Value>* values);
    // Calls `visit` with each of a data page's values in order; those of a
    // dictionary-encoded page are not copied.
    Status ForEach(const PageValues& page, const std::function<Status(const Value&)>& visit);

   private:
    const Field& field_;
    std::vector<Value> dictionary_;
    std::vector<uint32_t> indices_;
    std::vector<Value> values_;  // ForEach's decoded values of a page without a dictionary
  };
  Status ReadColumnChunk(const ColumnChunk& chunk, const ColumnDescriptor& column, int64_t num_rows,
                         DecodedColumn* out);
  Result<Value> Assemble(const SchemaNode& node, std::vector<DecodedColumn>& columns);
  Status Advance(const SchemaNode& node, std::vector<DecodedColumn>& columns);

  std::string path_;
  std::unique_ptr<RandomAccessFile> file_;
  FileMetaData metadata_;
  Schema schema_;
  LevelPlan plan_;
  // The row group StartRowGroup opened.
  int group_ = -1;
  int64_t group_rows_left_ = 0;
  std::vector<DecodedColumn> group_columns_;
};

}  // namespace cqlite::parquet
