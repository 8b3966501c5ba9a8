#include "materialize/touched_rows.h"

#include <algorithm>
#include <atomic>
#include <barrier>
#include <cstring>
#include <optional>
#include <unordered_map>

#include "cassandra/value_format.h"
#include "fold/table_fold.h"
#include "fold/value_order.h"
#include "iceberg/schema.h"
#include "materialize/batched_data_file.h"
#include "fold_state/facts.h"
#include "materialize/position_deletes.h"
#include "util/strings.h"

namespace cqlite::materialize {

namespace {

constexpr int64_t kProgressEvery = 200000;

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// A row the new facts hold, and where the table has it now.
struct TouchedRow {
  uint32_t partition = 0;   // into TouchedRows::partitions
  std::string clustering;   // as the row index holds it (EncodeRowIndexClustering)
  FoldClustering decoded;   // the same, for ordering
  bool indexed = false;     // the row index has a current entry for it
  int64_t expires = INT64_MAX;  // of that entry
  int data_file = 0;        // into TouchedRows::data_files
  int64_t position = 0;
  uint64_t hash = 0;
};

// A clustering's fingerprint as the lookups compare it: its last 8 bytes (an
// encoded clustering ends with its last component's value) and its length.
uint64_t Fingerprint(std::string_view clustering) {
  uint64_t tail = 0;
  if (clustering.size() >= 8) {
    std::memcpy(&tail, clustering.data() + clustering.size() - 8, 8);
  } else {
    for (char c : clustering) tail = (tail << 8) | static_cast<uint8_t>(c);
  }
  return tail ^ (clustering.size() * 0x9e3779b97f4a7c15ULL);
}

// The touched rows of one partition, found by their clusterings' fingerprints.
class PartitionRows {
 public:
  void Add(TouchedRow* row) { rows_.push_back({Fingerprint(row->clustering), row}); }
  void Seal() {
    std::sort(rows_.begin(), rows_.end(), [](const Row& a, const Row& b) { return a.fingerprint < b.fingerprint; });
    for (const Row& row : rows_) filter_[FilterBit(row.fingerprint) >> 6] |= uint64_t{1} << (FilterBit(row.fingerprint) & 63);
  }
  // The row at `clustering`, or null. Most clusterings an index scan meets
  // are not touched: a 256-bit filter turns nearly all of them away.
  TouchedRow* Find(std::string_view clustering) const {
    uint64_t fingerprint = Fingerprint(clustering);
    unsigned bit = FilterBit(fingerprint);
    if ((filter_[bit >> 6] & (uint64_t{1} << (bit & 63))) == 0) return nullptr;
    auto it = std::lower_bound(rows_.begin(), rows_.end(), fingerprint,
                               [](const Row& a, uint64_t f) { return a.fingerprint < f; });
    for (; it != rows_.end() && it->fingerprint == fingerprint; ++it) {
      if (it->row->clustering == clustering) return it->row;
    }
    return nullptr;
  }
  void Clear() {
    rows_.clear();
    std::fill(std::begin(filter_), std::end(filter_), 0);
  }

 private:
  struct Row {
    uint64_t fingerprint;
    TouchedRow* row;
  };
  static unsigned FilterBit(uint64_t fingerprint) { return static_cast<unsigned>((fingerprint * 0xff51afd7ed558ccdULL) >> 56); }

  std::vector<Row> rows_;
  uint64_t filter_[4] = {0, 0, 0, 0};
};

// A range of clusterings a range tombstone of the new facts covers, from
// bound to bound (each compared by its own kind, a boundary's too).
struct DeletedRange {
  FoldClustering start;
  ClusteringKind start_kind = ClusteringKind::kInclStartBound;
  FoldClustering end;
  ClusteringKind end_kind = ClusteringKind::kInclEndBound;

  bool Contains(const ClusteringOrder& order, const FoldClustering& row) const {
    return order.Compare(start, start_kind, row, ClusteringKind::kClustering) < 0 && !EndsBefore(order, row);
  }
  bool EndsBefore(const ClusteringOrder& order, const FoldClustering& row) const {
    return order.Compare(row, ClusteringKind::kClustering, end, end_kind) >= 0;
  }
};

// Puts `ranges` in clustering order, overlapping ones merged, so that rows in
// clustering order meet them one after another.
void MergeDeletedRanges(const ClusteringOrder& order, std::vector<DeletedRange>* ranges) {
  std::sort(ranges->begin(), ranges->end(), [&](const DeletedRange& a, const DeletedRange& b) {
    return order.Compare(a.start, a.start_kind, b.start, b.start_kind) < 0;
  });
  size_t kept = 0;
  for (size_t i = 0; i < ranges->size(); ++i) {
    DeletedRange& range = (*ranges)[i];
    if (kept > 0) {
      DeletedRange& last = (*ranges)[kept - 1];
      if (order.Compare(range.start, range.start_kind, last.end, last.end_kind) < 0) {  // overlaps: one range
        if (order.Compare(range.end, range.end_kind, last.end, last.end_kind) > 0) {
          last.end = std::move(range.end);
          last.end_kind = range.end_kind;
        }
        continue;
      }
    }
    if (kept != i) (*ranges)[kept] = std::move(range);
    ++kept;
  }
  ranges->resize(kept);
}

struct TouchedPartition {
  std::string key;
  size_t rank = 0;  // in fold order among the touched partitions
  PartitionRows rows;
  // The new facts delete the partition (every row it has is touched), or
  // these ranges of it (every row in them is).
  bool deleted = false;
  std::vector<DeletedRange> deleted_ranges;

  bool DeletesRows() const { return deleted || !deleted_ranges.empty(); }
};

// The rows the new facts hold in one share of the ring: gathered source by
// source (each in fold order), then put in fold order once, so that the fold
// of the new facts, which comes in the same order, meets them one after
// another.
struct TouchedRows {
  std::vector<TouchedPartition> partitions;
  std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>> partition_numbers;
  std::vector<TouchedRow> rows;
  std::vector<size_t> source_ends;  // where each source's rows end, before Order()
  std::vector<std::string> data_files;  // of indexed rows, each once
  // Why the new facts do not decide their rows alone (the first reason
  // found), or empty: then the fold reads every facts set at these rows.
  std::string needs_kept_facts;
  // What the new facts were read with, and the order the rows are put in.
  std::shared_ptr<const TableSchema> schema;
  Partitioner partitioner = Partitioner::kMurmur3;

