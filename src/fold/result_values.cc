#include "fold/result_values.h"

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

std::vector<int> WildcardColumnOrder(const TableSchema& schema) {
  std::vector<int> order, statics, regulars;
  for (size_t i = 0; i < schema.columns.size(); ++i) {
    const ColumnSchema& column = schema.columns[i];
    if (column.kind == ColumnKind::kStatic) statics.push_back(static_cast<int>(i));
    if (column.kind == ColumnKind::kRegular) regulars.push_back(static_cast<int>(i));
  }
  auto by_name = [&schema](int a, int b) { return schema.columns[a].name < schema.columns[b].name; };
  std::sort(statics.begin(), statics.end(), by_name);
  std::sort(regulars.begin(), regulars.end(), by_name);
  for (const ColumnSchema* column : schema.PartitionKeyColumns()) {
    order.push_back(static_cast<int>(column - schema.columns.data()));
  }
  for (const ColumnSchema* column : schema.ClusteringColumns()) {
    order.push_back(static_cast<int>(column - schema.columns.data()));
  }
  order.insert(order.end(), statics.begin(), statics.end());
  order.insert(order.end(), regulars.begin(), regulars.end());
  std::erase_if(order, [&schema](int i) { return schema.columns[i].hidden; });
  return order;
}

Result<std::vector<std::string>> SplitPartitionKey(const CqlType& key_type, std::string_view key) {
  if (key_type.kind != CqlKind::kComposite) return std::vector<std::string>{std::string(key)};
  ASSIGN_OR_RETURN(auto parts, SplitCompositeKey(key_type, key));
  if (parts.size() != key_type.params.size()) {
    return Status::Corruption(StrCat("partition key 0x", ToHex(key), " has ", parts.size(), " components, the table ",
                                     key_type.params.size()));
  }
  return parts;
}

std::optional<std::string> ColumnValue(const TableSchema& schema, int column, const FoldRow* row) {
  if (!row) return std::nullopt;
  auto it = std::lower_bound(row->columns.begin(), row->columns.end(), column,
                             [](const FoldColumn& data, int c) { return data.column < c; });
  if (it == row->columns.end() || it->column != column || it->cells.empty()) return std::nullopt;
  const CqlType& type = *schema.columns[column].type;
  if (it->is_complex) return PackCells(type, it->cells);
  if (type.kind == CqlKind::kCounter) return CounterTotalBytes(it->cells.front().value);
  return it->cells.front().value;
}

}  // namespace cqlite
