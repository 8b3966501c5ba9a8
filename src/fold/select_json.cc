#include "fold/select_json.h"

#include <algorithm>

#include "cassandra/value_format.h"
#include "util/strings.h"

namespace cqlite {

namespace {

void AppendInt32(std::string* out, int32_t value) {
  uint32_t v = static_cast<uint32_t>(value);
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>((v >> shift) & 0xff));
}

void AppendElement(std::string* out, std::string_view bytes) {
  AppendInt32(out, static_cast<int32_t>(bytes.size()));
  out->append(bytes);
}

std::string CounterTotalBytes(std::string_view context) {
  std::string out;
  uint64_t total = static_cast<uint64_t>(CounterTotal(context));
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>((total >> shift) & 0xff));
  return out;
}

// The value a multi-cell column has in a result set: its live cells packed
// the way the native protocol serializes a collection or user type.
std::string PackCells(const CqlType& type, const std::vector<FoldCell>& cells) {
  std::string out;
  switch (type.kind) {
    case CqlKind::kList:
      AppendInt32(&out, static_cast<int32_t>(cells.size()));
      for (const FoldCell& cell : cells) AppendElement(&out, cell.value);
      break;
    case CqlKind::kSet:
      AppendInt32(&out, static_cast<int32_t>(cells.size()));
      for (const FoldCell& cell : cells) AppendElement(&out, cell.path);
      break;
    case CqlKind::kMap:
      AppendInt32(&out, static_cast<int32_t>(cells.size()));
      for (const FoldCell& cell : cells) {
        AppendElement(&out, cell.path);
        AppendElement(&out, cell.value);
      }
      break;
    case CqlKind::kUdt: {
      // One field per position; a field without a live cell is null.
      std::vector<const FoldCell*> fields(type.params.size(), nullptr);
      for (const FoldCell& cell : cells) {
        if (cell.path.size() != 2) continue;
        size_t position = (static_cast<uint8_t>(cell.path[0]) << 8) | static_cast<uint8_t>(cell.path[1]);
        if (position < fields.size()) fields[position] = &cell;
      }
      for (const FoldCell* field : fields) {
        if (field) {
          AppendElement(&out, field->value);
        } else {
          AppendInt32(&out, -1);
        }
      }
      break;
    }
    default:
      break;
  }
  return out;
}

}  // namespace

SelectJsonRenderer::SelectJsonRenderer(const TableSchema& schema)
    : schema_(schema), key_type_(schema.PartitionKeyType()) {
  std::vector<int> statics, regulars;
  for (size_t i = 0; i < schema.columns.size(); ++i) {
    const ColumnSchema& column = schema.columns[i];
    if (column.kind == ColumnKind::kStatic) statics.push_back(static_cast<int>(i));
    if (column.kind == ColumnKind::kRegular) regulars.push_back(static_cast<int>(i));
  }
  auto by_name = [&schema](int a, int b) { return schema.columns[a].name < schema.columns[b].name; };
  std::sort(statics.begin(), statics.end(), by_name);
  std::sort(regulars.begin(), regulars.end(), by_name);
  for (const ColumnSchema* column : schema.PartitionKeyColumns()) {
    select_order_.push_back(static_cast<int>(column - schema.columns.data()));
  }
  for (const ColumnSchema* column : schema.ClusteringColumns()) {
    select_order_.push_back(static_cast<int>(column - schema.columns.data()));
  }
  select_order_.insert(select_order_.end(), statics.begin(), statics.end());
  select_order_.insert(select_order_.end(), regulars.begin(), regulars.end());
  std::erase_if(select_order_, [&schema](int i) { return schema.columns[i].hidden; });
  for (const ColumnSchema& column : schema.columns) {
    std::string name = column.name;
    if (name != ToLowerAscii(name)) name = "\"" + name + "\"";
    quoted_names_.push_back("\"" + QuoteAsJsonString(name) + "\": ");
  }
}

Result<std::vector<std::string>> SelectJsonRenderer::KeyComponents(std::string_view key) const {
  if (key_type_->kind != CqlKind::kComposite) return std::vector<std::string>{std::string(key)};
  ASSIGN_OR_RETURN(auto parts, SplitCompositeKey(*key_type_, key));
  if (parts.size() != key_type_->params.size()) {
    return Status::Corruption(StrCat("partition key 0x", ToHex(key), " has ", parts.size(), " components, the table ",
                                     key_type_->params.size()));
  }
  return parts;
}

Status SelectJsonRenderer::Render(const FoldedPartition& partition, std::vector<std::string>* lines) const {
  ASSIGN_OR_RETURN(auto key, KeyComponents(partition.key));
  const FoldRow* static_row = partition.has_static_row ? &partition.static_row : nullptr;
  if (partition.rows.empty()) {
    if (static_row) {
      ASSIGN_OR_RETURN(std::string line, RenderRow(key, static_row, nullptr));
      lines->push_back(std::move(line));
    }
    return Status::OK();
  }
  for (const FoldRow& row : partition.rows) {
    ASSIGN_OR_RETURN(std::string line, RenderRow(key, static_row, &row));
    lines->push_back(std::move(line));
  }
  return Status::OK();
}

Result<std::string> SelectJsonRenderer::RenderRow(const std::vector<std::string>& key, const FoldRow* static_row,
                                                  const FoldRow* row) const {
  std::string out = "{";
  for (size_t i = 0; i < select_order_.size(); ++i) {
    int index = select_order_[i];
    const ColumnSchema& column = schema_.columns[index];
    if (i) out += ", ";
    out += quoted_names_[index];
    std::string value = "null";
    switch (column.kind) {
      case ColumnKind::kPartitionKey: {
        ASSIGN_OR_RETURN(value, ValueToJson(*column.type, key[column.position]));
        break;
      }
      case ColumnKind::kClustering: {
        if (row && static_cast<size_t>(column.position) < row->clustering.values.size() &&
            (row->clustering.present.empty() || row->clustering.present[column.position])) {
          ASSIGN_OR_RETURN(value, ValueToJson(*column.type, row->clustering.values[column.position]));
        }
        break;
      }
      case ColumnKind::kStatic: {
        ASSIGN_OR_RETURN(value, ColumnJson(index, static_row));
        break;
      }
      case ColumnKind::kRegular: {
        ASSIGN_OR_RETURN(value, ColumnJson(index, row));
        break;
      }
    }
    out += value;
  }
  out += "}";
  return out;
}

Result<std::string> SelectJsonRenderer::ColumnJson(int column, const FoldRow* row) const {
  if (!row) return std::string("null");
  auto it = std::lower_bound(row->columns.begin(), row->columns.end(), column,
                             [](const FoldColumn& data, int c) { return data.column < c; });
  if (it == row->columns.end() || it->column != column || it->cells.empty()) return std::string("null");
  const CqlType& type = *schema_.columns[column].type;
  Result<std::string> json = std::string();
  if (it->is_complex) {
    json = ValueToJson(type, PackCells(type, it->cells));
  } else if (type.kind == CqlKind::kCounter) {
    json = ValueToJson(type, CounterTotalBytes(it->cells.front().value));
  } else {
    json = ValueToJson(type, it->cells.front().value);
  }
  if (!json.ok()) {
    return json.status().WithContext(StrCat("column ", schema_.columns[column].name));
  }
  return json;
}

}  // namespace cqlite
