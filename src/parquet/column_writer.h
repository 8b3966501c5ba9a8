// Internal to the Parquet writer: the writer of one leaf column. It receives
// shredded (repetition level, definition level, value) triples, cuts them
// into data pages (v1) of about WriterOptions::page_size bytes at record
// boundaries, dictionary-encodes values until the dictionary outgrows its
// limit (then falls back to PLAIN), compresses each page, and keeps the
// finished pages of the current row group in memory until FlushChunk writes
// them out. It also keeps the chunk's statistics and the file's metrics.
// Not thread-safe; owned by ParquetWriter.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "io/file_system.h"
#include "parquet/parquet_format.h"
#include "parquet/schema.h"
#include "parquet/value.h"
#include "parquet/writer.h"

namespace cqlite::parquet {

class LeafColumnWriter {
 public:
  LeafColumnWriter(const ColumnDescriptor& column, const WriterOptions& options);

  // value is non-null iff def_level == max_def_level.
  void Add(int rep_level, int def_level, const Value* value);
  // Called between records: closes the page if it is big enough.
  Status EndRecord();
  // Bytes held for the current row group (finished pages plus an estimate of the open one).
  size_t BufferedBytes() const;

  // Closes the open page and appends the chunk (dictionary page first) at
  // file offset *offset, which it advances; fills *chunk and resets for the
  // next row group.
  Status FlushChunk(WritableFile& file, int64_t* offset, ColumnChunk* chunk);

  ColumnMetrics Metrics() const;

 private:
  struct Page {
    std::string bytes;              // header + compressed body
    int64_t uncompressed_size = 0;  // header + uncompressed body
    Encoding encoding = Encoding::kPlain;
  };
  Status FinishPage();
  Status AddPage(PageType type, std::string body, int32_t num_values, Encoding encoding, bool front);
  void UpdateBounds(const std::string& bytes);
  void FallBackToPlain();

  const ColumnDescriptor& column_;
  const Field& field_;
  const WriterOptions& options_;
  const Codec* codec_;
  bool is_float_;

  // The open page.
  std::vector<uint32_t> rep_levels_;
  std::vector<uint32_t> def_levels_;
  std::string plain_values_;
  std::vector<bool> bool_values_;
  std::vector<uint32_t> indices_;
  size_t page_values_ = 0;  // non-null values in the open page

  // The current chunk.
  bool use_dictionary_;
  std::unordered_map<std::string, uint32_t> dictionary_;
  std::string dictionary_plain_;
  bool dictionary_pages_written_ = false;
  std::vector<Page> pages_;
  size_t pages_bytes_ = 0;
  int64_t chunk_num_values_ = 0;
  int64_t chunk_null_count_ = 0;
  std::string chunk_min_, chunk_max_;
  bool chunk_has_bounds_ = false;

  // The whole file.
  ColumnMetrics metrics_;
  bool file_has_bounds_ = false;
};

}  // namespace cqlite::parquet
