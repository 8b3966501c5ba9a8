#include "envelope/envelope_reader.h"

#include <algorithm>
#include <limits>
#include <map>

#include "cassandra/cql_schema.h"
#include "envelope/envelope_schema.h"
#include "envelope/value_convert.h"
#include "fold/reconcile.h"
#include "fold/value_order.h"
#include "parquet/reader.h"
#include "util/strings.h"

namespace cqlite::envelope {

namespace {

using parquet::Field;
using parquet::Value;

constexpr int64_t kMicrosPerSecond = 1000000;
// 100-nanosecond intervals from 1582-10-15 (the UUID epoch) to 1970-01-01.
constexpr int64_t kUuidEpochOffset = 0x01B21DD213814000LL;

int FindField(const std::vector<Field>& fields, std::string_view name) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

const Value& FieldOf(const Value& record, int index) {
  static const Value kNull;
  if (index < 0 || record.is_null() || static_cast<size_t>(index) >= record.fields().size()) return kNull;
  return record.fields()[index];
}

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0); }

// Where the fields of one column struct are in this file.
struct ColumnFields {
  int value = -1, writetime = -1, expires_at = -1, replaced = -1, ttl = -1, ldt = -1, raw = -1, deletion = -1,
      cells = -1, shards = -1;
  int deletion_mfda = -1, deletion_ldt = -1;
  int cell_path = -1, cell_value = -1, cell_writetime = -1, cell_ttl = -1, cell_ldt = -1;
  int shard_kind = -1, shard_id = -1, shard_clock = -1, shard_count = -1;

  explicit ColumnFields(const Field& column) {
    const auto& f = column.children;
    value = FindField(f, kValueField);
    writetime = FindField(f, kWritetimeField);
    expires_at = FindField(f, kExpiresAtField);
    replaced = FindField(f, kReplacedField);
    ttl = FindField(f, kTtlField);
    ldt = FindField(f, kLocalDeletionTimeField);
    raw = FindField(f, kRawField);
    deletion = FindField(f, kDeletionField);
    cells = FindField(f, kCellsField);
    shards = FindField(f, kShardsField);
    if (deletion >= 0) {
      deletion_mfda = FindField(f[deletion].children, kMarkedForDeleteAtField);
      deletion_ldt = FindField(f[deletion].children, kLocalDeletionTimeField);
    }
    if (cells >= 0) {
      const auto& c = f[cells].children[0].children;
      cell_path = FindField(c, kPathField);
      cell_value = FindField(c, kValueField);
      cell_writetime = FindField(c, kWritetimeField);
      cell_ttl = FindField(c, kTtlField);
      cell_ldt = FindField(c, kLocalDeletionTimeField);
    }
    if (shards >= 0) {
      const auto& s = f[shards].children[0].children;
      shard_kind = FindField(s, kShardKindField);
      shard_id = FindField(s, kCounterIdField);
      shard_clock = FindField(s, kClockField);
      shard_count = FindField(s, kCountField);
    }
  }
};

struct RangeFields {
  std::vector<int> clustering;
  int inclusive = -1;
};

// A partition being collected from the file's records.
struct PartitionBuild {
  FoldPartition partition;
  std::vector<FoldRow> rows;
  std::vector<FoldMarker> markers;
  std::map<std::string, size_t> row_by_clustering;
  struct Item {
    bool is_marker;
    size_t index;
  };
  std::vector<Item> items;
};

std::string ClusteringKey(const FoldClustering& clustering) {
  std::string key;
  for (size_t i = 0; i < clustering.values.size(); ++i) {
    key += clustering.present[i] ? '1' : '0';
    key += StrCat(clustering.values[i].size(), ":");
    key += clustering.values[i];
  }
  return key;
}

// A time UUID (version 1) that sorts by `timestamp_micros`, then by `index`,
// in TimeUUIDType order: list cell ids for v1 list elements.
std::string SyntheticTimeUuid(int64_t timestamp_micros, uint64_t index) {
  constexpr int64_t kLatest = (std::numeric_limits<int64_t>::max() - kUuidEpochOffset) / 10;
  uint64_t t =
      static_cast<uint64_t>(std::clamp<int64_t>(timestamp_micros, 0, kLatest) * 10 + kUuidEpochOffset);
  uint64_t msb =
      ((t & 0xffffffffULL) << 32) | (((t >> 32) & 0xffffULL) << 16) | 0x1000ULL | ((t >> 48) & 0x0fffULL);
  // TimeUUIDType compares the low half as a signed long after flipping the
  // top bit of every byte.
  uint64_t lsb = (index + 0x8000000000000000ULL) ^ 0x8080808080808080ULL;
  std::string out;
  for (int i = 7; i >= 0; --i) out.push_back(static_cast<char>((msb >> (8 * i)) & 0xff));
  for (int i = 7; i >= 0; --i) out.push_back(static_cast<char>((lsb >> (8 * i)) & 0xff));
  return out;
}

// Turns one file's records into partitions.
class Decoder {
 public:
  Decoder(std::string path, const TableSchema& table, Flavor flavor, const parquet::Schema& file_schema,
          const std::string& prefix, Partitioner partitioner)
      : path_(std::move(path)),
        table_(table),
        flavor_(flavor),
        partitioner_(partitioner),
        order_(ClusteringOrder::OfTable(table)) {
    EnvelopeNames names(prefix);
    const auto& fields = file_schema.fields;
    for (const ColumnSchema& column : table.columns) {
      int index = FindField(fields, column.name);
      column_index_.push_back(index);
      if (column.kind == ColumnKind::kStatic || column.kind == ColumnKind::kRegular) {
        column_fields_.emplace_back(fields[index]);
      } else {
        column_fields_.emplace_back(Field{});
      }
      if (column.kind == ColumnKind::kPartitionKey) partition_key_columns_.push_back(&column);
      if (column.kind == ColumnKind::kClustering) clustering_columns_.push_back(&column);
    }
    op_ = FindField(fields, names.op);
    ts_ = FindField(fields, names.ts);
    for (auto [range, name] : {std::pair{&start_, &names.range_start}, std::pair{&end_, &names.range_end}}) {
      int index = FindField(fields, *name);
      range_index_.push_back(index);
      for (const ColumnSchema* column : clustering_columns_) {
        range->clustering.push_back(FindField(fields[index].children, column->name));
      }
      range->inclusive = FindField(fields[index].children, kInclusiveField);
    }
    partition_key_ = FindField(fields, names.partition_key);
    clustering_ = FindField(fields, names.clustering);
    range_start_clustering_ = FindField(fields, names.range_start_clustering);
    range_end_clustering_ = FindField(fields, names.range_end_clustering);
    ttl_ = FindField(fields, names.ttl);
    ldt_ = FindField(fields, names.local_deletion_time);
    shadowable_ = FindField(fields, names.shadowable);
  }

