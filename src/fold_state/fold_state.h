// The fold state (DESIGN D5): what a materialization run needs of the runs
// before it, kept beside the Iceberg table and committed with each snapshot
// (the snapshot summary's `cqlite.fold-state` names its file).
//
//  - The facts of every generation consumed so far: the generation's own
//    SSTable, kept in the warehouse, or envelope files
//    (docs/formats/envelope.md) for merges. Tombstones and timestamps must outlive the
//    run that read them: a later generation may carry older writes that a
//    consumed deletion still shadows, or newer ones that replace a row. They
//    are kept as facts sets, each one source of the fold: a generation's
//    files, or a merge of several generations' (envelope_merge.h). A run
//    merges sets so that it never reads more than its fan-in at once, the
//    smallest first, as a size-tiered compaction does.
//  - The row index: for each row the table shows, in fold order (token,
//    partition key, clustering), its primary key, where it is (data file and
//    position), a hash of its Iceberg values and when it next changes by
//    itself (the earliest expiry of its liveness and cells). A run merges it with the new
//    fold output to decide which rows to append and which positions to delete.
//    It has two layers, as a log-structured store does: the base, which a
//    run that folds every kept generation writes whole, and over it the
//    updates of the runs since (touched_rows.h), each an entry that replaces
//    the base's entry of its key or removes it (an empty data file).
//
// The state file is JSON (format 5; formats 1, one facts file per
// generation, 2, one row index file, 3, envelope facts only, and 4, no
// row index updates, are read too); the row index is a
// chain of Parquet files of at most kRowIndexFileRows entries, read one row
// group at a time and one footer at a time, so that no footer grows with the
// table. Files are never modified once written: a run writes
// new ones and the commit switches to them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cassandra/token.h"
#include "fold/fold_types.h"
#include "fold/value_order.h"
#include "io/file_system.h"
#include "parquet/reader.h"
#include "parquet/row_batch.h"
#include "parquet/value.h"
#include "parquet/writer.h"
#include "util/status.h"

namespace cqlite::materialize {

struct ConsumedGeneration {
  std::string identity;  // "<table id>/<sstable name>/<Data.db CRC32>"
  int64_t max_timestamp = 0;  // Statistics.db's, microseconds
};

// How a facts set holds its facts.
enum class FactsForm {
  // A consumed generation's own SSTable, kept: its components (Data.db,
  // Statistics.db, CompressionInfo.db or CRC.db, TOC.txt, ...) linked or
  // copied into the warehouse. Read with the SSTable reader, as compact as
  // Cassandra wrote it.
  kSSTable,
  // Envelope files read one after another: a merge of several generations
  // (envelope_merge.h), or a generation exported by a CQLite before fold
  // state format 4.
  kEnvelope,
};

// One source of the fold.
struct FactsSet {
  FactsForm form = FactsForm::kEnvelope;
  // kSSTable: the kept components, one of them the Data.db; kEnvelope: the
  // chain, in order.
  std::vector<std::string> files;
  int generations = 1;  // more than one: a merged facts set
  int64_t bytes = 0;    // of its files
  // The identities (ConsumedGeneration::identity) of the generations whose
  // facts it holds; empty where not known (sets written before they were
  // recorded, and merges of such sets).
  std::vector<std::string> identities;
};

// The files of the row index's two layers, each in fold order.
struct RowIndexFiles {
  std::vector<std::string> base;
  std::vector<std::string> updates;
};

struct FoldState {
  std::vector<ConsumedGeneration> generations;
  std::vector<FactsSet> facts;
  std::vector<std::string> row_index;  // the row index's files, in fold order; none: no row yet
  // The update layer over `row_index`, in fold order, and its entries.
  std::vector<std::string> row_index_updates;
  int64_t row_index_update_count = 0;
  int64_t row_count = 0;
  // The earliest time (seconds) a visible cell or row expires; INT64_MAX if none.
  int64_t next_expiry = INT64_MAX;
  int64_t folded_at = 0;  // the `now` TTLs were evaluated at, seconds

