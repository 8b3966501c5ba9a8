#include "mapping/schema_evolution.h"

#include <algorithm>
#include <memory>

#include "util/strings.h"

namespace cqlite::materialize {

namespace {

using iceberg::NestedField;
using iceberg::Type;
using iceberg::TypePtr;

std::string TypeName(const Type& type) {
  switch (type.kind) {
    case Type::Kind::kStruct: return "struct";
    case Type::Kind::kList: return "list";
    case Type::Kind::kMap: return "map";
    default: return type.ToString();
  }
}

// `type` with new ids, after `*last`, for every field it nests.
TypePtr Renumber(const TypePtr& type, int32_t* last) {
  if (type->is_primitive()) return type;
  auto copy = std::make_shared<Type>(*type);
  for (NestedField& field : copy->fields) field.id = ++*last;
  for (NestedField& field : copy->fields) field.type = Renumber(field.type, last);
  return TypePtr(copy);
}

bool SamePrimitive(const Type& a, const Type& b) {
  return a.kind == b.kind && a.precision == b.precision && a.scale == b.scale && a.length == b.length;
}

// `fresh` with the ids of `old` where the two match: struct fields by name,
// else (a user type's renamed field) by position; what is new gets new ids
// after `*last`. `path` names the value in `changes` and in the error (the
// text after the column's name) when the types differ.
Result<TypePtr> Reconcile(const TypePtr& old, const TypePtr& fresh, const std::string& path, int32_t* last,
                          std::vector<std::string>* changes) {
  if (fresh->is_primitive() || old->is_primitive() || fresh->kind != old->kind) {
    if (fresh->is_primitive() && old->is_primitive() && SamePrimitive(*old, *fresh)) return fresh;
    return Status::NotSupported(StrCat(path, " was ", TypeName(*old), " and is now ", TypeName(*fresh)));
  }
  auto copy = std::make_shared<Type>(*fresh);
  if (fresh->kind != Type::Kind::kStruct) {  // a list's element, a map's key and value
    for (size_t i = 0; i < copy->fields.size(); ++i) {
      NestedField& field = copy->fields[i];
      field.id = old->fields[i].id;
      ASSIGN_OR_RETURN(field.type, Reconcile(old->fields[i].type, field.type, StrCat(path, " ", field.name), last,
                                             changes));
    }
    return TypePtr(copy);
  }
  const std::vector<NestedField>& before = old->fields;
  std::vector<int> match(copy->fields.size(), -1);
  std::vector<bool> taken(before.size(), false);
  for (size_t i = 0; i < copy->fields.size(); ++i) {
    for (size_t j = 0; j < before.size(); ++j) {
      if (!taken[j] && before[j].name == copy->fields[i].name) {
        match[i] = static_cast<int>(j);
        taken[j] = true;
        break;
      }
    }
  }
  // ALTER TYPE ... RENAME keeps a field's place.
  for (size_t i = 0; i < copy->fields.size(); ++i) {
    if (match[i] < 0 && i < before.size() && !taken[i]) {
      match[i] = static_cast<int>(i);
      taken[i] = true;
    }
  }
  for (size_t i = 0; i < copy->fields.size(); ++i) {
    NestedField& field = copy->fields[i];
    if (match[i] < 0) {
      field.id = ++*last;
      field.type = Renumber(field.type, last);
      changes->push_back(StrCat("field ", field.name, " (", TypeName(*field.type), ") of ", path, " added"));
      continue;
    }
    const NestedField& was = before[match[i]];
    if (was.name != field.name) {
      changes->push_back(StrCat("field ", was.name, " of ", path, " renamed to ", field.name));
    }
    field.id = was.id;
    ASSIGN_OR_RETURN(field.type, Reconcile(was.type, field.type, StrCat(path, ".", field.name), last, changes));
  }
  for (size_t j = 0; j < before.size(); ++j) {
    if (!taken[j]) changes->push_back(StrCat("field ", before[j].name, " of ", path, " removed"));
  }
  return TypePtr(copy);
}

void CollectFields(const std::vector<NestedField>& fields, std::map<int32_t, const NestedField*>* out) {
  for (const NestedField& field : fields) {
    (*out)[field.id] = &field;
    CollectFields(field.type->fields, out);
  }
}

bool IsKey(const ColumnSchema& column) {
  return column.kind == ColumnKind::kPartitionKey || column.kind == ColumnKind::kClustering;
}

}  // namespace

ColumnDrops DropsOf(const TableSchema& table) {
  ColumnDrops drops;
  for (const DroppedColumnSchema& dropped : table.dropped_columns) {
    auto [it, inserted] = drops.emplace(dropped.name, dropped.drop_time_micros);
    if (!inserted) it->second = std::max(it->second, dropped.drop_time_micros);
  }
  return drops;
}

std::string ColumnDropsToString(const ColumnDrops& drops) {
  std::vector<std::string> parts;
  for (const auto& [name, micros] : drops) parts.push_back(StrCat(name, "@", micros));
  return Join(parts, ",");
}

Result<ColumnDrops> ColumnDropsFromString(const std::string& text, const std::string& where) {
  ColumnDrops drops;
  if (text.empty()) return drops;
  for (const std::string& part : Split(text, ',')) {
    size_t at = part.rfind('@');
    std::optional<int64_t> micros = at == std::string::npos ? std::nullopt : ParseInt64(part.substr(at + 1));
    if (!micros || at == 0) {
      return Status::Corruption(StrCat(where, ": ", kColumnDropsKey, " holds '", part, "', not name@micros"));
    }
    drops[part.substr(0, at)] = *micros;
  }
  return drops;
}

Result<SchemaEvolution> EvolveMapping(const TableMapping& fresh, const TableSchema& table,
                                      const iceberg::Schema& current, int32_t last_column_id,
                                      const std::optional<ColumnDrops>& seen, const std::string& table_name) {
  SchemaEvolution evolution;
  evolution.mapping = fresh;
  iceberg::Schema& schema = evolution.mapping.schema;
  int32_t last = std::max(last_column_id, current.HighestFieldId());
  const ColumnDrops drops = DropsOf(table);
  // A column dropped since the table's last snapshot is, if named again, a
  // new incarnation of it.
  auto added_again = [&](const std::string& name) {
    auto drop = drops.find(name);
    if (drop == drops.end() || !seen) return false;
    auto known = seen->find(name);
    return known == seen->end() || known->second < drop->second;
  };
  // Key columns, which Cassandra never adds or drops, come first in both
  // (MapTable's order: partition key, then clustering columns); a renamed
  // one is found by its place.
  size_t keys = std::count_if(table.columns.begin(), table.columns.end(), IsKey);
  std::vector<bool> taken(current.fields.size(), false);
  std::vector<std::pair<int32_t, int32_t>> renumbered;  // fresh id -> evolved id, top level
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    NestedField& field = schema.fields[i];
    const ColumnSchema& column = table.columns[fresh.columns[i]];
    int match = -1;
    if (IsKey(column)) {
      if (i < keys && i < current.fields.size()) match = static_cast<int>(i);
    } else if (!added_again(column.name)) {
      for (size_t j = keys; j < current.fields.size(); ++j) {
        if (!taken[j] && current.fields[j].name == column.name) match = static_cast<int>(j);
      }
    }
    const int32_t fresh_id = field.id;
    if (match < 0) {
      field.id = ++last;
      field.type = Renumber(field.type, &last);
      evolution.changes.push_back(StrCat(column.kind == ColumnKind::kStatic ? "static column " : "column ",
                                         column.name, " (", column.type->ToCql(), ") added",
                                         added_again(column.name) ? " again after a drop: its earlier values stay "
                                                                    "hidden"
                                                                  : ""));
    } else {
      const NestedField& was = current.fields[match];
      taken[match] = true;
      if (was.name != field.name) {
        evolution.changes.push_back(StrCat("column ", was.name, " renamed to ", field.name));
      }
      field.id = was.id;
      auto type = Reconcile(was.type, field.type, column.name, &last, &evolution.changes);
      if (!type.ok()) {
        return Status::NotSupported(StrCat(table_name, ": column ", type.status().message(), " (", column.type->ToCql(),
                                           "), which Iceberg cannot express as a change of the same field; "
                                           "publish the table anew under another name (--table)"));
      }
      field.type = std::move(*type);
      // Iceberg cannot make an optional field required again.
      if (field.required && !was.required) field.required = false;
    }
    renumbered.emplace_back(fresh_id, field.id);
  }
  for (size_t j = 0; j < current.fields.size(); ++j) {
    if (taken[j]) continue;
    evolution.dropped.push_back(current.fields[j].name);
    evolution.changes.push_back(StrCat("column ", current.fields[j].name, " dropped"));
  }
  for (int32_t& id : schema.identifier_field_ids) {
    for (const auto& [from, to] : renumbered) {
      if (id == from) {
        id = to;
        break;
      }
    }
  }
  const bool keys_optional = std::any_of(schema.fields.begin(), schema.fields.begin() + std::min(keys, schema.fields.size()),
                                         [](const NestedField& f) { return !f.required; });
  if (keys_optional) schema.identifier_field_ids.clear();
  evolution.last_column_id = last;
  return evolution;
}

Status CheckEvolvesFrom(const iceberg::TableMetadata& table, const iceberg::Schema& next, const std::string& name) {
  const iceberg::Schema* current = table.CurrentSchema();
  std::map<int32_t, const NestedField*> before, after;
  if (current) CollectFields(current->fields, &before);
  CollectFields(next.fields, &after);
  for (const auto& [id, field] : after) {
    if (id > table.last_column_id) continue;
    auto was = before.find(id);
    if (was == before.end() || was->second->type->kind != field->type->kind ||
        (field->type->is_primitive() && !SamePrimitive(*was->second->type, *field->type))) {
      return Status::InvalidArgument(StrCat(name, ": the table's schema changed after the runs were staged (field ",
                                            field->name, ", id ", id, "); stage the runs again"));
    }
  }
  return Status::OK();
}

}  // namespace cqlite::materialize