  // Whole-file reading: adds the record to its partition, wherever it is.
  Status Add(const Value& record) {
    ASSIGN_OR_RETURN(std::string key, NextKey(record));
    return AddTo(record, &Partition(key));
  }

  // Every partition added, in token order.
  std::vector<FoldPartition> Finish() {
    std::vector<std::string> keys;
    for (auto& [key, build] : partitions_) keys.push_back(key);
    std::sort(keys.begin(), keys.end(), PartitionKeyLess{partitioner_});
    std::vector<FoldPartition> out;
    for (const std::string& key : keys) out.push_back(Build(partitions_[key]));
    partitions_.clear();
    return out;
  }

  // Streaming: the partition key of the next record.
  Result<std::string> NextKey(const Value& record) {
    ++row_;
    auto key = PartitionKey(record);
    if (!key.ok()) return key.status().WithContext(StrCat(path_, ": record ", row_));
    return key;
  }

  // Adds the record NextKey was last called for to `build`, its partition.
  Status AddTo(const Value& record, PartitionBuild* build) {
    Status status = AddRecord(record, *build);
    if (!status.ok()) return status.WithContext(StrCat(path_, ": record ", row_));
    return status;
  }

  // The records of the file decoded so far.
  int64_t records() const { return row_; }

  // Goes on with the next file of a chain (same schema): messages name it,
  // and record numbers restart.
  void StartFile(std::string path) {
    path_ = std::move(path);
    row_ = 0;
  }

  // Orders build's items in clustering order; at equal positions an end
  // bound comes before the start bound of the next range.
  int CompareItems(const PartitionBuild& build, PartitionBuild::Item a, PartitionBuild::Item b) const {
    const FoldClustering& ca = a.is_marker ? build.markers[a.index].bound : build.rows[a.index].clustering;
    const FoldClustering& cb = b.is_marker ? build.markers[b.index].bound : build.rows[b.index].clustering;
    ClusteringKind ka = a.is_marker ? build.markers[a.index].kind : ClusteringKind::kClustering;
    ClusteringKind kb = b.is_marker ? build.markers[b.index].kind : ClusteringKind::kClustering;
    int c = order_.Compare(ca, ka, cb, kb);
    if (c != 0) return c;
    bool a_end = a.is_marker && !build.markers[a.index].IsStart();
    bool b_end = b.is_marker && !build.markers[b.index].IsStart();
    return a_end == b_end ? 0 : a_end ? -1 : 1;
  }

  void SortItems(PartitionBuild& build) const {
    std::stable_sort(build.items.begin(), build.items.end(),
                     [&](const PartitionBuild::Item& a, const PartitionBuild::Item& b) {
                       return CompareItems(build, a, b) < 0;
                     });
  }

  // The partition of `build`, its rows and range bounds in clustering order.
  // Leaves `build` valid but unspecified.
  FoldPartition Build(PartitionBuild& build) const {
    SortItems(build);
    FoldPartition partition = std::move(build.partition);
    for (const PartitionBuild::Item& item : build.items) {
      partition.item_is_marker.push_back(item.is_marker);
      if (item.is_marker) {
        partition.markers.push_back(std::move(build.markers[item.index]));
      } else {
        partition.rows.push_back(std::move(build.rows[item.index]));
      }
    }
    return partition;
  }

  // Moves the first `count` of build's sorted items to `out`'s rows and
  // markers, and keeps the others; `refs` (items of `build`) then refer to
  // the same items where kept and are dropped where taken.
  void TakeItems(PartitionBuild& build, size_t count, FoldPartition* out,
                 std::vector<PartitionBuild::Item>* refs) const {
    constexpr size_t kTaken = std::numeric_limits<size_t>::max();
    std::vector<size_t> row_to(build.rows.size(), kTaken), marker_to(build.markers.size(), kTaken);
    std::vector<FoldRow> rows;
    std::vector<FoldMarker> markers;
    std::vector<PartitionBuild::Item> items;
    for (size_t i = 0; i < build.items.size(); ++i) {
      const PartitionBuild::Item item = build.items[i];
      if (i < count) {
        out->item_is_marker.push_back(item.is_marker);
        if (item.is_marker) {
          out->markers.push_back(std::move(build.markers[item.index]));
        } else {
          out->rows.push_back(std::move(build.rows[item.index]));
        }
      } else if (item.is_marker) {
        marker_to[item.index] = markers.size();
        items.push_back({true, markers.size()});
        markers.push_back(std::move(build.markers[item.index]));
      } else {
        row_to[item.index] = rows.size();
        items.push_back({false, rows.size()});
        rows.push_back(std::move(build.rows[item.index]));
      }
    }
    build.rows = std::move(rows);
    build.markers = std::move(markers);
    build.items = std::move(items);
    build.row_by_clustering.clear();
    for (size_t i = 0; i < build.rows.size(); ++i) build.row_by_clustering[ClusteringKey(build.rows[i].clustering)] = i;
    std::vector<PartitionBuild::Item> kept;
    for (const PartitionBuild::Item& ref : *refs) {
      size_t to = ref.is_marker ? marker_to[ref.index] : row_to[ref.index];
      if (to != kTaken) kept.push_back({ref.is_marker, to});
    }
    *refs = std::move(kept);
  }

 private:
  bool ours() const { return flavor_ == Flavor::kCqlite; }

  static Result<int64_t> RequiredInt64(const Value& v, const char* what) {
    if (v.kind() != Value::Kind::kInt64) return Status::Corruption(StrCat(what, " is null"));
    return v.int64_value();
  }

  int64_t DeletionLdt(const Value& record, int64_t timestamp) const {
    const Value& ldt = FieldOf(record, ldt_);
    if (ours() && ldt.kind() == Value::Kind::kInt64) return ldt.int64_value();
    return StandInLocalDeletionTime(timestamp);
  }

  Result<std::string> Serialize(const ColumnSchema& column, const CqlType& type, const Value& value) const {
    auto bytes = FromTyped(type, value);
    if (!bytes.ok())
      return Status::Corruption(StrCat("column '", column.name, "': ", bytes.status().message()));
    return std::move(*bytes);
  }

