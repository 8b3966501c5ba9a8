#include "cassandra/sstable_dump.h"

#include <set>

#include "cassandra/value_format.h"
#include "util/strings.h"
#include "util/time_format.h"

namespace cqlite {

namespace {

std::string SecondsString(int64_t seconds) { return FormatInstant(seconds, 0); }

CqlTypePtr MakeType(CqlKind kind) {
  auto t = std::make_shared<CqlType>();
  t->kind = kind;
  return t;
}

const CqlTypePtr& EmptyType() {
  static const CqlTypePtr kEmpty = MakeType(CqlKind::kEmpty);
  return kEmpty;
}

const CqlTypePtr& TimeuuidType() {
  static const CqlTypePtr kTimeuuid = MakeType(CqlKind::kTimeuuid);
  return kTimeuuid;
}

bool IsEmptyRow(const Row& row) {
  return row.liveness.IsEmpty() && row.deletion.IsLive() && row.columns.empty();
}

// Reserved CQL keywords (org.apache.cassandra.cql3.ReservedKeywords): names
// spelled like these are quoted.
const std::set<std::string>& ReservedKeywords() {
  static const std::set<std::string> kWords = {
      "add", "allow", "alter", "and", "apply", "asc", "authorize", "batch", "begin", "by",
      "columnfamily", "create", "default", "delete", "desc", "describe", "drop", "entries", "execute",
      "from", "full", "grant", "if", "in", "index", "infinity", "insert", "into", "is", "keyspace",
      "limit", "materialized", "mbean", "mbeans", "modify", "nan", "norecursive", "not", "null", "of",
      "on", "or", "order", "primary", "rename", "replace", "revoke", "schema", "select", "set", "table",
      "to", "token", "truncate", "unlogged", "unset", "update", "use", "using", "view", "where", "with"};
  return kWords;
}

}  // namespace

std::string QuoteColumnName(const std::string& name) {
  bool plain = !name.empty() && name[0] >= 'a' && name[0] <= 'z';
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) plain = false;
  }
  if (plain && !ReservedKeywords().count(name)) return name;
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

SSTableDumpWriter::SSTableDumpWriter(std::ostream& out, const DataLayout& layout, CqlTypePtr partition_key_type,
                                     int64_t now_seconds)
    : json_(out), layout_(layout), partition_key_type_(std::move(partition_key_type)), now_seconds_(now_seconds) {}

void SSTableDumpWriter::Begin() { json_.BeginArray(); }
void SSTableDumpWriter::End() { json_.EndArray(); }

Status SSTableDumpWriter::WritePartitionKey(const std::string& key) {
  json_.BeginArray();
  if (partition_key_type_->kind != CqlKind::kComposite) {
    ASSIGN_OR_RETURN(std::string text, ValueToString(*partition_key_type_, key));
    json_.String(text);
    json_.EndArray();
    return Status::OK();
  }
  // CompositeType: each component as <u16 length><bytes><end-of-component byte>.
  std::string_view rest = key;
  if (rest.size() >= 2 && static_cast<uint8_t>(rest[0]) == 0xff && static_cast<uint8_t>(rest[1]) == 0xff) {
    rest.remove_prefix(2);
  }
  const auto& components = partition_key_type_->params;
  for (size_t i = 0; !rest.empty() && i < components.size(); ++i) {
    if (rest.size() < 2) return Status::Corruption("truncated composite partition key");
    size_t length = (static_cast<uint8_t>(rest[0]) << 8) | static_cast<uint8_t>(rest[1]);
    if (rest.size() < 2 + length + 1) return Status::Corruption("truncated composite partition key");
    ASSIGN_OR_RETURN(std::string text, ValueToString(*components[i], rest.substr(2, length)));
    json_.String(text);
    char end_of_component = rest[2 + length];
    rest.remove_prefix(3 + length);
    if (end_of_component != 0) break;
  }
  json_.EndArray();
  return Status::OK();
}

Status SSTableDumpWriter::OnPartitionStart(const PartitionHeader& partition) {
  partition_ = partition;
  partition_open_ = true;
  header_written_ = false;
  return Status::OK();
}

