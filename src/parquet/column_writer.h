// Internal to the Parquet writer: the writer of one leaf column. It receives
// shredded (repetition level, definition level, value) triples, one at a time
// (Add, from WriteRow) or a column batch's worth (AddBatch, from WriteBatch)
// through the same typed code, so both give the same pages. It cuts them into
// data pages (v1) of about WriterOptions::page_size bytes at record
// boundaries, dictionary-encodes values until the dictionary outgrows its
// limit or most values turn out distinct (then falls back to PLAIN: after
// 8192 values of a chunk, when the dictionary holds more than half of the
// values seen), or encodes them as WriterOptions::column_encodings asks (a
// DELTA encoding, from the page's PLAIN bytes), compresses each page, and keeps the finished pages of the
// current row group in memory until FlushChunk writes them out. It also keeps
// the chunk's statistics (min/max move only when a value is new to the
// dictionary, or per value once PLAIN) and the file's metrics.
// Not thread-safe; owned by ParquetWriter.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "io/file_system.h"
#include "parquet/parquet_format.h"
#include "parquet/row_batch.h"
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

  // Where AddBatch continues in a ColumnBatch.
  struct BatchCursor {
    size_t level = 0;  // next level
    size_t value = 0;  // next non-null value
  };
  // Adds the next `records` records of `batch` from *cursor, which it
  // advances, ending each record as EndRecord does (so the pages come out as
  // if the records had been added one by one with Add and EndRecord).
  // REQUIRES: the batch was checked by ParquetWriter (levels in range, values
  // and records enough) and its type is this column's.
  Status AddBatch(const ColumnBatch& batch, BatchCursor* cursor, int64_t records);

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
  size_t OpenPageBytes() const {
    return page_levels_ * level_bits_ / 8 + plain_values_.size() + bool_values_.size() / 8 +
           indices_.size() * index_width_ / 8;
  }
  // Whether the end of a record must close the page or give up the
  // dictionary. Evaluated in full only when it could have become true since
  // the last time: once page_levels_ reaches check_at_levels_ (before which
  // the page cannot fill) or after the dictionary grew.
  bool RecordEndNeedsWork() {
    if (page_levels_ < check_at_levels_ && !dictionary_grew_) return false;
    return RecordEndNeedsWorkFull();
  }
  bool RecordEndNeedsWorkFull();
  // The work RecordEndNeedsWork asked for.
  Status EndRecordSlow();

  void AddLevels(int rep_level, int def_level) {
    if (column_.max_rep_level > 0) rep_levels_.push_back(static_cast<uint16_t>(rep_level));
    if (column_.max_def_level > 0) def_levels_.push_back(static_cast<uint16_t>(def_level));
    ++page_levels_;
    ++chunk_num_values_;
  }
  void AddNullValue() { ++chunk_null_count_; }
  // Non-null values (after AddLevels).
  template <typename T>
  void AddFixed(T v);
  void AddBytes(std::string_view v);
  void AddBool(bool v);
  template <typename Append>
  Status AddBatchRecords(const ColumnBatch& batch, BatchCursor* cursor, int64_t records, Append append);

  Status FinishPage();
  // Appends the open page's PLAIN values (plain_values_) in value_encoding_.
  void AppendDeltaValues(std::string* body);
  bool UsesDictionary() const {
    return options_.enable_dictionary && field_.physical_type != PhysicalType::kBoolean &&
           value_encoding_ == Encoding::kPlain;
  }
  Status AddPage(PageType type, std::string_view body, int32_t num_values, Encoding encoding, bool front);
  template <typename T>
  void UpdateFixedBounds(T v);
  void UpdateBytesBounds(std::string_view bytes);
  // CompareStatistics for this column, inlined for the common orders.
  int CompareBounds(std::string_view a, std::string_view b) const;
  // Widens the file's bounds in *metrics by the current chunk's.
  void MergeChunkBounds(ColumnMetrics* metrics) const;
  // The dictionary index of a value, adding it to the dictionary (and the
  // chunk's bounds, which only a new distinct value can widen) when new.
  template <typename T>
  uint32_t FixedDictionaryIndex(T v);
  uint32_t BytesDictionaryIndex(std::string_view v);
  void AddedDictionaryEntry();
  void ClearDictionary();

  static constexpr int64_t kDictionaryProbeValues = 8192;

  const ColumnDescriptor& column_;
  const Field& field_;
  const WriterOptions& options_;
  const Codec* codec_;
  bool is_fixed_;  // INT32, INT64, FLOAT or DOUBLE: dictionary keys are the value's bits
  enum class BoundsOrder { kInt32, kInt64, kFloat, kDouble, kBytes, kOther };
  BoundsOrder order_ = BoundsOrder::kOther;

  size_t level_bits_;  // bits of a repetition plus a definition level

  // The open page. Levels are kept only when their maximum is above 0.
  std::vector<uint16_t> rep_levels_;
  std::vector<uint16_t> def_levels_;
  size_t page_levels_ = 0;
  std::string plain_values_;
  std::vector<bool> bool_values_;
  std::vector<uint32_t> indices_;
  size_t index_width_ = 1;        // bits per index, as OpenPageBytes estimates it
  size_t check_at_levels_ = 0;    // see RecordEndNeedsWork
  bool dictionary_grew_ = false;  // since RecordEndNeedsWorkFull last ran
  size_t page_values_ = 0;        // non-null values in the open page
  std::string page_body_;         // scratch: the page being assembled
  std::string compressed_;        // scratch: its compressed body

  // The value encoding the options ask for; kPlain: the dictionary, then PLAIN.
  Encoding value_encoding_ = Encoding::kPlain;
  std::vector<int32_t> delta_int32s_;          // scratch: a DELTA page's values
  std::vector<int64_t> delta_int64s_;
  std::vector<std::string_view> delta_bytes_;

  // The current chunk.
  bool use_dictionary_;
  // The dictionary: its distinct values in index order (dictionary_plain_,
  // the dictionary page's body), found through an open-addressing table
  // (power-of-two size, linear probing, at most half full).
  struct DictionaryEntry {
    uint64_t hash;
    uint32_t offset;  // value bytes in dictionary_plain_ (after the length prefix of BYTE_ARRAY)
    uint32_t size;
  };
  // tag: a fixed-width value's bits (zero-extended), so a probe reads the
  // slot only; a byte value's hash, confirmed against the entry.
  struct DictionarySlot {
    uint64_t tag = 0;
    uint32_t index_plus_one = 0;  // 0: empty
  };
  std::vector<DictionaryEntry> dictionary_;
  std::vector<DictionarySlot> dictionary_slots_;
  std::string dictionary_plain_;
  // The last value looked up (runs of equal values skip the table).
  uint64_t last_tag_ = 0;
  uint32_t last_index_plus_one_ = 0;
  bool dictionary_pages_written_ = false;
  std::vector<Page> pages_;
  size_t pages_bytes_ = 0;
  int64_t chunk_num_values_ = 0;  // levels
  int64_t chunk_null_count_ = 0;
  std::string chunk_min_, chunk_max_;
  bool chunk_has_bounds_ = false;
  int64_t nan_count_ = 0;

  // The whole file: bounds of the chunks flushed so far (Metrics adds the
  // current chunk's).
  ColumnMetrics metrics_;
};

}  // namespace cqlite::parquet