  Result<std::string> PartitionKey(const Value& record) const {
    if (ours()) {
      const Value& key = FieldOf(record, partition_key_);
      if (key.kind() != Value::Kind::kBytes) return Status::Corruption("the partition key is null");
      return key.bytes();
    }
    std::vector<std::string> components;
    for (size_t i = 0; i < partition_key_columns_.size(); ++i) {
      const ColumnSchema& column = *partition_key_columns_[i];
      const Value& v = FieldOf(record, column_index_[&column - &table_.columns[0]]);
      if (v.is_null()) return Status::Corruption(StrCat("partition key column '", column.name, "' is null"));
      ASSIGN_OR_RETURN(std::string bytes, Serialize(column, *column.type, v));
      components.push_back(std::move(bytes));
    }
    if (components.size() == 1) return components[0];
    std::string key;
    for (const std::string& component : components) {
      key.push_back(static_cast<char>((component.size() >> 8) & 0xff));
      key.push_back(static_cast<char>(component.size() & 0xff));
      key += component;
      key.push_back('\0');
    }
    return key;
  }

  // The raw list of our files, or the typed values: a full clustering for
  // rows, the leading non-null values for range bounds.
  Status ReadClustering(const Value& raw, const std::vector<const Value*>& typed, bool prefix,
                        FoldClustering* out) const {
    out->Clear();
    if (ours() && !raw.is_null()) {
      for (const Value& v : raw.elements()) {
        out->values.push_back(v.is_null() ? std::string() : v.bytes());
        out->present.push_back(!v.is_null());
      }
      return Status::OK();
    }
    for (size_t i = 0; i < typed.size(); ++i) {
      const ColumnSchema& column = *clustering_columns_[i];
      if (typed[i]->is_null()) {
        if (prefix) break;
        return Status::Corruption(StrCat("clustering column '", column.name, "' is null"));
      }
      ASSIGN_OR_RETURN(std::string bytes, Serialize(column, *column.type, *typed[i]));
      out->values.push_back(std::move(bytes));
      out->present.push_back(true);
    }
    return Status::OK();
  }

  Status RowClustering(const Value& record, FoldClustering* out) const {
    std::vector<const Value*> typed;
    for (const ColumnSchema* column : clustering_columns_) {
      typed.push_back(&FieldOf(record, column_index_[column - &table_.columns[0]]));
    }
    return ReadClustering(FieldOf(record, clustering_), typed, false, out);
  }

  Status Bound(const Value& record, int which, FoldClustering* out, bool* inclusive) const {
    const RangeFields& fields = which == 0 ? start_ : end_;
    const Value& bound = FieldOf(record, range_index_[which]);
    *inclusive = true;
    if (bound.is_null()) {
      out->Clear();  // open
      return Status::OK();
    }
    std::vector<const Value*> typed;
    for (int index : fields.clustering) typed.push_back(&FieldOf(bound, index));
    const Value& flag = FieldOf(bound, fields.inclusive);
    *inclusive = flag.kind() == Value::Kind::kBool && flag.bool_value();
    return ReadClustering(FieldOf(record, which == 0 ? range_start_clustering_ : range_end_clustering_),
                          typed, true, out);
  }

  PartitionBuild& Partition(const std::string& key) {
    auto [it, inserted] = partitions_.try_emplace(key);
    if (inserted) it->second.partition.key = key;
    return it->second;
  }

  FoldRow& RowAt(PartitionBuild& build, const FoldClustering& clustering) {
    auto [it, inserted] = build.row_by_clustering.try_emplace(ClusteringKey(clustering), build.rows.size());
    if (inserted) {
      build.rows.emplace_back().clustering = clustering;
      build.items.push_back({false, it->second});
    }
    return build.rows[it->second];
  }

  Status AddRecord(const Value& record, PartitionBuild& build) {
    const Value& op_value = FieldOf(record, op_);
    if (op_value.kind() != Value::Kind::kBytes) return Status::Corruption("the op is null");
    const std::string& op = op_value.bytes();
    const Value& ts = FieldOf(record, ts_);
    if (op == kOpPartitionDelete || op == kOpRowDelete || op == kOpRangeDelete) {
      ASSIGN_OR_RETURN(int64_t at, RequiredInt64(ts, "the deletion's timestamp"));
      DeletionTime deletion{at, DeletionLdt(record, at)};
      if (op == kOpPartitionDelete) {
        if (Supersedes(deletion, build.partition.deletion)) build.partition.deletion = deletion;
        return Status::OK();
      }
      if (op == kOpRowDelete) {
        FoldClustering clustering;
        RETURN_IF_ERROR(RowClustering(record, &clustering));
        FoldRow& row = RowAt(build, clustering);
        if (Supersedes(deletion, row.deletion)) row.deletion = deletion;
        const Value& shadowable = FieldOf(record, shadowable_);
        if (shadowable.kind() == Value::Kind::kBool && shadowable.bool_value())
          row.deletion_is_shadowable = true;
        return Status::OK();
      }
      FoldMarker start, end;
      bool start_inclusive, end_inclusive;
      RETURN_IF_ERROR(Bound(record, 0, &start.bound, &start_inclusive));
      RETURN_IF_ERROR(Bound(record, 1, &end.bound, &end_inclusive));
      // No clustering values is the bottom or top, whatever `inclusive` says.
      start.kind = start.bound.values.empty() || start_inclusive ? ClusteringKind::kInclStartBound
                                                                 : ClusteringKind::kExclStartBound;
      end.kind = end.bound.values.empty() || end_inclusive ? ClusteringKind::kInclEndBound
                                                           : ClusteringKind::kExclEndBound;
      start.deletion = end.deletion = deletion;
      build.items.push_back({true, build.markers.size()});
      build.markers.push_back(std::move(start));
      build.items.push_back({true, build.markers.size()});
      build.markers.push_back(std::move(end));
      return Status::OK();
    }
    FoldRow* row;
    if (op == kOpStaticUpsert) {
      build.partition.has_static_row = true;
      row = &build.partition.static_row;
    } else if (op == kOpUpsert) {
      FoldClustering clustering;
      RETURN_IF_ERROR(RowClustering(record, &clustering));
      row = &RowAt(build, clustering);
      if (ts.kind() == Value::Kind::kInt64) {
        LivenessInfo liveness;
        liveness.timestamp = ts.int64_value();
        const Value& ttl = FieldOf(record, ttl_);
        const Value& ldt = FieldOf(record, ldt_);
        if (ours() && ttl.kind() == Value::Kind::kInt32 && ldt.kind() == Value::Kind::kInt64) {
          liveness.ttl = ttl.int32_value();
          liveness.local_expiration_time = ldt.int64_value();
        }
        if (Supersedes(liveness, row->liveness)) row->liveness = liveness;
      }
    } else {
      return Status::Corruption(StrCat("unknown op '", op, "'"));
    }
    for (size_t i = 0; i < table_.columns.size(); ++i) {
      const ColumnSchema& column = table_.columns[i];
      if (column.kind != ColumnKind::kStatic && column.kind != ColumnKind::kRegular) continue;
      const Value& data = FieldOf(record, column_index_[i]);
      if (data.is_null()) continue;
      FoldColumn decoded;
      decoded.column = static_cast<int>(i);
      RETURN_IF_ERROR(DecodeColumn(column, column_fields_[i], data, &decoded));
      auto at = std::lower_bound(row->columns.begin(), row->columns.end(), decoded.column,
                                 [](const FoldColumn& c, int column) { return c.column < column; });
      if (at != row->columns.end() && at->column == decoded.column) {
        return Status::Corruption(StrCat("column '", column.name, "' is written twice for the same row"));
      }
      row->columns.insert(at, std::move(decoded));
    }
    return Status::OK();
  }