void SSTableDumpWriter::WriteDeletion(const DeletionTime& deletion) {
  json_.Key("deletion_info");
  json_.BeginObject();
  json_.Key("marked_deleted");
  json_.String(FormatMicros(deletion.marked_for_delete_at));
  json_.Key("local_delete_time");
  json_.String(SecondsString(deletion.local_deletion_time));
  json_.EndObject();
}

Status SSTableDumpWriter::OnRow(const Row& row) {
  if (!header_written_) {
    // The partition object is written once its reported position is known.
    partition_body_position_ = row.is_static ? row.end_position : row.position;
    json_.BeginObject();
    json_.Key("table kind");
    json_.String("REGULAR");
    json_.Key("partition");
    json_.BeginObject();
    json_.Key("key");
    RETURN_IF_ERROR(WritePartitionKey(partition_.key));
    json_.Key("position");
    json_.UInt(partition_body_position_);
    if (!partition_.deletion.IsLive()) WriteDeletion(partition_.deletion);
    json_.EndObject();
    json_.Key("rows");
    json_.BeginArray();
    header_written_ = true;
  }
  if (IsEmptyRow(row)) return Status::OK();

  json_.BeginObject();
  json_.Key("type");
  json_.String(row.is_static ? "static_block" : "row");
  json_.Key("position");
  json_.UInt(row.is_static ? row.end_position : row.position);
  if (!row.is_static) RETURN_IF_ERROR(WriteClustering(row.clustering));
  if (!row.liveness.IsEmpty()) {
    json_.Key("liveness_info");
    json_.BeginObject();
    json_.Key("tstamp");
    json_.String(FormatMicros(row.liveness.timestamp));
    if (row.liveness.IsExpiring()) {
      json_.Key("ttl");
      json_.Int(row.liveness.ttl);
      json_.Key("expires_at");
      json_.String(SecondsString(row.liveness.local_expiration_time));
      json_.Key("expired");
      json_.Bool(row.liveness.local_expiration_time < now_seconds_);
    }
    json_.EndObject();
  }
  if (!row.deletion.IsLive()) WriteDeletion(row.deletion);
  json_.Key("cells");
  json_.BeginArray();
  const auto& columns = layout_.columns(row.is_static);
  for (const ColumnData& data : row.columns) {
    const ColumnLayout& column = columns[data.column];
    if (data.is_complex && !data.complex_deletion.IsLive()) {
      json_.BeginObject();
      json_.Key("name");
      json_.String(QuoteColumnName(column.name));
      WriteDeletion(data.complex_deletion);
      json_.EndObject();
    }
    for (const Cell& cell : data.cells) RETURN_IF_ERROR(WriteCell(column, cell, row.liveness));
  }
  json_.EndArray();
  json_.EndObject();
  return Status::OK();
}

Status SSTableDumpWriter::WriteCell(const ColumnLayout& column, const Cell& cell, const LivenessInfo& liveness) {
  json_.BeginObject();
  json_.Key("name");
  json_.String(QuoteColumnName(column.name));
  const CqlType& type = *column.type;
  const CqlType* value_type = &type;
  if (column.is_complex && type.IsCollection()) {
    const CqlType& path_type = type.kind == CqlKind::kList ? *TimeuuidType() : *type.params[0];
    json_.Key("path");
    json_.BeginArray();
    ASSIGN_OR_RETURN(std::string path, ValueToString(path_type, cell.path));
    json_.String(path);
    json_.EndArray();
    value_type = type.kind == CqlKind::kList  ? type.params[0].get()
                 : type.kind == CqlKind::kSet ? EmptyType().get()
                                              : type.params[1].get();
  } else if (column.is_complex && type.kind == CqlKind::kUdt) {
    if (cell.path.size() != 2) {
      return Status::Corruption(StrCat("user type cell of column ", column.name, " has a ", cell.path.size(),
                                       "-byte field path, expected 2"));
    }
    size_t field = (static_cast<uint8_t>(cell.path[0]) << 8) | static_cast<uint8_t>(cell.path[1]);
    if (field >= type.field_names.size()) {
      return Status::Corruption(StrCat("user type cell of column ", column.name, " names field ", field,
                                       " of ", type.field_names.size()));
    }
    json_.Key("path");
    json_.BeginArray();
    json_.String(type.field_names[field]);
    json_.EndArray();
    value_type = type.params[field].get();
  }
  if (cell.is_tombstone) {
    json_.Key("deletion_info");
    json_.BeginObject();
    json_.Key("local_delete_time");
    json_.String(SecondsString(cell.local_deletion_time));
    json_.EndObject();
  } else {
    ASSIGN_OR_RETURN(std::string value, ValueToJson(*value_type, cell.value));
    json_.Key("value");
    json_.Raw(value);
  }
  if (liveness.IsEmpty() || cell.timestamp != liveness.timestamp) {
    json_.Key("tstamp");
    json_.String(FormatMicros(cell.timestamp));
  }
  if (cell.is_expiring && (liveness.IsEmpty() || cell.ttl != liveness.ttl)) {
    json_.Key("ttl");
    json_.Int(cell.ttl);
    json_.Key("expires_at");
    json_.String(SecondsString(cell.local_deletion_time));
    json_.Key("expired");
    // AbstractCell.isLive: live while now < local deletion time.
    bool live = cell.local_deletion_time == kNoDeletionTime || now_seconds_ < cell.local_deletion_time;
    json_.Bool(!live);
  }
  json_.EndObject();
  return Status::OK();
}