  uint32_t Partition(std::string_view key) {
    auto [it, added] = partition_numbers.try_emplace(std::string(key), static_cast<uint32_t>(partitions.size()));
    if (added) partitions.push_back({std::string(key), 0, {}, false, {}});
    return it->second;
  }
  const PartitionRows* RowsOf(std::string_view partition_key) const {
    auto found = partition_numbers.find(partition_key);
    return found == partition_numbers.end() ? nullptr : &partitions[found->second].rows;
  }
  std::string_view PartitionKeyOf(const TouchedRow& row) const { return partitions[row.partition].key; }

  // Adds rows found in the row index (in fold order, gathered apart while
  // the partitions' filters point into `rows`) as one more run; Order()
  // puts them among the others.
  void AddRun(std::vector<TouchedRow> found) {
    if (found.empty()) return;
    rows.insert(rows.end(), std::make_move_iterator(found.begin()), std::make_move_iterator(found.end()));
    source_ends.push_back(rows.size());
  }

  // Puts the rows in fold order, each key once, and indexes each partition's.
  void Order(Partitioner partitioner, const ClusteringOrder& order) {
    RankPartitions(partitioner);
    auto less = [&](const TouchedRow& a, const TouchedRow& b) {
      if (a.partition != b.partition) return partitions[a.partition].rank < partitions[b.partition].rank;
      return order.CompareRows(a.decoded, b.decoded) < 0;
    };
    // Each source's rows are in fold order already: merge the runs.
    size_t merged = 0;
    for (size_t end : source_ends) {
      if (merged > 0 && end > merged) {
        std::inplace_merge(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(merged),
                           rows.begin() + static_cast<std::ptrdiff_t>(end), less);
      }
      merged = std::max(merged, end);
    }
    auto same = [](const TouchedRow& a, const TouchedRow& b) {
      return a.partition == b.partition && a.clustering == b.clustering;
    };
    rows.erase(std::unique(rows.begin(), rows.end(), same), rows.end());
    source_ends = {rows.size()};
    for (TouchedPartition& p : partitions) p.rows.Clear();
    for (TouchedRow& row : rows) partitions[row.partition].rows.Add(&row);
    for (TouchedPartition& p : partitions) p.rows.Seal();
  }