  void SetExpiry(const Value& expires_at, int64_t writetime, FoldCell* cell) const {
    if (expires_at.kind() != Value::Kind::kInt64) return;
    int64_t ldt =
        std::clamp<int64_t>(FloorDiv(expires_at.int64_value(), kMicrosPerSecond), 0, kMaxDeletionTime);
    cell->local_deletion_time = ldt;
    cell->ttl = static_cast<int32_t>(std::clamp<int64_t>(ldt - FloorDiv(writetime, kMicrosPerSecond), 1,
                                                         std::numeric_limits<int32_t>::max() - 1));
  }

  Status DecodeColumn(const ColumnSchema& column, const ColumnFields& f, const Value& data,
                      FoldColumn* out) const {
    const CqlType& type = *column.type;
    ASSIGN_OR_RETURN(int64_t writetime, RequiredInt64(FieldOf(data, f.writetime), "writetime"));
    const Value& value = FieldOf(data, f.value);
    if (type.IsMultiCell()) {
      out->is_complex = true;
      if (ours()) return DecodeCells(column, f, data, out);
      return DecodeV1Collection(column, f, data, writetime, out);
    }
    FoldCell& cell = out->cells.emplace_back();
    cell.timestamp = writetime;
    if (ours()) {
      const Value& ttl = FieldOf(data, f.ttl);
      const Value& ldt = FieldOf(data, f.ldt);
      const Value& raw = FieldOf(data, f.raw);
      const Value& shards = FieldOf(data, f.shards);
      if (ttl.kind() == Value::Kind::kInt32) cell.ttl = ttl.int32_value();
      if (ldt.kind() == Value::Kind::kInt64) cell.local_deletion_time = ldt.int64_value();
      if (raw.kind() == Value::Kind::kBytes) {
        cell.value = raw.bytes();
      } else if (type.kind == CqlKind::kCounter && !shards.is_null()) {
        std::vector<CounterShard> list;
        for (const Value& s : shards.elements()) {
          CounterShard& shard = list.emplace_back();
          const std::string& kind = FieldOf(s, f.shard_kind).bytes();
          shard.kind = kind == "global"  ? CounterShard::Kind::kGlobal
                       : kind == "local" ? CounterShard::Kind::kLocal
                                         : CounterShard::Kind::kRemote;
          const std::string& id = FieldOf(s, f.shard_id).bytes();
          std::copy_n(id.begin(), std::min<size_t>(id.size(), 16), shard.counter_id.begin());
          shard.clock = FieldOf(s, f.shard_clock).int64_value();
          shard.count = FieldOf(s, f.shard_count).int64_value();
        }
        cell.value = CounterContext(list);
      } else if (!value.is_null() && type.kind != CqlKind::kCounter) {
        ASSIGN_OR_RETURN(cell.value, Serialize(column, type, value));
      } else if (cell.local_deletion_time == kNoDeletionTime) {
        return Status::Corruption(
            StrCat("column '", column.name, "': a tombstone without a local deletion time"));
      }
      return Status::OK();
    }
    if (value.is_null()) {
      cell.local_deletion_time = StandInLocalDeletionTime(writetime);
      return Status::OK();
    }
    ASSIGN_OR_RETURN(cell.value, Serialize(column, type, value));
    SetExpiry(FieldOf(data, f.expires_at), writetime, &cell);
    return Status::OK();
  }

  Status DecodeCells(const ColumnSchema& column, const ColumnFields& f, const Value& data,
                     FoldColumn* out) const {
    const Value& deletion = FieldOf(data, f.deletion);
    if (!deletion.is_null()) {
      ASSIGN_OR_RETURN(int64_t at, RequiredInt64(FieldOf(deletion, f.deletion_mfda), "the complex deletion"));
      ASSIGN_OR_RETURN(int64_t ldt, RequiredInt64(FieldOf(deletion, f.deletion_ldt), "the complex deletion"));
      out->complex_deletion = DeletionTime{at, ldt};
    }
    const Value& cells = FieldOf(data, f.cells);
    if (cells.is_null()) return Status::OK();
    for (const Value& c : cells.elements()) {
      FoldCell& cell = out->cells.emplace_back();
      const Value& path = FieldOf(c, f.cell_path);
      const Value& value = FieldOf(c, f.cell_value);
      const Value& ttl = FieldOf(c, f.cell_ttl);
      const Value& ldt = FieldOf(c, f.cell_ldt);
      if (path.kind() != Value::Kind::kBytes) {
        return Status::Corruption(StrCat("column '", column.name, "': a cell without a path"));
      }
      cell.path = path.bytes();
      if (value.kind() == Value::Kind::kBytes) cell.value = value.bytes();
      ASSIGN_OR_RETURN(cell.timestamp, RequiredInt64(FieldOf(c, f.cell_writetime), "a cell's writetime"));
      if (ttl.kind() == Value::Kind::kInt32) cell.ttl = ttl.int32_value();
      if (ldt.kind() == Value::Kind::kInt64) cell.local_deletion_time = ldt.int64_value();
    }
    return Status::OK();
  }

