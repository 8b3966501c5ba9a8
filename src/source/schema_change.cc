#include "source/schema_change.h"

#include <algorithm>
#include <map>
#include <vector>

#include "util/strings.h"

namespace cqlite {

namespace {

// Every user type that `type` is or holds, by keyspace.name; the first seen
// of a name is kept.
void CollectUserTypes(const CqlTypePtr& type, std::map<std::string, CqlTypePtr>* out) {
  if (!type) return;
  if (type->kind == CqlKind::kUdt) {
    std::string name = type->udt_keyspace.empty() ? type->udt_name : StrCat(type->udt_keyspace, ".", type->udt_name);
    out->emplace(name, type);
  }
  for (const CqlTypePtr& param : type->params) CollectUserTypes(param, out);
}

std::map<std::string, CqlTypePtr> UserTypes(const TableSchema& schema) {
  std::map<std::string, CqlTypePtr> types;
  for (const ColumnSchema& column : schema.columns) CollectUserTypes(column.type, &types);
  return types;
}

bool IsKey(ColumnKind kind) { return kind == ColumnKind::kPartitionKey || kind == ColumnKind::kClustering; }

// The key column of `schema` of that kind and position, or null.
const ColumnSchema* KeyColumnAt(const TableSchema& schema, ColumnKind kind, int position) {
  for (const ColumnSchema& column : schema.columns) {
    if (column.kind == kind && column.position == position) return &column;
  }
  return nullptr;
}

void DescribeUserTypeChange(const std::string& name, const CqlType& before, const CqlType& after,
                            std::vector<std::string>* changes) {
  std::vector<std::string> fields;
  size_t common = std::min(before.field_names.size(), after.field_names.size());
  for (size_t i = 0; i < common && i < before.params.size() && i < after.params.size(); ++i) {
    const std::string& was = before.field_names[i];
    const std::string& is = after.field_names[i];
    if (was != is) fields.push_back(StrCat("field ", was, " renamed to ", is));
    std::string was_type = before.params[i]->ToCql(), is_type = after.params[i]->ToCql();
    if (was_type != is_type) fields.push_back(StrCat("field ", is, " type ", was_type, " now ", is_type));
  }
  for (size_t i = common; i < after.field_names.size() && i < after.params.size(); ++i) {
    fields.push_back(StrCat("field ", after.field_names[i], " (", after.params[i]->ToCql(), ") added"));
  }
  for (size_t i = common; i < before.field_names.size(); ++i) {
    fields.push_back(StrCat("field ", before.field_names[i], " removed"));
  }
  if (!fields.empty()) changes->push_back(StrCat("user type ", name, ": ", Join(fields, ", ")));
}

}  // namespace

std::string DescribeSchemaChange(const TableSchema& before, const TableSchema& after) {
  std::vector<std::string> changes;
  std::map<std::string, bool> renamed_from;  // names of `before` taken by renames
  for (const ColumnSchema& column : after.columns) {
    const ColumnSchema* was = before.FindColumn(column.name);
    if (!was && IsKey(column.kind)) {
      const ColumnSchema* at = KeyColumnAt(before, column.kind, column.position);
      if (at && !after.FindColumn(at->name)) {
        changes.push_back(StrCat("column ", at->name, " renamed to ", column.name));
        renamed_from[at->name] = true;
        was = at;
      }
    }
    if (!was) {
      changes.push_back(StrCat("column ", column.name, " (", column.type->ToCql(), ") added"));
      continue;
    }
    std::string was_type = was->type->ToCql(), is_type = column.type->ToCql();
    if (was_type != is_type) changes.push_back(StrCat("column ", column.name, " type ", was_type, " now ", is_type));
    if (was->kind != column.kind) {
      changes.push_back(StrCat("column ", column.name, " now ", ColumnKindName(column.kind)));
    } else if (was->reversed != column.reversed) {
      changes.push_back(StrCat("column ", column.name, " now ", column.reversed ? "descending" : "ascending"));
    }
  }
  for (const ColumnSchema& column : before.columns) {
    if (!after.FindColumn(column.name) && !renamed_from.count(column.name)) {
      changes.push_back(StrCat("column ", column.name, " (", column.type->ToCql(), ") dropped"));
    }
  }
  std::map<std::string, CqlTypePtr> types_before = UserTypes(before);
  for (const auto& [name, type] : UserTypes(after)) {
    auto was = types_before.find(name);
    if (was != types_before.end()) DescribeUserTypeChange(name, *was->second, *type, &changes);
  }
  return Join(changes, ", ");
}

}  // namespace cqlite