 private:
  // Each partition's rank in the partitioner's order.
  void RankPartitions(Partitioner partitioner) {
    std::vector<uint32_t> in_order(partitions.size());
    for (uint32_t i = 0; i < in_order.size(); ++i) in_order[i] = i;
    if (partitioner == Partitioner::kMurmur3) {
      // Tokens computed once each, not once per comparison; then the key
      // bytes, as ComparePartitionKeys orders them.
      std::vector<int64_t> tokens;
      tokens.reserve(partitions.size());
      for (const TouchedPartition& p : partitions) tokens.push_back(Murmur3Token(p.key));
      std::sort(in_order.begin(), in_order.end(), [&](uint32_t a, uint32_t b) {
        return tokens[a] != tokens[b] ? tokens[a] < tokens[b] : partitions[a].key < partitions[b].key;
      });
    } else {
      PartitionKeyLess key_less{partitioner};
      std::sort(in_order.begin(), in_order.end(),
                [&](uint32_t a, uint32_t b) { return key_less(partitions[a].key, partitions[b].key); });
    }
    for (size_t rank = 0; rank < in_order.size(); ++rank) partitions[in_order[rank]].rank = rank;
  }
};

// Why a table's rows cannot be folded a touched row at a time, or empty.
std::string TableWhyNot(const TableSchema& schema) {
  if (schema.compact_storage) return "the table uses COMPACT STORAGE";
  if (!schema.dropped_columns.empty()) return "the table has dropped columns";
  for (const ColumnSchema& column : schema.columns) {
    if (column.kind == ColumnKind::kStatic) return "the table has static columns";
  }
  return "";
}

// Why the new facts of a table cannot decide their rows alone whatever they
// hold, or empty.
std::string TableNeedsKeptFacts(const TableSchema& schema) {
  for (const ColumnSchema& column : schema.columns) {
    if (column.type->kind == CqlKind::kCounter) return "the table has counter columns";
  }
  return "";
}

// Why `row` of the new facts needs the kept facts to fold, or empty.
// `horizon`: the newest timestamp among the kept facts.
std::string RowWhyNot(const FoldRow& row, const TableSchema& schema, size_t regular_columns, int64_t horizon) {
  // A deletion at the horizon still covers every kept fact; a write there
  // would tie with one.
  auto covers = [&](const DeletionTime& d) { return d.marked_for_delete_at >= horizon; };
  bool deleted = !row.deletion.IsLive();
  if (deleted && (row.deletion_is_shadowable || !covers(row.deletion))) {
    return "the new generations hold a row deletion older than the kept facts";
  }
  if (!row.liveness.IsEmpty() && row.liveness.timestamp <= horizon) return "the new generations hold a write older than the kept facts";
  size_t covered = 0;
  for (const FoldColumn& column : row.columns) {
    for (const FoldCell& cell : column.cells) {
      if (cell.timestamp <= horizon) return "the new generations hold a write older than the kept facts";
    }
    bool whole = column.is_complex ? !column.complex_deletion.IsLive() : !column.cells.empty();
    if (column.is_complex && whole && !covers(column.complex_deletion)) {
      return "the new generations hold a collection tombstone older than the kept facts";
    }
    if (whole && schema.columns[column.column].kind == ColumnKind::kRegular) ++covered;
  }
  if (deleted) return "";
  if (row.liveness.IsEmpty()) return "the new generations hold a row written without its primary key liveness (an UPDATE)";
  if (covered < regular_columns) return "the new generations hold a row written in part";
  return "";
}

std::string TooManyRows(int64_t max_rows) {
  return StrCat("the new generations touch more than ", max_rows, " rows, more than the row index's update layer takes");
}

// Reads the new facts of `ranges` once: why their rows cannot be folded a
// touched row at a time (the first thing found), or empty with the keys of
// their rows in `touched`, source by source, each in fold order (not yet
// Order()ed), the partitions and ranges they delete, and why they do not
// decide their rows alone (`touched->needs_kept_facts`, which `needs_kept`
// starts as). Stops early, with nothing to say, once `declined` is set
// (another share found a reason).
Result<std::string> ScreenRanges(FileSystem& fs, const TableSSTables& table, const std::vector<FactsSet>& new_facts,
                                 const Murmur3RangeSet& ranges, int64_t horizon, const std::string& needs_kept,
                                 int64_t max_rows, const std::atomic<bool>& declined, TouchedRows* touched) {
  touched->needs_kept_facts = needs_kept;
  if (new_facts.empty()) {  // a run for rows that expired only
    if (!table.partitioner) return std::string("the partitioner is not one cqlite orders keys by");
    touched->schema = std::make_shared<const TableSchema>(table.schema.table);
    touched->partitioner = *table.partitioner;
    return std::string();
  }
  ASSIGN_OR_RETURN(OpenedFacts opened, OpenFactsIn(fs, new_facts, table, ranges));
  if (!opened.partitioner) return std::string("the partitioner is not one cqlite orders keys by");
  const TableSchema& schema = *opened.schema;
  size_t regular_columns = std::count_if(schema.columns.begin(), schema.columns.end(),
                                         [](const ColumnSchema& c) { return c.kind == ColumnKind::kRegular; });
  touched->needs_kept_facts = needs_kept;
  auto needs = [&](std::string why) {
    if (touched->needs_kept_facts.empty()) touched->needs_kept_facts = std::move(why);
  };
  // Rows in more than one source are counted once each: beyond this many in
  // all, more than max_rows are different.
  const int64_t max_gathered = max_rows * static_cast<int64_t>(std::max<size_t>(1, opened.sources.size()));
  for (auto& source : opened.sources) {
    FoldPartition partition;
    while (true) {
      ASSIGN_OR_RETURN(bool more, source->Next(&partition));
      if (!more) break;
      if (declined.load(std::memory_order_relaxed)) return std::string();
      if (partition.has_static_row) return std::string("the new generations hold a static row");
      const uint32_t number = touched->Partition(partition.key);
      if (!partition.deletion.IsLive()) {
        needs("the new generations hold a partition deletion");
        touched->partitions[number].deleted = true;
      }
      // The range tombstone open at the end of the last piece.
      std::optional<DeletedRange> open;
      while (true) {
        size_t next_row = 0, next_marker = 0;
        for (bool is_marker : partition.item_is_marker) {
          if (!is_marker) {
            const FoldRow& row = partition.rows[next_row++];
            if (touched->needs_kept_facts.empty()) {
              std::string why = RowWhyNot(row, schema, regular_columns, horizon);
              if (!why.empty()) needs(std::move(why));
            }
            TouchedRow& touched_row = touched->rows.emplace_back();
            touched_row.partition = number;
            EncodeRowIndexClustering(row.clustering, &touched_row.clustering);
            touched_row.decoded = row.clustering;
            continue;
          }
          const FoldMarker& marker = partition.markers[next_marker++];
          needs("the new generations hold a range tombstone");
            if (open && !marker.IsStart()) {
            open->end = marker.bound;
            open->end_kind = marker.kind;
            touched->partitions[number].deleted_ranges.push_back(std::move(*open));
            open.reset();
          }
          if (marker.IsStart() || marker.IsBoundary()) open = DeletedRange{marker.bound, marker.kind, {}, {}};
        }
        if (static_cast<int64_t>(touched->rows.size()) > max_gathered) return TooManyRows(max_rows);
        if (partition.complete) break;
        RETURN_IF_ERROR(source->More(&partition));
      }
      if (open) {
        return Status::Corruption(StrCat(source->name(), ": a range tombstone of partition ",
                                         ToHex(partition.key), " is never closed"));
      }
    }
    touched->source_ends.push_back(touched->rows.size());
  }
  const ClusteringOrder order = ClusteringOrder::OfTable(schema);
  for (TouchedPartition& p : touched->partitions) {
    if (p.deleted_ranges.size() > 1) MergeDeletedRanges(order, &p.deleted_ranges);
  }
  touched->schema = opened.schema;
  touched->partitioner = *opened.partitioner;
  return std::string();
}

// Adds to `touched` (in fold order) the rows one layer of the row index
// holds (current or removed) in the partitions and ranges the new facts
// delete, as another run of rows in fold order; Order() puts them among the
// others. Only the row groups holding such a partition are decoded beyond
// their key column. Why not, when they take the touched rows past
// `max_rows`, or empty.
Result<std::string> AddDeletedRows(FileSystem& fs, const std::vector<std::string>& files,
                                   const std::optional<Murmur3Range>& share, int64_t max_rows, TouchedRows* touched) {
  if (files.empty()) return std::string();
  using Wanted = RowIndexReader::Wanted;
  const ClusteringOrder order = ClusteringOrder::OfTable(*touched->schema);
  auto deleting = [&](std::string_view key) -> const TouchedPartition* {
    auto found = touched->partition_numbers.find(key);
    if (found == touched->partition_numbers.end()) return nullptr;
    const TouchedPartition& p = touched->partitions[found->second];
    return p.DeletesRows() ? &p : nullptr;
  };
  ASSIGN_OR_RETURN(auto reader, share ? RowIndexReader::OpenFromToken(fs, files, share->first)
                                      : RowIndexReader::Open(fs, files));
  auto wanted = [&](const parquet::FlatColumn& keys) {
    if (share && keys.size() > 0 && Murmur3Token(keys.Bytes(0)) > share->last) return Wanted::kNoneFromHere;
    if (!keys.indices.empty()) {
      for (size_t i = 0; i < keys.dictionary.size(); ++i) {
        if (deleting(keys.dictionary[i])) return Wanted::kYes;
      }
      return Wanted::kNo;
    }
    for (size_t r = 0; r < keys.size(); ++r) {
      if ((r == 0 || keys.Bytes(r) != keys.Bytes(r - 1)) && deleting(keys.Bytes(r))) return Wanted::kYes;
    }
    return Wanted::kNo;
  };
  // Gathered apart, and added once the scan is done: the partitions' row
  // filters point into touched->rows.
  std::vector<TouchedRow> added;
  RowIndexReader::EntryColumns entries;
  FoldClustering clustering;
  while (true) {
    ASSIGN_OR_RETURN(bool more, reader->NextEntries(&entries, wanted));
    if (!more) break;
    // Entries come a partition at a time, in clustering order: each key is
    // looked up once per run of it, and its merged ranges met in turn.
    const parquet::FlatColumn& keys = *entries.partition_key;
    const TouchedPartition* partition = nullptr;
    size_t next_range = 0;
    for (size_t i = entries.begin; i < entries.end; ++i) {
      std::string_view key = keys.Bytes(i);
      const bool same_key = i > entries.begin && (keys.indices.empty() ? key == keys.Bytes(i - 1)
                                                                         : keys.indices[i] == keys.indices[i - 1]);
      if (!same_key) {
        partition = deleting(key);
        next_range = 0;
      }
      if (partition == nullptr) continue;
      const std::vector<DeletedRange>& ranges = partition->deleted_ranges;
      if (!partition->deleted && next_range == ranges.size()) continue;  // past its last range
      std::string_view encoded = entries.clustering->Bytes(i);
      if (!DecodeRowIndexClustering(encoded, &clustering)) {
        return Status::Corruption(StrCat(files.front(), ": a row index entry with a malformed clustering"));
      }
      bool covered = partition->deleted;
      if (!covered) {
        while (next_range < ranges.size() && ranges[next_range].EndsBefore(order, clustering)) ++next_range;
        covered = next_range < ranges.size() && ranges[next_range].Contains(order, clustering);
      }
      if (!covered || partition->rows.Find(encoded) != nullptr) continue;  // the new facts hold it
      added.push_back({static_cast<uint32_t>(partition - touched->partitions.data()), std::string(encoded),
                       clustering});
      if (static_cast<int64_t>(touched->rows.size() + added.size()) > max_rows) return TooManyRows(max_rows);
    }
  }
  touched->AddRun(std::move(added));
  return std::string();
}

// Adds to `touched` the rows one layer of the row index holds in `share`
// (every one, without) that expire by `now`, as another run of rows in fold
// order; lowers `later` to the earliest expiry after `now` among the others.
// Why not, when they take the touched rows past `max_rows` or the layer does
// not record its rows' expiries, or empty.
Result<std::string> AddExpiredRows(FileSystem& fs, const std::vector<std::string>& files,
                                   const std::optional<Murmur3Range>& share, int64_t now, int64_t max_rows,
                                   TouchedRows* touched, int64_t* later) {
  if (files.empty()) return std::string();
  using Wanted = RowIndexReader::Wanted;
  ASSIGN_OR_RETURN(auto reader, share ? RowIndexReader::OpenFromToken(fs, files, share->first)
                                      : RowIndexReader::Open(fs, files));
  auto in_share = [&](const parquet::FlatColumn& keys) {
    if (share && keys.size() > 0 && Murmur3Token(keys.Bytes(0)) > share->last) return Wanted::kNoneFromHere;
    return Wanted::kYes;
  };
  std::vector<TouchedRow> added;  // apart, as in AddDeletedRows
  RowIndexReader::EntryColumns entries;
  FoldClustering clustering;
  while (true) {
    ASSIGN_OR_RETURN(bool more, reader->NextEntries(&entries, in_share));
    if (!more) break;
    const parquet::FlatColumn& keys = *entries.partition_key;
    bool inside = true;
    for (size_t i = entries.begin; i < entries.end; ++i) {
      std::string_view key = keys.Bytes(i);
      // Each key's place is told at its first entry, a removal's too: the
      // entries after it are of the same partition.
      if (share && (i == entries.begin || key != keys.Bytes(i - 1))) {
        const int64_t token = Murmur3Token(key);
        inside = token >= share->first && token <= share->last;
      }
      if (!inside || entries.removes(i)) continue;
      const int64_t expires = entries.expiry(i);
      if (expires == kExpiryUnknown) {
        return std::string("the row index does not say when its rows expire (an earlier CQLite wrote it); "
                           "folding everything records it");
      }
      if (expires > now) {
        *later = std::min(*later, expires);
        continue;
      }
      std::string_view encoded = entries.clustering->Bytes(i);
      if (!DecodeRowIndexClustering(encoded, &clustering)) {
        return Status::Corruption(StrCat(files.front(), ": a row index entry with a malformed clustering"));
      }
      added.push_back({touched->Partition(key), std::string(encoded), clustering});
      if (static_cast<int64_t>(touched->rows.size() + added.size()) > max_rows) return TooManyRows(max_rows);
    }
  }
  touched->AddRun(std::move(added));
  return std::string();
}

// A facts set read at the touched rows only: the partitions the new facts
// do not touch are passed over by key (no cell decoded), and of the others
// only the touched rows, with every range tombstone marker, the partition
// deletion and static row, reach the fold. What the fold makes of a touched
// row is then what it makes of it from the whole set.
class TouchedRowsSource final : public FoldSource {
 public:
  TouchedRowsSource(std::unique_ptr<FoldSource> source, const TouchedRows& touched)
      : source_(std::move(source)), touched_(touched) {
    // An SSTable passes the untouched rows of a touched partition over by
    // their sizes; what other sources hand on is filtered here.
    wanted_ = [this](std::string_view key, const Clustering& clustering) {
      if (key != wanted_key_) {  // a partition's rows come one after another: its key is looked up once
        wanted_key_.assign(key);
        wanted_rows_ = touched_.RowsOf(key);
      }
      if (wanted_rows_ == nullptr) return false;
      EncodeRowIndexClustering(clustering, &wanted_clustering_);
      return wanted_rows_->Find(wanted_clustering_) != nullptr;
    };
    source_->PassOverRowsNotWanted(&wanted_);
  }