  // A v1 collection: the elements of this generation at `writetime`; a null
  // value deletes the column at `writetime`; `replaced` deletes what came
  // before (at writetime - 1, as Cassandra writes an overwrite).
  Status DecodeV1Collection(const ColumnSchema& column, const ColumnFields& f, const Value& data,
                            int64_t writetime, FoldColumn* out) const {
    const CqlType& type = *column.type;
    const Value& value = FieldOf(data, f.value);
    if (value.is_null()) {
      out->complex_deletion = DeletionTime{writetime, StandInLocalDeletionTime(writetime)};
      return Status::OK();
    }
    const Value& replaced = FieldOf(data, f.replaced);
    if (replaced.kind() == Value::Kind::kBool && replaced.bool_value()) {
      int64_t before = writetime == std::numeric_limits<int64_t>::min() ? writetime : writetime - 1;
      out->complex_deletion = DeletionTime{before, StandInLocalDeletionTime(writetime)};
    }
    const Value& expires_at = FieldOf(data, f.expires_at);
    auto add = [&](std::string path, std::string bytes) {
      FoldCell& cell = out->cells.emplace_back();
      cell.timestamp = writetime;
      cell.path = std::move(path);
      cell.value = std::move(bytes);
      SetExpiry(expires_at, writetime, &cell);
    };
    switch (type.kind) {
      case CqlKind::kList:
        if (value.kind() != Value::Kind::kList)
          return Status::Corruption(StrCat("column '", column.name, "': not a list"));
        for (size_t i = 0; i < value.elements().size(); ++i) {
          if (value.elements()[i].is_null()) continue;
          ASSIGN_OR_RETURN(std::string bytes, Serialize(column, *type.params[0], value.elements()[i]));
          add(SyntheticTimeUuid(writetime, i), std::move(bytes));
        }
        break;
      case CqlKind::kSet:
        if (value.kind() != Value::Kind::kList)
          return Status::Corruption(StrCat("column '", column.name, "': not a list"));
        for (const Value& element : value.elements()) {
          if (element.is_null()) continue;
          ASSIGN_OR_RETURN(std::string bytes, Serialize(column, *type.params[0], element));
          add(std::move(bytes), "");
        }
        break;
      case CqlKind::kMap:
        if (value.kind() != Value::Kind::kMap)
          return Status::Corruption(StrCat("column '", column.name, "': not a map"));
        for (size_t i = 0; i < value.map_size(); ++i) {
          if (value.map_value(i).is_null()) continue;
          ASSIGN_OR_RETURN(std::string key, Serialize(column, *type.params[0], value.map_key(i)));
          ASSIGN_OR_RETURN(std::string bytes, Serialize(column, *type.params[1], value.map_value(i)));
          add(std::move(key), std::move(bytes));
        }
        break;
      case CqlKind::kUdt:
        if (value.kind() != Value::Kind::kStruct) break;
        for (size_t i = 0; i < value.fields().size() && i < type.params.size(); ++i) {
          if (value.fields()[i].is_null()) continue;
          ASSIGN_OR_RETURN(std::string bytes, Serialize(column, *type.params[i], value.fields()[i]));
          add(std::string{static_cast<char>(i >> 8), static_cast<char>(i & 0xff)}, std::move(bytes));
        }
        break;
      default:
        return Status::NotSupported(StrCat("column '", column.name, "': multi-cell type ", type.ToCql()));
    }
    // Cells in path order, one per path (the last one given wins).
    std::stable_sort(out->cells.begin(), out->cells.end(), [&type](const FoldCell& a, const FoldCell& b) {
      return CompareCellPaths(type, a.path, b.path) < 0;
    });
    std::vector<FoldCell> unique;
    for (FoldCell& cell : out->cells) {
      if (!unique.empty() && CompareCellPaths(type, unique.back().path, cell.path) == 0) {
        unique.back() = std::move(cell);
      } else {
        unique.push_back(std::move(cell));
      }
    }
    out->cells = std::move(unique);
    return Status::OK();
  }

  std::string path_;
  const TableSchema& table_;
  Flavor flavor_;
  Partitioner partitioner_;
  ClusteringOrder order_;
  std::vector<int> column_index_;
  std::vector<ColumnFields> column_fields_;
  std::vector<const ColumnSchema*> partition_key_columns_;
  std::vector<const ColumnSchema*> clustering_columns_;
  int op_ = -1, ts_ = -1;
  RangeFields start_, end_;
  std::vector<int> range_index_;
  int partition_key_ = -1, clustering_ = -1, range_start_clustering_ = -1, range_end_clustering_ = -1,
      ttl_ = -1, ldt_ = -1, shadowable_ = -1;
  int64_t row_ = 0;
  std::map<std::string, PartitionBuild> partitions_;
};

// A file read whole when opened: its partitions, in token order.
class WholeFileSource : public EnvelopeSource {
 public:
  WholeFileSource(std::string path, std::vector<FoldPartition> partitions, int64_t records)
      : path_(std::move(path)), partitions_(std::move(partitions)), records_(records) {}

  Result<bool> Next(FoldPartition* partition) override {
    if (next_ >= partitions_.size()) return false;
    *partition = std::move(partitions_[next_++]);
    return true;
  }
  const std::string& name() const override { return path_; }
  bool streaming() const override { return false; }
  int64_t max_records_held() const override { return records_; }

 private:
  std::string path_;
  std::vector<FoldPartition> partitions_;
  size_t next_ = 0;
  int64_t records_;
};

const std::string* FooterValue(const parquet::FileMetaData& metadata, std::string_view key) {
  for (const parquet::KeyValue& kv : metadata.key_value_metadata) {
    if (kv.key == key && kv.value) return &*kv.value;
  }
  return nullptr;
}

// How many generations a file holds (kGenerationsKey), 1 when it does not say.
Result<int> FileGenerations(const parquet::FileMetaData& metadata, const std::string& path) {
  const std::string* text = FooterValue(metadata, kGenerationsKey);
  if (!text) return 1;
  auto count = ParseInt64(*text);
  if (!count || *count < 1 || *count > std::numeric_limits<int32_t>::max()) {
    return Status::Corruption(StrCat(path, ": ", kGenerationsKey, " is '", *text, "', not a count"));
  }
  return static_cast<int>(*count);
}

// How far back a range_delete record may reach (kRangeLagKey); 0 when the
// file does not say, and its partitions must be read whole.
Result<int64_t> FileRangeLag(const parquet::FileMetaData& metadata, const std::string& path) {
  const std::string* text = FooterValue(metadata, kRangeLagKey);
  if (!text) return 0;
  auto lag = ParseInt64(*text);
  if (!lag || *lag < 1) {
    return Status::Corruption(StrCat(path, ": ", kRangeLagKey, " is '", *text, "', not a count of records"));
  }
  return *lag;
}

// A chain of our own files (see OpenEnvelopeChains), one record at a time,
// with the partition key and merged generation of each. Holds one file's
// footer and one row group's pages; the next file is opened when the one
// before is done, and must have the schema the chain was checked against.
class ChainReader {
 public:
  ChainReader(FileSystem& fs, std::vector<std::string> paths, std::unique_ptr<parquet::ParquetReader> first,
              std::shared_ptr<const TableSchema> table, parquet::Schema expected, const std::string& prefix,
              Partitioner partitioner, int generations)
      : fs_(fs),
        paths_(std::move(paths)),
        table_(std::move(table)),
        expected_(std::move(expected)),
        reader_(std::move(first)),
        partitioner_(partitioner),
        generations_(generations),
        decoder_(paths_.front(), *table_, Flavor::kCqlite, reader_->schema(), prefix, partitioner) {
    if (generations_ > 1) generation_field_ = FindField(reader_->schema().fields, EnvelopeNames(prefix).generation);
  }