  int64_t DeltaHorizonMicros() const;
  RowIndexFiles row_index_files() const { return {row_index, row_index_updates}; }
  // Every file the state names: its facts sets' files and the row index's.
  std::vector<std::string> ReferencedFiles() const;
};

std::string FoldStateToJson(const FoldState& state);
Result<FoldState> FoldStateFromJson(const std::string& text, const std::string& path);

// A row index entry's expiry where its file does not record one (written
// before row index files did): the row may expire at any time.
inline constexpr int64_t kExpiryUnknown = INT64_MIN;

struct RowIndexEntry {
  std::string partition_key;  // the stored key bytes
  FoldClustering clustering;
  std::string data_file;      // empty: an update that removes the key's row
  int64_t position = 0;
  uint64_t hash = 0;
  // When the row's liveness or one of its cells expires first (seconds),
  // INT64_MAX when none does; kExpiryUnknown.
  int64_t expires = INT64_MAX;

  bool removes() const { return data_file.empty(); }
};

// Orders `entry` against the row of partition `key` at `clustering` in fold
// order: partition token and key, then clustering. Negative, 0 or positive.
inline int CompareToRowIndexEntry(Partitioner partitioner, const ClusteringOrder& order, const RowIndexEntry& entry,
                                  std::string_view key, const FoldClustering& clustering) {
  auto key_order = ComparePartitionKeys(partitioner, entry.partition_key, key);
  if (key_order != std::strong_ordering::equal) return key_order < 0 ? -1 : 1;
  return order.CompareRows(entry.clustering, clustering);
}

// The bytes a row index file holds for a clustering: each component a
// presence byte, then (if present) a 4-byte length and the value.
void EncodeRowIndexClustering(const FoldClustering& clustering, std::string* out);
// The same for a clustering the SSTable reader hands on (views of its values).
void EncodeRowIndexClustering(const Clustering& clustering, std::string* out);
// Its inverse; false when `bytes` are malformed.
bool DecodeRowIndexClustering(std::string_view bytes, FoldClustering* out);

inline constexpr int64_t kRowIndexFileRows = int64_t{1} << 24;

class RowIndexWriter {
 public:
  // Writes files `file_path(0)`, `file_path(1)`, ... of at most
  // `rows_per_file` entries each (the first when the first entry comes).
  RowIndexWriter(FileSystem& fs, std::function<std::string(int)> file_path,
                 int64_t rows_per_file = kRowIndexFileRows);
  ~RowIndexWriter();
  // REQUIRES: entries are added in fold order.
  Status Add(const RowIndexEntry& entry) {
    return Add(entry.partition_key, entry.clustering, entry.data_file, entry.position, entry.hash, entry.expires);
  }
  // The same for an entry in pieces, so that none is copied to make one.
  Status Add(std::string_view partition_key, const FoldClustering& clustering, std::string_view data_file,
             int64_t position, uint64_t hash, int64_t expires);
  // The same with the clustering as the index holds it (EncodeRowIndexClustering).
  Status AddEncoded(std::string_view partition_key, std::string_view clustering, std::string_view data_file,
                    int64_t position, uint64_t hash, int64_t expires);
  // Ends the last file; the files written, in order.
  Result<std::vector<std::string>> Close();
  int64_t count() const { return count_; }

 private:
  FileSystem& fs_;
  std::function<std::string(int)> file_path_;
  int64_t rows_per_file_;
  // Entries are gathered in columns, a row group's worth at a time.
  Status Flush();