  Result<bool> Next(FoldPartition* partition) override {
    auto untouched = [this](std::string_view key) { return touched_.RowsOf(key) == nullptr; };
    return NextAfter(partition, untouched);
  }
  Result<bool> NextNotSkipped(FoldPartition* partition, const KeyTest& skip) override {
    auto untouched = [this, &skip](std::string_view key) { return skip(key) || touched_.RowsOf(key) == nullptr; };
    return NextAfter(partition, untouched);
  }
  Status More(FoldPartition* partition) override {
    RETURN_IF_ERROR(source_->More(partition));
    return KeepTouched(partition);
  }
  Status SkipRest(FoldPartition* partition) override { return source_->SkipRest(partition); }
  const std::string& name() const override { return source_->name(); }
  std::optional<PartitionKeySpan> key_span() const override { return source_->key_span(); }
  bool repeats_partitions() const override { return source_->repeats_partitions(); }

 private:
  Result<bool> NextAfter(FoldPartition* partition, const KeyTest& skip) {
    ASSIGN_OR_RETURN(bool more, source_->NextNotSkipped(partition, skip));
    if (!more) return false;
    RETURN_IF_ERROR(KeepTouched(partition));
    return true;
  }

  // Drops the rows of the piece that are not touched; a piece left empty
  // before the partition's end is followed by the next.
  Status KeepTouched(FoldPartition* partition) {
    const PartitionRows* rows = touched_.RowsOf(partition->key);
    while (true) {
      size_t items = 0, kept_rows = 0, next_row = 0;
      for (size_t i = 0; i < partition->item_is_marker.size(); ++i) {
        const bool is_marker = partition->item_is_marker[i];
        if (!is_marker) {
          FoldRow& row = partition->rows[next_row++];
          EncodeRowIndexClustering(row.clustering, &clustering_);
          if (rows == nullptr || rows->Find(clustering_) == nullptr) continue;
          if (kept_rows != next_row - 1) std::swap(partition->rows[kept_rows], row);
          ++kept_rows;
        }
        partition->item_is_marker[items++] = is_marker;
      }
      partition->item_is_marker.resize(items);
      partition->rows.resize(kept_rows);
      if (items > 0 || partition->complete) return Status::OK();
      RETURN_IF_ERROR(source_->More(partition));
    }
  }