  // Reads the first file's range lag, which the others must share.
  Status Init() {
    ASSIGN_OR_RETURN(range_lag_, FileRangeLag(reader_->metadata(), path()));
    return Status::OK();
  }

  // The next record, or false after the last file's last one.
  Result<bool> Next() {
    while (true) {
      if (!in_group_) {
        if (next_group_ == reader_->num_row_groups()) {
          if (file_ + 1 == paths_.size()) return false;
          RETURN_IF_ERROR(OpenFile(file_ + 1));
          continue;
        }
        RETURN_IF_ERROR(WithPath(reader_->StartRowGroup(next_group_)));
        max_records_held_ = std::max(max_records_held_, reader_->metadata().row_groups[next_group_].num_rows);
        ++next_group_;
        in_group_ = true;
      }
      auto more = reader_->NextRow(&record_);
      if (!more.ok()) return WithPath(more.status());
      if (*more) break;
      in_group_ = false;
    }
    ASSIGN_OR_RETURN(key_, decoder_.NextKey(record_));
    if (generation_field_ >= 0) {
      const Value& g = FieldOf(record_, generation_field_);
      if (g.kind() != Value::Kind::kInt32 || g.int32_value() < 0 || g.int32_value() >= generations_) {
        return Status::Corruption(StrCat(path(), ": record ", decoder_.records(), ": the generation is not one of the ",
                                         generations_, " the file holds"));
      }
      generation_ = g.int32_value();
    }
    return true;
  }

  const Value& record() const { return record_; }
  const std::string& key() const { return key_; }
  int32_t generation() const { return generation_; }
  int generations() const { return generations_; }
  Decoder& decoder() { return decoder_; }
  Partitioner partitioner() const { return partitioner_; }
  const std::string& path() const { return paths_[file_]; }
  const std::string& name() const { return paths_.front(); }
  int64_t max_records_held() const { return max_records_held_; }
  int64_t range_lag() const { return range_lag_; }

 private:
  Status OpenFile(size_t index) {
    const std::string& path = paths_[index];
    reader_.reset();  // one footer at a time
    ASSIGN_OR_RETURN(reader_, parquet::ParquetReader::Open(fs_, path));
    if (Status s = CheckSchemaMatches(expected_, reader_->schema()); !s.ok()) {
      return Status::InvalidArgument(StrCat(path, ": differs from the files before it in its chain: ", s.message()));
    }
    ASSIGN_OR_RETURN(int generations, FileGenerations(reader_->metadata(), path));
    if (generations != generations_) {
      return Status::InvalidArgument(
          StrCat(path, ": holds ", generations, " generation(s), the files before it in its chain ", generations_));
    }
    ASSIGN_OR_RETURN(int64_t range_lag, FileRangeLag(reader_->metadata(), path));
    if (range_lag != range_lag_) {
      return Status::InvalidArgument(StrCat(path, ": ", kRangeLagKey, " differs from the files before it in its chain"));
    }
    file_ = index;
    next_group_ = 0;
    in_group_ = false;
    decoder_.StartFile(path);
    return Status::OK();
  }
  // Reader errors name the file.
  Status WithPath(const Status& status) const {
    if (status.ok() || StartsWith(status.message(), path())) return status;
    return status.WithContext(path());
  }

  FileSystem& fs_;
  std::vector<std::string> paths_;
  std::shared_ptr<const TableSchema> table_;  // decoder_ refers to it
  parquet::Schema expected_;
  std::unique_ptr<parquet::ParquetReader> reader_;  // of paths_[file_]
  Partitioner partitioner_;
  int generations_ = 1;
  int generation_field_ = -1;
  Decoder decoder_;
  size_t file_ = 0;
  int next_group_ = 0;
  bool in_group_ = false;  // a row group is started and has records left
  Value record_;
  std::string key_;
  int32_t generation_ = 0;
  int64_t max_records_held_ = 0;
  int64_t range_lag_ = 0;
};

// A chain of our own files, read a record at a time: their records come
// partition by partition in token order (the writer's guarantee, checked
// here), so a partition is complete when the next one starts, in this row
// group or a later one or the next file. In a merged file a partition
// appears once per generation that has it, consecutively; each is handed on
// as a partition of its own (repeats_partitions), whole.
//
// Otherwise, in files that give their range lag (kRangeLagKey), a partition
// is handed on in pieces: once the partition being read holds twice the lag
// in items, those before the earliest of the last lag's are handed on, since
// no record to come can sort before that one. Holds one row group's pages,
// the record being read and the partition, or piece, being built.
class StreamingSource : public EnvelopeSource {
 public:
  explicit StreamingSource(std::unique_ptr<ChainReader> chain)
      : chain_(std::move(chain)),
        // A row's second record creates no item: two more for it.
        window_(chain_->generations() > 1 || chain_->range_lag() == 0 ? 0
                                                                      : static_cast<size_t>(chain_->range_lag()) + 2) {}

  Result<bool> Next(FoldPartition* out) override {
    if (!has_build_) {
      // The chain's first partition; each later one starts when the one before ends.
      if (started_) return false;
      started_ = true;
      ASSIGN_OR_RETURN(bool more, chain_->Next());
      if (!more) return false;
      RETURN_IF_ERROR(StartBuild());
    }
    out->Clear();
    RETURN_IF_ERROR(ReadOn(out));
    return true;
  }

  Status More(FoldPartition* out) override {
    out->ClearItems();
    return ReadOn(out);
  }

  const std::string& name() const override { return chain_->name(); }
  bool repeats_partitions() const override { return chain_->generations() > 1; }
  bool streaming() const override { return true; }
  int64_t max_records_held() const override { return chain_->max_records_held(); }

 private:
  // Reads on until the partition ends (the next one's first record starts a
  // new build) or a piece can be handed on, into `out`.
  Status ReadOn(FoldPartition* out) {
    while (true) {
      ASSIGN_OR_RETURN(bool more, chain_->Next());
      if (!more) {
        Finish(out);
        has_build_ = false;
        return Status::OK();
      }
      const std::string& key = chain_->key();
      if (key != build_.partition.key || chain_->generation() != build_generation_) {
        auto order = ComparePartitionKeys(chain_->partitioner(), build_.partition.key, key);
        bool repeat = order == std::strong_ordering::equal && chain_->generation() > build_generation_;
        if (order != std::strong_ordering::less && !repeat) {
          return Status::Corruption(StrCat(chain_->path(), ": partition 0x", ToHex(key), " (record ",
                                           chain_->decoder().records(), ") follows partition 0x",
                                           ToHex(build_.partition.key),
                                           ": not in token order, as a CQLite envelope file must be"));
        }
        Finish(out);
        return StartBuild();
      }
      RETURN_IF_ERROR(Add());
      if (window_ > 0 && refs_.size() >= 2 * window_ && Cut(out)) return Status::OK();
    }
  }