Status SSTableDumpWriter::WriteClustering(const Clustering& clustering) {
  if (clustering.values.empty()) return Status::OK();
  json_.Key("clustering");
  json_.BeginArray();
  for (size_t i = 0; i < layout_.clustering_types.size(); ++i) {
    if (i >= clustering.values.size()) {
      json_.String("*");
    } else if (!clustering.present[i]) {
      json_.Null();
    } else {
      ASSIGN_OR_RETURN(std::string value, ValueToJson(*layout_.clustering_types[i], clustering.values[i]));
      json_.Raw(value);
    }
  }
  json_.EndArray();
  return Status::OK();
}

Status SSTableDumpWriter::WriteBound(bool is_start, bool inclusive, const Clustering& bound,
                                     const DeletionTime& deletion) {
  json_.Key(is_start ? "start" : "end");
  json_.BeginObject();
  json_.Key("type");
  json_.String(inclusive ? "inclusive" : "exclusive");
  RETURN_IF_ERROR(WriteClustering(bound));
  WriteDeletion(deletion);
  json_.EndObject();
  return Status::OK();
}

Status SSTableDumpWriter::OnRangeTombstoneMarker(const RangeTombstoneMarker& marker) {
  if (!header_written_) {
    Row empty;
    empty.position = marker.position;
    RETURN_IF_ERROR(OnRow(empty));
  }
  json_.BeginObject();
  json_.Key("type");
  switch (marker.kind) {
    case ClusteringKind::kExclEndInclStartBoundary:
      json_.String("range_tombstone_boundary");
      RETURN_IF_ERROR(WriteBound(true, true, marker.bound, marker.start_deletion));
      RETURN_IF_ERROR(WriteBound(false, false, marker.bound, marker.end_deletion));
      break;
    case ClusteringKind::kInclEndExclStartBoundary:
      json_.String("range_tombstone_boundary");
      RETURN_IF_ERROR(WriteBound(true, false, marker.bound, marker.start_deletion));
      RETURN_IF_ERROR(WriteBound(false, true, marker.bound, marker.end_deletion));
      break;
    default: {
      json_.String("range_tombstone_bound");
      bool is_start = marker.kind == ClusteringKind::kInclStartBound || marker.kind == ClusteringKind::kExclStartBound;
      bool inclusive = marker.kind == ClusteringKind::kInclStartBound || marker.kind == ClusteringKind::kInclEndBound;
      RETURN_IF_ERROR(WriteBound(is_start, inclusive, marker.bound, marker.deletion));
    }
  }
  json_.EndObject();
  return Status::OK();
}

Status SSTableDumpWriter::OnPartitionEnd() {
  if (!header_written_) {
    Row empty;
    empty.position = partition_.body_position;
    RETURN_IF_ERROR(OnRow(empty));
  }
  json_.EndArray();
  json_.EndObject();
  partition_open_ = false;
  return Status::OK();
}

}  // namespace cqlite
