// Internal to the Parquet writer: the writer of one leaf column. It receives
// shredded (repetition level, definition level, value) triples, cuts them
// into data pages (v1) of about WriterOptions::page_size bytes at record
// boundaries, dictionary-encodes values until the dictionary outgrows its
// limit or most values turn out distinct (then falls back to PLAIN: after
// 8192 values of a chunk, when the dictionary holds more than half of the
// values seen), compresses each page, and keeps the
// finished pages of the current row group in memory until FlushChunk writes
// them out. It also keeps the chunk's statistics and the file's metrics.
// Not thread-safe; owned by ParquetWriter.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
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
  // Called between records: closes the page if it is big enough. Adds
  // BufferedBytes() (after that) to *buffered.
  Status EndRecord(size_t* buffered);
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
  // An estimate of the open page's encoded size.
  size_t OpenPageBytes() const;
  Status FinishPage();
  Status AddPage(PageType type, std::string body, int32_t num_values, Encoding encoding, bool front);
  void UpdateBounds(std::string_view bytes);
  // CompareStatistics for this column, inlined for the common orders.
  int CompareBounds(std::string_view a, std::string_view b) const;
  // Widens the file's bounds in *metrics by the current chunk's.
  void MergeChunkBounds(ColumnMetrics* metrics) const;
  // The dictionary index of the value whose PLAIN bytes (without a length
  // prefix) are `key`, adding it to the dictionary when new.
  uint32_t DictionaryIndex(std::string_view key, const Value& value);
  void ClearDictionary();

  const ColumnDescriptor& column_;
  const Field& field_;
  const WriterOptions& options_;
  const Codec* codec_;
  bool is_float_;
  enum class BoundsOrder { kInt32, kInt64, kFloat, kDouble, kBytes, kOther };
  BoundsOrder order_ = BoundsOrder::kOther;

  size_t level_bits_;  // bits of a repetition plus a definition level

  // The open page.
  std::vector<uint32_t> rep_levels_;
  std::vector<uint32_t> def_levels_;
  std::string plain_values_;
  std::vector<bool> bool_values_;
  std::vector<uint32_t> indices_;
  size_t page_values_ = 0;  // non-null values in the open page

  // The current chunk.
  bool use_dictionary_;
  // The dictionary: its distinct values in index order (dictionary_plain_,
  // the dictionary page's body), found through an open-addressing table
  // (power-of-two size, linear probing). Entries point at their value bytes
  // inside dictionary_plain_.
  struct DictionaryEntry {
    uint64_t hash;
    uint64_t tag;  // see DictionarySlot
    uint32_t offset;
    uint32_t size;
  };
  // tag: the key's bytes when fixed_width_key_, otherwise its hash.
  struct DictionarySlot {
    uint64_t tag = 0;
    uint32_t index_plus_one = 0;  // 0: empty
  };
  bool fixed_width_key_ = false;
  std::vector<DictionaryEntry> dictionary_;
  std::vector<DictionarySlot> dictionary_slots_;
  std::string dictionary_plain_;
  std::string key_scratch_;  // the PLAIN bytes of a fixed-width value
  bool dictionary_pages_written_ = false;
  std::vector<Page> pages_;
  size_t pages_bytes_ = 0;
  int64_t chunk_num_values_ = 0;
  int64_t chunk_null_count_ = 0;
  std::string chunk_min_, chunk_max_;
  bool chunk_has_bounds_ = false;

  // The whole file: bounds of the chunks flushed so far (Metrics adds the
  // current chunk's).
  ColumnMetrics metrics_;
};

}  // namespace cqlite::parquet