  // A new partition, with the record just read.
  Status StartBuild() {
    build_ = PartitionBuild();
    build_.partition.key = chain_->key();
    build_generation_ = chain_->generation();
    has_build_ = true;
    handed_on_ = false;
    refs_.clear();
    return Add();
  }

  // Adds the record just read to the partition, noting the item it makes.
  Status Add() {
    const size_t rows = build_.rows.size(), markers = build_.markers.size();
    const DeletionTime deletion = build_.partition.deletion;
    const size_t static_columns = build_.partition.static_row.columns.size();
    RETURN_IF_ERROR(chain_->decoder().AddTo(chain_->record(), &build_));
    if (build_.markers.size() > markers) {
      refs_.push_back({true, markers});  // a range: its start
    } else if (build_.rows.size() > rows) {
      refs_.push_back({false, rows});
    }
    if (handed_on_ && (build_.partition.deletion != deletion ||
                       build_.partition.static_row.columns.size() != static_columns)) {
      return Status::Corruption(StrCat(chain_->path(), ": record ", chain_->decoder().records(), ": partition 0x",
                                       ToHex(build_.partition.key),
                                       ": a partition deletion or static row after its rows, which the file's ",
                                       kRangeLagKey, " rules out"));
    }
    return Status::OK();
  }

  // Hands on the items no later record can sort before, if any.
  bool Cut(FoldPartition* out) {
    Decoder& decoder = chain_->decoder();
    PartitionBuild::Item earliest = refs_[refs_.size() - window_];
    for (size_t i = refs_.size() - window_ + 1; i < refs_.size(); ++i) {
      if (decoder.CompareItems(build_, refs_[i], earliest) < 0) earliest = refs_[i];
    }
    decoder.SortItems(build_);
    size_t count = 0;
    while (count < build_.items.size() && decoder.CompareItems(build_, build_.items[count], earliest) < 0) ++count;
    if (count == 0) return false;
    if (!handed_on_) {
      out->key = build_.partition.key;
      out->deletion = build_.partition.deletion;
      out->has_static_row = build_.partition.has_static_row;
      out->static_row = build_.partition.static_row;
    }
    decoder.TakeItems(build_, count, out, &refs_);
    if (refs_.size() > window_) refs_.erase(refs_.begin(), refs_.end() - window_);
    out->complete = false;
    handed_on_ = true;
    return true;
  }

  // The rest of the partition, into `out`: all of it, or its last piece.
  void Finish(FoldPartition* out) {
    FoldPartition rest = chain_->decoder().Build(build_);
    if (!handed_on_) {
      *out = std::move(rest);
    } else {
      out->rows = std::move(rest.rows);
      out->markers = std::move(rest.markers);
      out->item_is_marker = std::move(rest.item_is_marker);
    }
    out->complete = true;
  }

  std::unique_ptr<ChainReader> chain_;
  const size_t window_;  // 0: partitions whole
  bool started_ = false;
  PartitionBuild build_;
  int32_t build_generation_ = 0;
  bool has_build_ = false;
  bool handed_on_ = false;  // a piece of build_'s partition was handed on
  // The items the partition's records made since the last piece, in the
  // order read (a range by its start).
  std::vector<PartitionBuild::Item> refs_;
};

Result<TableSchema> ParseTable(std::string_view cql, const std::string& what) {
  auto table = ParseCqlTableSchema(cql);
  if (!table.ok()) return Status::InvalidArgument(StrCat(what, ": ", table.status().message()));
  return std::move(*table);
}

}  // namespace

int64_t StandInLocalDeletionTime(int64_t timestamp_micros) {
  return std::clamp<int64_t>(FloorDiv(timestamp_micros, kMicrosPerSecond), 0, kMaxDeletionTime);
}

