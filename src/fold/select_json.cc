#include "fold/select_json.h"

#include "fold/result_values.h"

#include <algorithm>

#include "cassandra/value_format.h"
#include "util/strings.h"

namespace cqlite {

SelectJsonRenderer::SelectJsonRenderer(const TableSchema& schema)
    : schema_(schema), key_type_(schema.PartitionKeyType()) {
  select_order_ = WildcardColumnOrder(schema);
  for (const ColumnSchema& column : schema.columns) {
    std::string name = column.name;
    if (name != ToLowerAscii(name)) name = "\"" + name + "\"";
    quoted_names_.push_back("\"" + QuoteAsJsonString(name) + "\": ");
  }
}

Result<std::vector<std::string>> SelectJsonRenderer::KeyComponents(std::string_view key) const {
  return SplitPartitionKey(*key_type_, key);
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
  std::optional<std::string> value = ColumnValue(schema_, column, row);
  if (!value) return std::string("null");
  Result<std::string> json = ValueToJson(*schema_.columns[column].type, *value);
  if (!json.ok()) return json.status().WithContext(StrCat("column ", schema_.columns[column].name));
  return json;
}

}  // namespace cqlite