  std::unique_ptr<FoldSource> source_;
  const TouchedRows& touched_;
  RowTest wanted_;
  std::string clustering_;          // a row's, encoded as the row index holds it
  std::string wanted_clustering_;   // the same, for wanted_
  std::string wanted_key_;          // the partition wanted_ last looked up, and its touched rows
  const PartitionRows* wanted_rows_ = nullptr;
};

// Finds the rows of `touched` in one layer of the row index and notes where
// each is now (the update layer after the base, so that its entries win).
// Only the row groups holding a partition of `touched` are decoded beyond
// their key column, and with `share`, the part of the ring of the rows of
// `touched` (of a Murmur3 table), only the row groups of the share are read.
Status LookUp(FileSystem& fs, const std::vector<std::string>& files, const std::optional<Murmur3Range>& share,
              TouchedRows* touched) {
  if (files.empty() || touched->rows.empty()) return Status::OK();
  std::unordered_map<std::string, int, StringHash, std::equal_to<>> numbers;
  for (size_t i = 0; i < touched->data_files.size(); ++i) numbers[touched->data_files[i]] = static_cast<int>(i);
  auto intern = [&](std::string_view name) {
    auto [it, added] = numbers.try_emplace(std::string(name), static_cast<int>(touched->data_files.size()));
    if (added) touched->data_files.emplace_back(name);
    return it->second;
  };
  using Wanted = RowIndexReader::Wanted;
  ASSIGN_OR_RETURN(auto reader, share ? RowIndexReader::OpenFromToken(fs, files, share->first)
                                      : RowIndexReader::Open(fs, files));
  RowIndexReader::EntryColumns entries;
  // A row group holds the entries of a few dozen partitions: most hold
  // none the new facts touch, and only their key column is read.
  auto touches = [&](const parquet::FlatColumn& keys) {
    if (share && keys.size() > 0 && Murmur3Token(keys.Bytes(0)) > share->last) return Wanted::kNoneFromHere;
    if (!keys.indices.empty()) {
      for (size_t i = 0; i < keys.dictionary.size(); ++i) {
        if (touched->RowsOf(keys.dictionary[i])) return Wanted::kYes;
      }
      return Wanted::kNo;
    }
    for (size_t r = 0; r < keys.size(); ++r) {
      if ((r == 0 || keys.Bytes(r) != keys.Bytes(r - 1)) && touched->RowsOf(keys.Bytes(r))) return Wanted::kYes;
    }
    return Wanted::kNo;
  };
  while (true) {
    ASSIGN_OR_RETURN(bool more, reader->NextEntries(&entries, touches));
    if (!more) break;
    const parquet::FlatColumn& keys = *entries.partition_key;
    const parquet::FlatColumn& clusterings = *entries.clustering;
    // Entries come a partition at a time: each run of one key is looked up
    // once, by its dictionary entry where the column has one.
    const bool by_index = !keys.indices.empty();
    size_t r = entries.begin;
    while (r < entries.end) {
      std::string_view key = keys.Bytes(r);
      size_t run_end = r + 1;
      if (by_index) {
        while (run_end < entries.end && keys.indices[run_end] == keys.indices[r]) ++run_end;
      } else {
        while (run_end < entries.end && keys.Bytes(run_end) == key) ++run_end;
      }
      if (const PartitionRows* partition = touched->RowsOf(key)) {
        for (size_t i = r; i < run_end; ++i) {
          TouchedRow* row = partition->Find(clusterings.Bytes(i));
          if (row == nullptr) continue;
          row->indexed = !entries.removes(i);
          if (!row->indexed) continue;
          row->data_file = intern(entries.data_file->Bytes(i));
          row->position = entries.position->ints[i];
          row->hash = static_cast<uint64_t>(entries.hash->ints[i]);
          row->expires = entries.expiry(i);
        }
      }
      r = run_end;
    }
  }
  return Status::OK();
}

// One entry of the run's update layer.
struct Change {
  const TouchedRow* row = nullptr;
  bool removes = false;
  int64_t position = 0;  // in the range's data file, or in data_file
  uint64_t hash = 0;
  int64_t expires = INT64_MAX;
  int data_file = -1;    // into TouchedRows::data_files: a row that kept its place; -1: the range's
};

// What one thread makes of a share of the ring: the fold of the new facts
// in it, merged with the touched rows in it.
struct RangeChanges {
  std::vector<Change> updates;  // in fold order
  std::string data_path;
  std::optional<iceberg::DataFile> data_file;
  std::vector<iceberg::DataFile> delete_files;
  DeletedPositions deleted_positions;  // RowChangesOptions::deletion_vectors
  int64_t rows_appended = 0;
  int64_t rows_deleted = 0;
  int64_t next_expiry = INT64_MAX;
  // The share's part of the new update layer, in fold order.
  std::vector<std::string> layer_files;
  int64_t layer_entries = 0;
  std::string needs_kept_facts;  // why the share read the kept facts, if it did
};

// Writes range `k`'s part of the new update layer: the entries of the last
// layer (`previous`) in `share` (every one of them when `share` is none),
// with `range.updates` over them, in fold order. The shares of the threads
// cover the ring, so each entry of the last layer is kept by one of them.
Status WriteUpdateLayer(FileSystem& fs, const std::vector<std::string>& previous,
                        const std::optional<Murmur3RangeSet>& share, const TouchedRows& touched, int k,
                        RangeChanges& range, RunFiles& files) {
  const Partitioner partitioner = touched.partitioner;
  const ClusteringOrder order = ClusteringOrder::OfTable(*touched.schema);
  ASSIGN_OR_RETURN(auto reader, RowIndexReader::Open(fs, previous));
  RowIndexWriter layer(fs, [&](int i) { return files.RowIndexUpdateFile(k, i); });
  RowIndexEntry before;
  // The next entry of the last layer in the share, or false past it.
  auto next_before = [&]() -> Result<bool> {
    while (true) {
      ASSIGN_OR_RETURN(bool more, reader->Next(&before));
      if (!more || !share) return more;
      Murmur3Range::Place place = share->Locate(before.partition_key);
      if (place == Murmur3Range::Place::kInside) return true;
      if (place == Murmur3Range::Place::kAfter) return false;
    }
  };
  ASSIGN_OR_RETURN(bool has_before, next_before());
  for (const Change& c : range.updates) {
    std::string_view partition_key = touched.PartitionKeyOf(*c.row);
    int placed = 1;
    while (has_before &&
           (placed = CompareToRowIndexEntry(partitioner, order, before, partition_key, c.row->decoded)) < 0) {
      RETURN_IF_ERROR(layer.Add(before));
      ASSIGN_OR_RETURN(has_before, next_before());
    }
    if (has_before && placed == 0) {  // replaced
      ASSIGN_OR_RETURN(has_before, next_before());
    }
    std::string_view data_file = c.removes            ? std::string_view()
                                 : c.data_file >= 0 ? std::string_view(touched.data_files[c.data_file])
                                                    : std::string_view(range.data_path);
    RETURN_IF_ERROR(layer.Add(partition_key, c.row->decoded, data_file, c.position, c.hash, c.expires));
  }
  while (has_before) {
    RETURN_IF_ERROR(layer.Add(before));
    ASSIGN_OR_RETURN(has_before, next_before());
  }
  ASSIGN_OR_RETURN(range.layer_files, layer.Close());
  for (const std::string& path : range.layer_files) RETURN_IF_ERROR(fs.SyncFile(path));
  range.layer_entries = layer.count();
  return Status::OK();
}

// Folds the touched rows `touched` of the partitions in `share` into the
// data and delete files of range number `k`: from the new facts alone when
// they decide their rows (`touched.needs_kept_facts` empty), else from
// `all_facts`, each read at the touched rows only. A row written anew is
// appended and its old position deleted, a row written again as it was
// keeps its place, a touched row the fold passes over (deleted, or every
// cell of it dead) has its position deleted.
Result<RangeChanges> FoldTouchedRange(FileSystem& fs, const TableSSTables& table, const TableMapping& mapping,
                                      const std::string& table_dir, const std::vector<FactsSet>& new_facts,
                                      const std::vector<FactsSet>& all_facts, const TouchedRows& touched,
                                      const Murmur3RangeSet& share, int k, const RowChangesOptions& options,
                                      RunFiles& files) {
  const bool alone = touched.needs_kept_facts.empty();
  ASSIGN_OR_RETURN(OpenedFacts opened, OpenFactsIn(fs, alone ? new_facts : all_facts, table, share));
  if (!alone) {
    for (auto& source : opened.sources) source = std::make_unique<TouchedRowsSource>(std::move(source), touched);
  }
  const TableSchema& fold_schema = *opened.schema;
  const Partitioner partitioner = *opened.partitioner;
  ASSIGN_OR_RETURN(auto fold, TableFold::Make(fold_schema, partitioner, std::move(opened.sources),
                                              options.now_seconds));
  RowBatchConverter converter(fold_schema, mapping, options.mapping);
  RangeOutput output(fs, mapping.schema, options, files, k);
  BatchedDataFile& data = output.data;
  PositionDeleteWriter& deletes = output.deletes;

  RangeChanges changes;
  FoldedPartition partition;
  auto in_partition = [&](const Status& status) {
    auto key = PartitionKeyStrings(*fold_schema.PartitionKeyType(), partition.key);
    return status.WithContext(StrCat(table_dir, ": partition ", key.ok() ? Join(*key, ":") : ToHex(partition.key)));
  };
  // The fold gives the touched rows it keeps in their order: a touched row
  // it passes over is one the new facts deleted (or whose every cell they
  // made dead). The changes come in fold order too.
  size_t next_touched = 0;
  const size_t end = touched.rows.size();
  auto delete_old = [&](const TouchedRow& old) -> Status {
    ++changes.rows_deleted;
    return deletes.Add(touched.data_files[old.data_file], old.position);
  };
  auto removed = [&](const TouchedRow& old) -> Status {
    if (!old.indexed) return Status::OK();
    changes.updates.push_back({&old, true, 0, 0, INT64_MAX, -1});
    return delete_old(old);
  };
  std::string clustering;
  parquet::RowBatch::Mark before_row;
  int64_t rows_seen = 0;
  while (true) {
    ASSIGN_OR_RETURN(bool more, fold->Next(&partition));
    if (!more) break;
    for (const FoldRow& row : partition.rows) {
      if (++rows_seen % kProgressEvery == 0 && options.progress) {
        options.progress(StrCat(rows_seen, " rows folded, ", changes.rows_appended, " written, ",
                                changes.rows_deleted, " deleted"));
      }
      changes.next_expiry = std::min(changes.next_expiry, row.earliest_expiry);
      EncodeRowIndexClustering(row.clustering, &clustering);
      while (next_touched < end &&
             !(touched.PartitionKeyOf(touched.rows[next_touched]) == partition.key &&
               touched.rows[next_touched].clustering == clustering)) {
        RETURN_IF_ERROR(removed(touched.rows[next_touched++]));
      }
      if (next_touched == end) {
        return Status::Corruption(StrCat(table_dir, ": the fold of the touched rows gave a row not touched"));
      }
      const TouchedRow& old = touched.rows[next_touched++];
      ASSIGN_OR_RETURN(parquet::RowBatch * batch, data.batch());
      int64_t position = data.next_position();
      batch->MarkTo(&before_row);
      auto hash = converter.Append(partition.key, nullptr, row, batch);
      if (!hash.ok()) return in_partition(hash.status());
      if (old.indexed) {
        if (*hash == old.hash) {  // written again as it was: it keeps its place
          batch->TruncateTo(before_row);
          // Its entry is written anew only when the row now expires at another time.
          if (old.expires != row.earliest_expiry) {
            changes.updates.push_back({&old, false, old.position, old.hash, row.earliest_expiry, old.data_file});
          }
          continue;
        }
        RETURN_IF_ERROR(delete_old(old));
      }
      changes.updates.push_back({&old, false, position, *hash, row.earliest_expiry, -1});
      ++changes.rows_appended;
    }
  }
  while (next_touched < end) RETURN_IF_ERROR(removed(touched.rows[next_touched++]));
  changes.data_path = data.path();
  ASSIGN_OR_RETURN(changes.data_file, data.Close());
  ASSIGN_OR_RETURN(changes.delete_files, deletes.Finish());
  changes.deleted_positions = deletes.TakePositions();
  return changes;
}

// Whether the screened shares decide their rows alone: the first reason
// they do not (a share's, or that they hold too many rows in all), or empty.
Result<std::string> ScreenVerdict(const std::vector<Result<std::string>>& screened,
                                  const std::vector<TouchedRows>& parts, int64_t max_rows) {
  for (const Result<std::string>& why : screened) {
    if (!why.ok()) return why.status();
    if (!why->empty()) return *why;
  }
  int64_t rows = 0;
  for (const TouchedRows& part : parts) rows += static_cast<int64_t>(part.rows.size());
  if (rows > max_rows) return TooManyRows(max_rows);
  return std::string();
}

}  // namespace

Result<std::optional<TouchedRowsFold>> FoldTouchedRows(FileSystem& fs, const TableSSTables& table,
                                                       const TableMapping& mapping, const std::string& table_dir,
                                                       const std::vector<FactsSet>& new_facts,
                                                       const std::vector<FactsSet>& vanished_facts,
                                                       const std::vector<FactsSet>& all_facts, const FoldState& last,
                                                       const RowChangesOptions& options, RunFiles& files,
                                                       std::string* why_not) {
  auto not_here = [&](std::string why) -> Result<std::optional<TouchedRowsFold>> {
    *why_not = std::move(why);
    return std::optional<TouchedRowsFold>();
  };
  if (last.generations.empty()) return not_here("no generation was consumed before");
  if (options.now_seconds < last.folded_at) return not_here("--now is before the last run's");
  // Rows folded before that have expired since are touched too: the row
  // index says when each expires.
  const bool expiring = options.now_seconds >= last.next_expiry;
  for (const FactsSet& set : new_facts) {
    if (set.form != FactsForm::kSSTable) return not_here("new facts that are not SSTables");
  }
  std::string why = TableWhyNot(table.schema.table);
  if (!why.empty()) return not_here(why);
  int64_t allowance = kRowIndexUpdateAllowance + last.row_count / 4 - last.row_index_update_count;
  int64_t max_rows = std::min(kMaxTouchedRows, allowance);
  if (max_rows <= 0) return not_here("the row index's update layer is full");

  // Whether the new facts may decide their rows alone depends on what they
  // hold, unless the table or the state rules it out for all of them.
  std::string needs_kept = TableNeedsKeptFacts(table.schema.table);
  if (!vanished_facts.empty() && needs_kept.empty()) needs_kept = "consumed generations were compacted away";
  if (expiring && needs_kept.empty()) needs_kept = "rows folded before have expired since";
  // The facts whose rows are touched: the new ones, and those a compaction took away.
  std::vector<FactsSet> touching = new_facts;
  touching.insert(touching.end(), vanished_facts.begin(), vanished_facts.end());
  // A generation whose Statistics.db gave no maximum timestamp was recorded
  // with 0: its facts may be newer than the horizon says.
  for (const ConsumedGeneration& g : last.generations) {
    if (g.max_timestamp == 0 && needs_kept.empty()) needs_kept = "a consumed generation's newest timestamp is not known";
  }
  const int64_t horizon = last.DeltaHorizonMicros();

  // Each share of the ring (of a Murmur3 table; else the one share of the
  // whole table) goes through the steps of touched_rows.h on a thread of its
  // own, from the screening of its new facts to its part of the update
  // layer. The threads wait for one another once, after screening, so that
  // no file is written unless every share can be folded a touched row at a
  // time. Each share decides for itself whether its new facts decide its
  // rows alone.
  const int threads = table.partitioner == Partitioner::kMurmur3 ? std::max(1, options.threads) : 1;
  const std::vector<Murmur3Range> shares = threads > 1 ? SplitMurmur3Ring(threads) : std::vector<Murmur3Range>();
  const size_t count = std::max<size_t>(1, shares.size());
  std::vector<TouchedRows> parts(count);
  // Each share's earliest expiry after now of the rows it did not touch.
  std::vector<int64_t> later_expiry(count, INT64_MAX);
  std::vector<Result<std::string>> screened(count, std::string());
  std::atomic<bool> declined{false};
  // Judged once, by the last thread to finish screening, before any goes on.
  std::optional<Result<std::string>> verdict;
  auto judge = [&]() noexcept { verdict = ScreenVerdict(screened, parts, max_rows); };
  std::barrier screening_done(static_cast<std::ptrdiff_t>(count), judge);
  auto share_changes = [&](size_t k, const RowChangesOptions& own) -> Result<RangeChanges> {
    TouchedRows& part = parts[k];
    const Murmur3RangeSet ranges = shares.empty() ? options.token_ranges : options.token_ranges.Intersect(shares[k]);
    std::optional<Murmur3Range> share;
    if (!shares.empty()) share = shares[k];
    // Screening: the new facts' rows, then those the row index holds where
    // the new facts delete partitions or ranges.
    auto screen = [&]() -> Result<std::string> {
      ASSIGN_OR_RETURN(std::string why, ScreenRanges(fs, table, touching, ranges, horizon, needs_kept, max_rows,
                                                     declined, &part));
      if (!why.empty() || declined) return why;
      const ClusteringOrder order = ClusteringOrder::OfTable(*part.schema);
      part.Order(part.partitioner, order);
      if (expiring) {
        for (const auto* layer : {&last.row_index, &last.row_index_updates}) {
          ASSIGN_OR_RETURN(why, AddExpiredRows(fs, *layer, share, options.now_seconds, max_rows, &part,
                                               &later_expiry[k]));
          if (!why.empty()) return why;
          part.Order(part.partitioner, order);
        }
      }
      if (std::none_of(part.partitions.begin(), part.partitions.end(),
                       [](const TouchedPartition& p) { return p.DeletesRows(); })) {
        return why;
      }
      for (const auto* layer : {&last.row_index, &last.row_index_updates}) {
        ASSIGN_OR_RETURN(why, AddDeletedRows(fs, *layer, share, max_rows, &part));
        if (!why.empty()) return why;
        part.Order(part.partitioner, order);  // the rows added among the others, and their filters anew
      }
      return why;
    };
    screened[k] = screen();
    if (!screened[k].ok() || !screened[k]->empty()) declined = true;
    screening_done.arrive_and_wait();
    if (!verdict->ok() || !(*verdict)->empty()) return RangeChanges();  // FoldTouchedRows says why
    if (own.progress) {
      own.progress(part.needs_kept_facts.empty()
                       ? StrCat("the new generations decide their ", part.rows.size(),
                                " rows here alone; looking them up in the row index")
                       : StrCat("the new generations touch ", part.rows.size(), " rows here (",
                                part.needs_kept_facts, "); looking them up in the row index"));
    }
    RETURN_IF_ERROR(LookUp(fs, last.row_index, share, &part));
    RETURN_IF_ERROR(LookUp(fs, last.row_index_updates, share, &part));
    ASSIGN_OR_RETURN(RangeChanges changes, FoldTouchedRange(fs, table, mapping, table_dir, new_facts, all_facts, part,
                                                            ranges, static_cast<int>(k), own, files));
    changes.needs_kept_facts = part.needs_kept_facts;
    std::optional<Murmur3RangeSet> layer_share;
    if (share) layer_share = Murmur3RangeSet({*share});
    RETURN_IF_ERROR(WriteUpdateLayer(fs, last.row_index_updates, layer_share, part, static_cast<int>(k), changes,
                                     files));
    // Freed here, on each share's thread, rather than one after another
    // once every thread is done.
    changes.updates = {};
    part = TouchedRows();
    return changes;
  };
  std::vector<Result<RangeChanges>> results;
  if (count == 1) {
    results.push_back(share_changes(0, options));
  } else {
    results = FoldRangesOnThreads<RangeChanges>(count, options, share_changes);
  }
  if (!verdict->ok()) return verdict->status();
  if (!(*verdict)->empty()) return not_here(**verdict);
  // The shares come in ring order, so their updates one after another are
  // in fold order.
  std::vector<RangeChanges> ranges;
  for (Result<RangeChanges>& result : results) {
    if (!result.ok()) return result.status();
    ranges.push_back(std::move(*result));
  }

  TouchedRowsFold fold;
  RowChanges& changes = fold.changes;
  changes.next_expiry = last.next_expiry;
  if (expiring) changes.next_expiry = *std::min_element(later_expiry.begin(), later_expiry.end());
  for (RangeChanges& range : ranges) {
    if (fold.read_kept_facts_because.empty()) fold.read_kept_facts_because = range.needs_kept_facts;
    changes.next_expiry = std::min(changes.next_expiry, range.next_expiry);
    changes.rows_appended += range.rows_appended;
    changes.rows_deleted += range.rows_deleted;
    if (range.data_file) changes.data_files.push_back(std::move(*range.data_file));
    for (iceberg::DataFile& file : range.delete_files) changes.delete_files.push_back(std::move(file));
    MergeDeletedPositions(std::move(range.deleted_positions), &changes.deleted_positions);
  }
  // The update layer: each range's part, one after another, in fold order.
  for (RangeChanges& range : ranges) {
    for (std::string& file : range.layer_files) changes.row_index_updates.push_back(std::move(file));
    changes.row_index_update_count += range.layer_entries;
  }
  changes.row_index = last.row_index;
  changes.rows_total = last.row_count + changes.rows_appended - changes.rows_deleted;
  return std::optional<TouchedRowsFold>(std::move(fold));
}

}  // namespace cqlite::materialize