namespace {

// What opening a chain's files establishes: the table, and the first file's
// partitioner for the others to match.
struct OpenState {
  std::shared_ptr<TableSchema> explicit_schema;
  std::string first_schema_cql, first_path;
  bool has_partitioner = false;
  std::optional<Partitioner> partitioner;
};

// One file, checked: an envelope file of a known version whose columns are
// the table's envelope columns.
struct CheckedFile {
  std::unique_ptr<parquet::ParquetReader> reader;
  Flavor flavor = Flavor::kV1;
  std::string prefix;
  std::optional<Partitioner> partitioner;
  int generations = 1;  // a merged file of the earlier kind: more than 1
  parquet::Schema expected;
  ChainFooter footer;
};

Result<CheckedFile> OpenChecked(FileSystem& fs, const std::string& path, const ReadOptions& options,
                                OpenState& state, EnvelopeInputs& inputs) {
  CheckedFile file;
  auto opened = parquet::ParquetReader::Open(fs, path);
  if (!opened.ok()) {
    std::string message = opened.status().message();
    if (StartsWith(message, path + ": ")) message = message.substr(path.size() + 2);
    return Status::InvalidArgument(StrCat(path, ": not a Parquet envelope file: ", message));
  }
  file.reader = std::move(*opened);
  const parquet::FileMetaData& metadata = file.reader->metadata();
  const std::string* version = FooterValue(metadata, kVersionKey);
  if (!version) {
    return Status::InvalidArgument(StrCat(path, ": not an envelope file: its footer has no ", kVersionKey, " entry"));
  }
  if (*version != kVersion) {
    return Status::NotSupported(StrCat(path, ": unknown envelope version ", *version, " (", kVersionKey,
                                       "; this cqlite reads version ", kVersion, ")"));
  }
  const std::string* extension_version = FooterValue(metadata, kExtensionVersionKey);
  file.flavor = extension_version ? Flavor::kCqlite : Flavor::kV1;
  if (extension_version && *extension_version != kExtensionVersion) {
    return Status::NotSupported(StrCat(path, ": unknown cqlite envelope extension version ", *extension_version,
                                       " (", kExtensionVersionKey, "; this cqlite reads version ",
                                       kExtensionVersion, ")"));
  }
  file.prefix = options.prefix.empty() ? kDefaultPrefix : options.prefix;
  file.partitioner = Partitioner::kMurmur3;
  if (file.flavor == Flavor::kCqlite) {
    if (const std::string* p = FooterValue(metadata, kPrefixKey)) file.prefix = *p;
    const std::string* name = FooterValue(metadata, kPartitionerKey);
    if (name) file.partitioner = PartitionerFromClassName(*name);
    ASSIGN_OR_RETURN(file.generations, FileGenerations(metadata, path));
    for (auto [key, field] : {std::pair{kSourceKey, &file.footer.source}, std::pair{kKeyspaceKey, &file.footer.keyspace},
                              std::pair{kTableKey, &file.footer.table}, std::pair{kTableIdKey, &file.footer.table_id}}) {
      if (const std::string* value = FooterValue(metadata, key)) *field = *value;
    }
    file.footer.generations = file.generations;
    if (const std::string* merged = FooterValue(metadata, kMergedGenerationsKey)) {
      auto count = ParseInt64(*merged);
      if (!count || *count < 1) {
        return Status::Corruption(StrCat(path, ": ", kMergedGenerationsKey, " is '", *merged, "', not a count"));
      }
      file.footer.generations = *count;
    }
    if (!state.explicit_schema) {
      const std::string* cql = FooterValue(metadata, kSchemaCqlKey);
      if (!cql) return Status::InvalidArgument(StrCat(path, ": the footer has no ", kSchemaCqlKey, "; pass --schema"));
      if (!inputs.schema) {
        ASSIGN_OR_RETURN(TableSchema table, ParseTable(*cql, StrCat(path, ": ", kSchemaCqlKey)));
        inputs.schema = std::make_shared<TableSchema>(std::move(table));
        state.first_schema_cql = *cql;
        state.first_path = path;
      } else if (*cql != state.first_schema_cql) {
        return Status::InvalidArgument(
            StrCat(path, ": its table schema differs from that of ", state.first_path, "; pass --schema"));
      }
    }
  } else if (!state.explicit_schema) {
    return Status::InvalidArgument(
        StrCat(path, ": an envelope v1 file carries no table schema; pass --schema with its CREATE TABLE"));
  }
  const TableSchema& table = *inputs.schema;
  if (Status s = CheckPrefix(table, file.prefix); !s.ok()) return Status::InvalidArgument(StrCat(path, ": ", s.message()));
  if (file.flavor == Flavor::kV1) {
    for (const ColumnSchema& column : table.columns) {
      if (column.type->kind == CqlKind::kCounter) {
        return Status::NotSupported(
            StrCat(path, ": column '", column.name, "' is a counter, which envelope v1 files cannot hold"));
      }
    }
  }
  file.expected = BuildEnvelopeSchema(table, file.prefix, file.flavor, nullptr, file.generations > 1);
  if (Status s = CheckSchemaMatches(file.expected, file.reader->schema()); !s.ok()) {
    return Status::InvalidArgument(StrCat(path, ": the file does not match the envelope schema of ", table.keyspace,
                                          table.keyspace.empty() ? "" : ".", table.table, ": ", s.message()));
  }
  file.footer.prefix = file.prefix;
  if (!state.has_partitioner) {
    state.partitioner = file.partitioner;
    state.has_partitioner = true;
    inputs.partitioner = file.partitioner;
  } else if (state.partitioner != file.partitioner) {
    return Status::InvalidArgument(StrCat(path, ": written by another partitioner than the files before it"));
  }
  return file;
}

}  // namespace

Result<EnvelopeInputs> OpenEnvelopeChains(FileSystem& fs, const std::vector<std::vector<std::string>>& chains,
                                          const ReadOptions& options) {
  if (chains.empty()) return Status::InvalidArgument("no envelope files given");
  EnvelopeInputs inputs;
  OpenState state;
  if (!options.schema_file.empty()) {
    ASSIGN_OR_RETURN(std::string text, fs.ReadFileToString(options.schema_file));
    ASSIGN_OR_RETURN(TableSchema table, ParseTable(text, options.schema_file));
    state.explicit_schema = std::make_shared<TableSchema>(std::move(table));
    inputs.schema = state.explicit_schema;
  }
  // Every file is checked before any is read.
  std::vector<CheckedFile> firsts;
  for (const std::vector<std::string>& chain : chains) {
    if (chain.empty()) return Status::InvalidArgument("an envelope chain without files");
    std::optional<CheckedFile> first;
    for (const std::string& path : chain) {
      ASSIGN_OR_RETURN(CheckedFile file, OpenChecked(fs, path, options, state, inputs));
      if (first) {
        if (file.flavor != first->flavor || file.generations != first->generations || file.prefix != first->prefix) {
          return Status::InvalidArgument(StrCat(path, ": differs from ", chain.front(), ", the first file of its chain"));
        }
        continue;  // closed again: a chain holds one footer at a time
      }
      first = std::move(file);
    }
    firsts.push_back(std::move(*first));
  }
  for (size_t c = 0; c < chains.size(); ++c) {
    const std::vector<std::string>& chain = chains[c];
    CheckedFile& first = firsts[c];
    inputs.footers.push_back(first.footer);
    if (first.flavor == Flavor::kCqlite && first.partitioner && options.stream_own_files) {
      auto reader = std::make_unique<ChainReader>(fs, chain, std::move(first.reader), inputs.schema,
                                                  std::move(first.expected), first.prefix, *first.partitioner,
                                                  first.generations);
      RETURN_IF_ERROR(reader->Init());
      inputs.sources.push_back(std::make_unique<StreamingSource>(std::move(reader)));
      continue;
    }
    const std::string& path = chain.front();
    if (chain.size() > 1 || first.generations > 1) {
      return Status::InvalidArgument(StrCat(path, ": a chain of files or a merged file can only be streamed"));
    }
    // v1 files need not be in token order (and without a partitioner we
    // cannot check ours): read the file whole and sort its partitions.
    parquet::ParquetReader& reader = *first.reader;
    Decoder decoder(path, *inputs.schema, first.flavor, reader.schema(), first.prefix,
                    first.partitioner.value_or(Partitioner::kMurmur3));
    for (int group = 0; group < reader.num_row_groups(); ++group) {
      auto rows = reader.ReadRowGroup(group);
      if (!rows.ok()) {
        if (StartsWith(rows.status().message(), path)) return rows.status();
        return rows.status().WithContext(path);
      }
      for (const Value& row : *rows) RETURN_IF_ERROR(decoder.Add(row));
    }
    int64_t records = decoder.records();
    inputs.sources.push_back(std::make_unique<WholeFileSource>(path, decoder.Finish(), records));
  }
  return inputs;
}

Result<EnvelopeInputs> OpenEnvelopeFiles(FileSystem& fs, const std::vector<std::string>& paths,
                                         const ReadOptions& options) {
  std::vector<std::vector<std::string>> chains;
  for (const std::string& path : paths) chains.push_back({path});
  return OpenEnvelopeChains(fs, chains, options);
}

}  // namespace cqlite::envelope
