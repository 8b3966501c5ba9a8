#include "envelope/envelope_writer.h"

#include <unistd.h>

#include <algorithm>

#include "cassandra/value_format.h"
#include "envelope/value_convert.h"
#include "util/strings.h"
#include "util/version.h"

namespace cqlite::envelope {

namespace {

using parquet::Value;

constexpr int64_t kMicrosPerSecond = 1000000;

std::vector<HeaderColumn> MapColumns(const std::vector<ColumnLayout>& columns, const TableSchema& table) {
  std::vector<HeaderColumn> targets;
  for (const ColumnLayout& layout : columns) {
    HeaderColumn target;
    for (size_t i = 0; i < table.columns.size(); ++i) {
      if (table.columns[i].name == layout.name) target.column = static_cast<int>(i);
    }
    target.dropped_at = table.LastDropMicros(layout.name);
    targets.push_back(target);
  }
  return targets;
}

Value OptionalInt64(bool set, int64_t v) { return set ? Value::Int64(v) : Value::Null(); }

Value Bytes(std::string_view bytes) { return Value::Bytes(std::string(bytes.data(), bytes.size())); }

std::string PartitionerName(std::optional<Partitioner> partitioner) {
  if (!partitioner) return "";
  return PartitionerClassName(*partitioner);
}

const char* ShardKindName(CounterShard::Kind kind) {
  switch (kind) {
    case CounterShard::Kind::kGlobal:
      return "global";
    case CounterShard::Kind::kLocal:
      return "local";
    case CounterShard::Kind::kRemote:
      break;
  }
  return "remote";
}

}  // namespace

GenerationInfo DescribeGeneration(const SSTable& sstable, const TableSchema& table) {
  const SSTableLocation& location = sstable.location();
  GenerationInfo info;
  info.source = location.name.prefix + "Data.db";
  info.generation = location.name.generation;
  info.sstable_version = location.name.version.name;
  info.sstable_format = location.name.version.format == SSTableFormat::kBti ? "bti" : "big";
  info.keyspace = table.keyspace.empty() ? location.keyspace : table.keyspace;
  info.table = table.table.empty() ? location.table : table.table;
  info.table_id = table.table_id.value_or(location.table_id);
  info.data_size = sstable.data_size();
  info.partitioner = sstable.Partitioner();
  info.static_columns = MapColumns(sstable.layout().static_columns, table);
  info.regular_columns = MapColumns(sstable.layout().regular_columns, table);
  return info;
}

Result<std::unique_ptr<EnvelopeWriter>> EnvelopeWriter::Open(FileSystem& fs, const std::string& path,
                                                             const TableSchema& table,
                                                             GenerationInfo generation,
                                                             const ExportOptions& options) {
  RETURN_IF_ERROR(CheckPrefix(table, options.prefix));
  EnvelopeLayout layout;
  parquet::Schema schema = BuildEnvelopeSchema(table, options.prefix, Flavor::kCqlite, &layout);
  parquet::WriterOptions writer_options;
  writer_options.compression = options.compression;
  writer_options.row_group_rows = options.row_group_rows;
  writer_options.key_value_metadata = {
      {kVersionKey, kVersion},
      {kSourceKey, generation.source},
      {kSchemaHashKey, SchemaHash(table)},
      {kProducerVersionKey, std::string("cqlite ") + kCqliteVersion},
      {kExtensionKey, kExtension},
      {kExtensionVersionKey, kExtensionVersion},
      {kPrefixKey, options.prefix},
      {kSchemaCqlKey, TableSchemaToCql(table)},
      {kKeyspaceKey, generation.keyspace},
      {kTableKey, generation.table},
      {kTableIdKey, generation.table_id},
      {kGenerationKey, generation.generation},
      {kSSTableVersionKey, generation.sstable_version},
      {kSSTableFormatKey, generation.sstable_format},
      {kDataSizeKey, std::to_string(generation.data_size)},
      {kPartitionerKey, PartitionerName(generation.partitioner)},
      {kRangeLagKey, std::to_string(std::max<int64_t>(options.range_split_records, 1) + 2)},
  };
  if (generation.merged_generations > 0) {
    writer_options.key_value_metadata.push_back(
        {kMergedGenerationsKey, std::to_string(generation.merged_generations)});
  }
  ASSIGN_OR_RETURN(auto writer,
                   parquet::ParquetWriter::Open(fs, path, std::move(schema), std::move(writer_options)));
  return std::unique_ptr<EnvelopeWriter>(
      new EnvelopeWriter(table, std::move(generation), layout, std::move(writer),
                         std::max<int64_t>(options.range_split_records, 1)));
}

EnvelopeWriter::EnvelopeWriter(const TableSchema& table, GenerationInfo generation, EnvelopeLayout layout,
                               std::unique_ptr<parquet::ParquetWriter> writer, int64_t range_split_records)
    : table_(table),
      generation_(std::move(generation)),
      layout_(layout),
      writer_(std::move(writer)),
      batch_(writer_->schema()),
      partition_key_columns_(table.PartitionKeyColumns()),
      clustering_columns_(table.ClusteringColumns()),
      first_clustering_field_(static_cast<int>(partition_key_columns_.size())),
      range_split_records_(range_split_records) {}

std::vector<Value> EnvelopeWriter::NewRecord(const char* op) const {
  std::vector<Value> record(writer_->schema().fields.size());
  for (size_t i = 0; i < key_values_.size(); ++i) record[i] = key_values_[i];
  record[layout_.op] = Value::String(op);
  record[layout_.partition_key] = Value::Bytes(key_);
  return record;
}

Status EnvelopeWriter::Write(std::vector<Value> record) {
  ++records_;
  if (pending_start_) ++records_in_range_;
  RETURN_IF_ERROR(batch_.AppendRow(Value::Struct(std::move(record))));
  if (batch_.num_rows() >= kBatchRows) return FlushBatch();
  return Status::OK();
}

Status EnvelopeWriter::FlushBatch() {
  if (batch_.num_rows() == 0) return Status::OK();
  Status status = writer_->WriteBatch(batch_);
  batch_.Clear();
  return status;
}

Status EnvelopeWriter::OnPartitionStart(const PartitionHeader& partition) {
  // Readers stream our files on the guarantee that partitions come in token
  // order (docs/formats/envelope.md): a Data.db that breaks it is corrupt.
  if (has_key_ && generation_.partitioner &&
      ComparePartitionKeys(*generation_.partitioner, key_, partition.key) != std::strong_ordering::less) {
    return Status::Corruption(StrCat(generation_.source, ": partition 0x", ToHex(partition.key),
                                     " follows partition 0x", ToHex(key_), ": not in token order"));
  }
  has_key_ = true;
  key_.assign(partition.key.data(), partition.key.size());
  pending_start_.reset();
  key_values_.clear();
  std::vector<std::string> components;
  if (partition_key_columns_.size() == 1) {
    components.push_back(key_);
  } else {
    ASSIGN_OR_RETURN(components, SplitCompositeKey(*table_.PartitionKeyType(), key_));
  }
  for (size_t i = 0; i < partition_key_columns_.size(); ++i) {
    const ColumnSchema& column = *partition_key_columns_[i];
    std::optional<Value> typed;
    if (i < components.size()) typed = ToTyped(*column.type, components[i]);
    bool nullable = writer_->schema().fields[i].optional();
    if (!typed && !nullable) {
      return Status::InvalidArgument(StrCat("partition key 0x", ToHex(key_), ": the value of column ",
                                            column.name, " has no ", column.type->ToCql(),
                                            " form in the envelope"));
    }
    key_values_.push_back(typed ? std::move(*typed) : Value::Null());
  }
  if (!partition.deletion.IsLive()) {
    std::vector<Value> record = NewRecord(kOpPartitionDelete);
    record[layout_.ts] = Value::Int64(partition.deletion.marked_for_delete_at);
    record[layout_.local_deletion_time] = Value::Int64(partition.deletion.local_deletion_time);
    RETURN_IF_ERROR(Write(std::move(record)));
  }
  return Status::OK();
}

void EnvelopeWriter::SetClustering(const Clustering& clustering, std::vector<Value>* record) const {
  bool exact = true;
  std::vector<Value> raw;
  for (size_t i = 0; i < clustering.values.size(); ++i) {
    const std::string_view bytes(clustering.values[i].data(), clustering.values[i].size());
    bool present = i >= clustering.present.size() || clustering.present[i];
    raw.push_back(present ? Bytes(bytes) : Value::Null());
    if (!present) {
      exact = false;
      continue;
    }
    if (i >= clustering_columns_.size()) {
      exact = false;
      continue;
    }
    std::optional<Value> typed = ToTyped(*clustering_columns_[i]->type, bytes);
    if (!typed || !Reproduces(*clustering_columns_[i]->type, bytes, *typed)) exact = false;
    if (typed) (*record)[first_clustering_field_ + i] = std::move(*typed);
  }
  if (clustering.values.size() != clustering_columns_.size()) exact = false;
  if (!exact) (*record)[layout_.clustering] = Value::List(std::move(raw));
}

Value EnvelopeWriter::RangeBound(const std::vector<std::string>& values, const std::vector<bool>& present,
                                 bool inclusive, Value* raw) const {
  std::vector<Value> fields(clustering_columns_.size() + 1);
  bool exact = true;
  std::vector<Value> raw_values;
  for (size_t i = 0; i < values.size(); ++i) {
    bool is_present = i >= present.size() || present[i];
    raw_values.push_back(is_present ? Value::Bytes(values[i]) : Value::Null());
    if (!is_present || i >= clustering_columns_.size()) {
      exact = false;
      continue;
    }
    std::optional<Value> typed = ToTyped(*clustering_columns_[i]->type, values[i]);
    if (!typed || !Reproduces(*clustering_columns_[i]->type, values[i], *typed)) exact = false;
    if (typed) fields[i] = std::move(*typed);
  }
  fields.back() = Value::Bool(inclusive);
  *raw = exact ? Value::Null() : Value::List(std::move(raw_values));
  return Value::Struct(std::move(fields));
}

Status EnvelopeWriter::WriteRange(const PendingStart& start, const Clustering& end, bool end_inclusive,
                                  const DeletionTime& deletion) {
  std::vector<Value> record = NewRecord(kOpRangeDelete);
  record[layout_.ts] = Value::Int64(deletion.marked_for_delete_at);
  record[layout_.local_deletion_time] = Value::Int64(deletion.local_deletion_time);
  record[layout_.range_start] =
      RangeBound(start.values, start.present, start.inclusive, &record[layout_.range_start_clustering]);
  std::vector<std::string> end_values;
  for (const auto& v : end.values) end_values.emplace_back(v.data(), v.size());
  std::vector<bool> end_present(end.present.begin(), end.present.end());
  record[layout_.range_end] =
      RangeBound(end_values, end_present, end_inclusive, &record[layout_.range_end_clustering]);
  return Write(std::move(record));
}

void EnvelopeWriter::OpenRange(const Clustering& bound, bool inclusive, const DeletionTime& deletion) {
  PendingStart start;
  for (const auto& v : bound.values) start.values.emplace_back(v.data(), v.size());
  start.present.assign(bound.present.begin(), bound.present.end());
  start.inclusive = inclusive;
  pending_start_ = std::move(start);
  pending_deletion_ = deletion;
  records_in_range_ = 0;
}

Status EnvelopeWriter::OnRangeTombstoneMarker(const RangeTombstoneMarker& marker) {
  auto open = [&](bool inclusive) {
    OpenRange(marker.bound, inclusive, marker.IsBoundary() ? marker.start_deletion : marker.deletion);
  };
  auto close = [&](bool inclusive, const DeletionTime& deletion) -> Status {
    // An end without a start opens at the bottom (an empty, exclusive start, as v1 writes it).
    PendingStart start = pending_start_ ? *pending_start_ : PendingStart{{}, {}, false};
    pending_start_.reset();
    return WriteRange(start, marker.bound, inclusive, deletion);
  };
  switch (marker.kind) {
    case ClusteringKind::kInclStartBound:
      open(true);
      return Status::OK();
    case ClusteringKind::kExclStartBound:
      open(false);
      return Status::OK();
    case ClusteringKind::kInclEndBound:
      return close(true, marker.deletion);
    case ClusteringKind::kExclEndBound:
      return close(false, marker.deletion);
    case ClusteringKind::kExclEndInclStartBoundary:
      RETURN_IF_ERROR(close(false, marker.end_deletion));
      open(true);
      return Status::OK();
    case ClusteringKind::kInclEndExclStartBoundary:
      RETURN_IF_ERROR(close(true, marker.end_deletion));
      open(false);
      return Status::OK();
    default:
      return Status::Corruption(StrCat(generation_.source, ": partition 0x", ToHex(key_),
                                       ": range tombstone marker of kind ", static_cast<int>(marker.kind)));
  }
}

Status EnvelopeWriter::OnPartitionEnd() {
  if (pending_start_) {
    return Status::Corruption(StrCat(generation_.source, ": partition 0x", ToHex(key_),
                                     ": a range tombstone is opened and never closed"));
  }
  return Status::OK();
}

Value EnvelopeWriter::SimpleColumn(const ColumnSchema& column, const Cell& cell) const {
  const CqlType& type = *column.type;
  const std::string_view bytes(cell.value.data(), cell.value.size());
  bool tombstone = cell.is_tombstone;
  bool expiring = cell.ttl != kNoTtl;
  Value value, raw, shards;
  if (!tombstone) {
    if (type.kind == CqlKind::kCounter) {
      value = Value::Int64(CounterTotal(bytes));
      auto parsed = ParseCounterContext(bytes);
      if (parsed.ok()) {
        std::vector<Value> list;
        for (const CounterShard& shard : *parsed) {
          list.push_back(Value::Struct(
              {Value::String(ShardKindName(shard.kind)),
               Value::Bytes(std::string(reinterpret_cast<const char*>(shard.counter_id.data()), 16)),
               Value::Int64(shard.clock), Value::Int64(shard.count)}));
        }
        shards = Value::List(std::move(list));
      }
      if (!parsed.ok() || CounterContext(*parsed) != bytes) raw = Bytes(bytes);
    } else {
      std::optional<Value> typed = ToTyped(type, bytes);
      if (!typed || !Reproduces(type, bytes, *typed)) raw = Bytes(bytes);
      if (typed) value = std::move(*typed);
    }
  }
  std::vector<Value> fields;
  fields.push_back(std::move(value));
  fields.push_back(Value::Int64(cell.timestamp));
  fields.push_back(expiring ? Value::Int64(cell.local_deletion_time * kMicrosPerSecond) : Value::Null());
  fields.push_back(expiring ? Value::Int32(cell.ttl) : Value::Null());
  fields.push_back(OptionalInt64(cell.local_deletion_time != kNoDeletionTime, cell.local_deletion_time));
  fields.push_back(std::move(raw));
  if (type.kind == CqlKind::kCounter) fields.push_back(std::move(shards));
  return Value::Struct(std::move(fields));
}

Value EnvelopeWriter::ComplexColumn(const ColumnSchema& column, const ColumnData& data,
                                    const std::vector<const Cell*>& cells) const {
  const CqlType& type = *column.type;
  // The v1 view: the live elements of this generation.
  std::vector<Value> elements;
  std::vector<std::pair<Value, Value>> entries;
  std::vector<Value> udt_fields(type.kind == CqlKind::kUdt ? type.params.size() : 0);
  int64_t writetime = std::numeric_limits<int64_t>::min();
  bool any_live = false, all_expiring = true;
  int64_t latest_expiry = 0;
  std::vector<Value> cell_values;
  for (const Cell* cell : cells) {
    writetime = std::max(writetime, cell->timestamp);
    const std::string_view path(cell->path.data(), cell->path.size());
    const std::string_view bytes(cell->value.data(), cell->value.size());
    bool expiring = cell->ttl != kNoTtl;
    cell_values.push_back(Value::Struct(
        {Bytes(path), cell->is_tombstone ? Value::Null() : Bytes(bytes), Value::Int64(cell->timestamp),
         expiring ? Value::Int32(cell->ttl) : Value::Null(),
         OptionalInt64(cell->local_deletion_time != kNoDeletionTime, cell->local_deletion_time)}));
    if (cell->is_tombstone) continue;
    any_live = true;
    if (expiring) {
      latest_expiry = std::max(latest_expiry, cell->local_deletion_time);
    } else {
      all_expiring = false;
    }
    auto typed = [](const CqlType& t, std::string_view b) { return ToTyped(t, b).value_or(Value::Null()); };
    switch (type.kind) {
      case CqlKind::kList:
        elements.push_back(typed(*type.params[0], bytes));
        break;
      case CqlKind::kSet:
        elements.push_back(typed(*type.params[0], path));
        break;
      case CqlKind::kMap: {
        std::optional<Value> key = ToTyped(*type.params[0], path);
        if (key) entries.emplace_back(std::move(*key), typed(*type.params[1], bytes));
        break;
      }
      case CqlKind::kUdt:
        if (path.size() == 2) {
          size_t index = (static_cast<uint8_t>(path[0]) << 8) | static_cast<uint8_t>(path[1]);
          if (index < udt_fields.size()) udt_fields[index] = typed(*type.params[index], bytes);
        }
        break;
      default:
        break;
    }
  }
  bool deleted = !data.complex_deletion.IsLive();
  if (cells.empty()) writetime = deleted ? data.complex_deletion.marked_for_delete_at : 0;
  Value value;
  if (any_live || !deleted) {
    switch (type.kind) {
      case CqlKind::kMap:
        value = Value::Map(std::move(entries));
        break;
      case CqlKind::kUdt:
        value = type.params.empty() ? Value::String("0x") : Value::Struct(std::move(udt_fields));
        break;
      default:
        value = Value::List(std::move(elements));
    }
  }
  std::vector<Value> fields;
  fields.push_back(std::move(value));
  fields.push_back(Value::Int64(writetime));
  fields.push_back(OptionalInt64(any_live && all_expiring, latest_expiry * kMicrosPerSecond));
  if (HasReplacedField(column)) fields.push_back(Value::Bool(deleted));
  fields.push_back(Value::Null());  // ttl: per cell
  fields.push_back(Value::Null());  // local_deletion_time: per cell
  fields.push_back(deleted ? Value::Struct({Value::Int64(data.complex_deletion.marked_for_delete_at),
                                            Value::Int64(data.complex_deletion.local_deletion_time)})
                           : Value::Null());
  fields.push_back(Value::List(std::move(cell_values)));
  return Value::Struct(std::move(fields));
}

Status EnvelopeWriter::SetColumns(const Row& row, std::vector<Value>* record) const {
  const std::vector<HeaderColumn>& targets =
      row.is_static ? generation_.static_columns : generation_.regular_columns;
  std::vector<const Cell*> kept;
  for (const ColumnData& data : row.columns) {
    if (data.column < 0 || static_cast<size_t>(data.column) >= targets.size()) {
      return Status::Corruption(StrCat(generation_.source, ": partition 0x", ToHex(key_), ": column index ",
                                       data.column, " is not in the serialization header"));
    }
    const HeaderColumn& target = targets[data.column];
    if (target.column < 0) continue;
    const ColumnSchema& column = table_.columns[target.column];
    kept.clear();
    for (const Cell& cell : data.cells) {
      if (cell.timestamp > target.dropped_at) kept.push_back(&cell);
    }
    if (data.is_complex || column.type->IsMultiCell()) {
      ColumnData live = data;
      if (live.complex_deletion.marked_for_delete_at <= target.dropped_at)
        live.complex_deletion = DeletionTime{};
      if (kept.empty() && live.complex_deletion.IsLive()) continue;
      (*record)[target.column] = ComplexColumn(column, live, kept);
    } else {
      if (kept.empty()) continue;
      (*record)[target.column] = SimpleColumn(column, *kept.front());
    }
  }
  return Status::OK();
}

Status EnvelopeWriter::OnRow(const Row& row) {
  if (row.is_static) {
    std::vector<Value> record = NewRecord(kOpStaticUpsert);
    RETURN_IF_ERROR(SetColumns(row, &record));
    return Write(std::move(record));
  }
  RETURN_IF_ERROR(WriteRow(row));
  // A range open over many records is ended at this row and started again
  // just after it (kRangeLagKey): the same deletion over the same rows.
  if (pending_start_ && records_in_range_ >= range_split_records_) {
    RETURN_IF_ERROR(WriteRange(*pending_start_, row.clustering, /*end_inclusive=*/true, pending_deletion_));
    OpenRange(row.clustering, /*inclusive=*/false, pending_deletion_);
  }
  return Status::OK();
}

Status EnvelopeWriter::WriteRow(const Row& row) {
  bool deleted = !row.deletion.IsLive();
  if (deleted) {
    std::vector<Value> record = NewRecord(kOpRowDelete);
    SetClustering(row.clustering, &record);
    record[layout_.ts] = Value::Int64(row.deletion.marked_for_delete_at);
    record[layout_.local_deletion_time] = Value::Int64(row.deletion.local_deletion_time);
    if (row.deletion_is_shadowable) record[layout_.shadowable] = Value::Bool(true);
    RETURN_IF_ERROR(Write(std::move(record)));
  }
  if (deleted && row.liveness.IsEmpty() && row.columns.empty()) return Status::OK();
  std::vector<Value> record = NewRecord(kOpUpsert);
  SetClustering(row.clustering, &record);
  if (!row.liveness.IsEmpty()) {
    record[layout_.ts] = Value::Int64(row.liveness.timestamp);
    if (row.liveness.IsExpiring()) {
      record[layout_.ttl] = Value::Int32(row.liveness.ttl);
      record[layout_.local_deletion_time] = Value::Int64(row.liveness.local_expiration_time);
    }
  }
  RETURN_IF_ERROR(SetColumns(row, &record));
  return Write(std::move(record));
}

Result<int64_t> EnvelopeWriter::Close() {
  RETURN_IF_ERROR(FlushBatch());
  ASSIGN_OR_RETURN(parquet::WriteResult result, writer_->Close());
  (void)result;
  return records_;
}

std::string TemporaryPath(const std::string& output) {
  return JoinPath(DirName(output), StrCat(".", BaseName(output), ".tmp-", static_cast<int64_t>(getpid())));
}

Result<int64_t> ExportSSTable(FileSystem& fs, const SSTable& sstable, const TableSchema& table,
                              const std::string& output, const ExportOptions& options) {
  RETURN_IF_ERROR(CheckPrefix(table, options.prefix));
  // A chain never ended early: one file, written and renamed as a chain's are.
  SegmentedEnvelopeWriter writer(fs, table, DescribeGeneration(sstable, table),
                                 [&output](int) { return output; }, /*max_records=*/0, options);
  RETURN_IF_ERROR(sstable.Scan(writer));
  const int64_t records = writer.records();
  RETURN_IF_ERROR(writer.Finish().status());
  return records;
}

ChainFiles::~ChainFiles() {
  if (kept_) return;
  if (!temporary_.empty()) (void)fs_.Remove(temporary_);
  for (const std::string& path : completed_) (void)fs_.Remove(path);
}

std::string ChainFiles::StartNext() {
  temporary_ = TemporaryPath(file_path_(static_cast<int>(completed_.size())));
  return temporary_;
}

Status ChainFiles::Complete() {
  std::string path = file_path_(static_cast<int>(completed_.size()));
  RETURN_IF_ERROR(fs_.Rename(temporary_, path));
  temporary_.clear();
  completed_.push_back(std::move(path));
  return Status::OK();
}

std::vector<std::string> ChainFiles::Keep() {
  kept_ = true;
  return completed_;
}

SegmentedEnvelopeWriter::SegmentedEnvelopeWriter(FileSystem& fs, const TableSchema& table, GenerationInfo generation,
                                                 std::function<std::string(int)> file_path, int64_t max_records,
                                                 ExportOptions options)
    : fs_(fs),
      table_(table),
      generation_(std::move(generation)),
      max_records_(max_records),
      options_(std::move(options)),
      files_(fs, std::move(file_path)) {}

SegmentedEnvelopeWriter::~SegmentedEnvelopeWriter() = default;

Status SegmentedEnvelopeWriter::OpenFile() {
  ASSIGN_OR_RETURN(writer_, EnvelopeWriter::Open(fs_, files_.StartNext(), table_, generation_, options_));
  return Status::OK();
}

Status SegmentedEnvelopeWriter::OnPartitionStart(const PartitionHeader& partition) {
  if (!writer_) {
    // Each file's writer checks the order within it; across files, here.
    if (has_last_key_ && generation_.partitioner &&
        ComparePartitionKeys(*generation_.partitioner, last_key_, partition.key) != std::strong_ordering::less) {
      return Status::Corruption(StrCat(generation_.source, ": partition 0x", ToHex(partition.key),
                                       " follows partition 0x", ToHex(last_key_), ": not in token order"));
    }
    RETURN_IF_ERROR(OpenFile());
  }
  last_key_.assign(partition.key.data(), partition.key.size());
  has_last_key_ = true;
  return writer_->OnPartitionStart(partition);
}

Status SegmentedEnvelopeWriter::OnRow(const Row& row) { return writer_->OnRow(row); }

Status SegmentedEnvelopeWriter::OnRangeTombstoneMarker(const RangeTombstoneMarker& marker) {
  return writer_->OnRangeTombstoneMarker(marker);
}

Status SegmentedEnvelopeWriter::OnPartitionEnd() {
  RETURN_IF_ERROR(writer_->OnPartitionEnd());
  if (max_records_ > 0 && writer_->records() >= max_records_) return CloseFile();
  return Status::OK();
}

Result<std::vector<std::string>> SegmentedEnvelopeWriter::Finish() {
  if (!writer_ && files_.completed() == 0) RETURN_IF_ERROR(OpenFile());
  if (writer_) RETURN_IF_ERROR(CloseFile());
  return files_.Keep();
}

Status SegmentedEnvelopeWriter::CloseFile() {
  ASSIGN_OR_RETURN(int64_t records, writer_->Close());
  records_ += records;
  writer_.reset();
  return files_.Complete();
}

Result<std::vector<std::string>> ExportSSTableSegments(FileSystem& fs, const SSTable& sstable,
                                                       const TableSchema& table,
                                                       const std::function<std::string(int)>& segment_path,
                                                       int64_t max_records_per_file, const ExportOptions& options) {
  RETURN_IF_ERROR(CheckPrefix(table, options.prefix));
  SegmentedEnvelopeWriter writer(fs, table, DescribeGeneration(sstable, table), segment_path, max_records_per_file,
                                 options);
  RETURN_IF_ERROR(sstable.Scan(writer));
  return writer.Finish();
}

}  // namespace cqlite::envelope