  std::unique_ptr<parquet::ParquetWriter> writer_;  // of files_.back()
  parquet::RowBatch batch_;                         // entries not yet handed to writer_
  std::string clustering_;                          // an entry's encoded clustering
  std::vector<std::string> files_;
  int64_t rows_in_file_ = 0;
  int64_t count_ = 0;
};

class RowIndexReader {
 public:
  // The files' entries one after another; no file reads as an index without
  // entries. Holds one file's footer at a time.
  static Result<std::unique_ptr<RowIndexReader>> Open(FileSystem& fs, std::vector<std::string> files);
  // The same from the row group where the entries of Murmur3 token `token`
  // may begin (of a row index of a Murmur3 table, in token order): the last
  // one whose first entry is before the token (or the first), found from a
  // guess at the token's place and the first keys of a few row groups. The
  // entries before `token` it reads are those of that row group, and of the
  // ones after it when the guess fell short.
  static Result<std::unique_ptr<RowIndexReader>> OpenFromToken(FileSystem& fs, std::vector<std::string> files,
                                                               int64_t token);
  // The next entry in fold order, or false at the end.
  Result<bool> Next(RowIndexEntry* entry);
  // The same without copying: views of the entry's bytes, its clustering as
  // the file holds it (EncodeRowIndexClustering), valid until the next call.
  struct EntryView {
    std::string_view partition_key;
    std::string_view clustering;
    std::string_view data_file;
    int64_t position = 0;
    uint64_t hash = 0;
    int64_t expires = INT64_MAX;

    bool removes() const { return data_file.empty(); }  // as RowIndexEntry::removes
  };
  Result<bool> NextView(EntryView* entry);
  // The entries not read yet of the current row group, or else of the next
  // one, column by column (BYTE_ARRAY: partition_key, clustering, data_file;
  // INT64: position, hash, expires; expires null in a file without it),
  // valid until the next call; false at the end.
  struct EntryColumns {
    const parquet::FlatColumn* partition_key = nullptr;
    const parquet::FlatColumn* clustering = nullptr;
    const parquet::FlatColumn* data_file = nullptr;
    const parquet::FlatColumn* position = nullptr;
    const parquet::FlatColumn* hash = nullptr;
    const parquet::FlatColumn* expires = nullptr;
    size_t begin = 0, end = 0;  // the rows of the columns that are these entries

    bool removes(size_t row) const { return data_file->Bytes(row).empty(); }  // as RowIndexEntry::removes
    int64_t expiry(size_t row) const { return expires ? expires->ints[row] : kExpiryUnknown; }
  };
  Result<bool> NextEntries(EntryColumns* entries);
  // The same, passing over each row group whose partition keys `wanted`
  // turns down without decoding its other columns (a lookup of a few keys
  // reads little more than the key column of the rest), and ending where it
  // says that no later row group is wanted.
  enum class Wanted { kYes, kNo, kNoneFromHere };
  using KeyFilter = std::function<Wanted(const parquet::FlatColumn& partition_keys)>;
  Result<bool> NextEntries(EntryColumns* entries, const KeyFilter& wanted);

 private:
  RowIndexReader(FileSystem& fs, std::vector<std::string> files) : fs_(fs), files_(std::move(files)) {}
  Status OpenFile(size_t index);
  // Reads row groups (those `wanted` takes, when not null) until one has an
  // entry not read yet; false at the end.
  Result<bool> FillGroup(const KeyFilter* wanted = nullptr);

  FileSystem& fs_;
  std::vector<std::string> files_;
  size_t file_ = 0;
  std::unique_ptr<parquet::ParquetReader> reader_;  // of files_[file_]
  int next_group_ = 0;
  bool stopped_ = false;  // a KeyFilter wanted none from here
  std::vector<parquet::FlatColumn> columns_;  // of row group next_group_ - 1
  size_t rows_ = 0;
  size_t next_row_ = 0;
};

// The merges that leave at most `fan_in` (at least 2) of the sets of these
// sizes: each merge lists the indexes it merges, into a set that gets the
// next index (sizes.size(), then one more per merge). Nothing is merged while
// the sets are within the fan-in. Beyond it a merge takes the fewest
// smallest sets that bring the count down, and goes on with the next
// smallest while each is no larger than those taken together (at most fan_in
// in all): runs that each add a small set merge small sets among themselves,
// and a large set is merged again only when as much has accumulated.
std::vector<std::vector<size_t>> PlanFactsMerges(const std::vector<int64_t>& sizes, int fan_in);

}  // namespace cqlite::materialize
