#include "source/schema_source.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>

#include "cassandra/cql_schema.h"
#include "source/system_table.h"
#include "util/strings.h"

namespace cqlite {

namespace {

// ---------------------------------------------------------------------------
// system_schema, folded as every table is (system_table.h).
//
// The live rows of a system_schema table whose partition key is
// `keyspace`, each as its clustering (text) and its simple columns' values.
using SchemaRows = std::vector<std::pair<std::vector<std::string>, std::map<std::string, std::string>>>;

Result<SchemaRows> ReadSchemaRows(FileSystem& fs, const std::string& dir, const std::string& keyspace) {
  // Schema tables use no TTLs: the time they are folded at changes nothing.
  const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::system_clock::now().time_since_epoch()).count();
  ASSIGN_OR_RETURN(SystemTable table, ReadSystemTableDirectory(fs, dir, now));
  SchemaRows out;
  for (const SystemRow& row : table.rows) {
    if (row.key.empty() || row.key[0] != keyspace) continue;
    std::map<std::string, std::string> values;
    for (const FoldColumn& column : row.row.columns) {
      if (column.is_complex || column.cells.empty()) continue;
      values[table.schema.columns[column.column].name] = column.cells.front().value;
    }
    out.emplace_back(row.row.clustering.values, std::move(values));
  }
  return out;
}

// `<root>/system_schema/<name>-<id>` if present.
std::optional<std::string> SystemTableDir(FileSystem& fs, const std::string& root, const std::string& name) {
  std::string dir = JoinPath(root, "system_schema");
  auto entries = fs.ListDirectory(dir);
  if (!entries.ok()) return std::nullopt;
  for (const auto& entry : *entries) {
    if (entry.is_directory && StartsWith(entry.name, name + "-") && entry.name.size() == name.size() + 33) {
      return JoinPath(dir, entry.name);
    }
  }
  return std::nullopt;
}

// The table directory `<keyspace>/<table>-<id>` that `location` is in (its
// SSTables' directory, or a snapshot or backup below it).
std::optional<std::string> TableDirectoryOf(const SSTableLocation& location) {
  if (location.table_id.empty()) return std::nullopt;
  std::string dir = WithoutTrailingSlash(location.directory);
  std::string table_dir = location.table + "-" + location.table_id;
  while (!dir.empty() && dir != "/" && dir != ".") {
    if (BaseName(dir) == table_dir) return dir;
    dir = DirName(dir);
  }
  return std::nullopt;
}

// Decodes a serialized frozen<list<text>>.
std::vector<std::string> TextList(const std::string& bytes) {
  std::vector<std::string> out;
  auto be32 = [&](size_t at) -> int64_t {
    if (at + 4 > bytes.size()) return -1;
    return (static_cast<uint8_t>(bytes[at]) << 24) | (static_cast<uint8_t>(bytes[at + 1]) << 16) |
           (static_cast<uint8_t>(bytes[at + 2]) << 8) | static_cast<uint8_t>(bytes[at + 3]);
  };
  int64_t count = be32(0);
  size_t at = 4;
  for (int64_t i = 0; i < count; ++i) {
    int64_t length = be32(at);
    if (length < 0 || at + 4 + length > bytes.size()) break;
    out.push_back(bytes.substr(at + 4, length));
    at += 4 + length;
  }
  return out;
}

int32_t Int32Value(const std::string& bytes) {
  if (bytes.size() != 4) return -1;
  return static_cast<int32_t>((static_cast<uint8_t>(bytes[0]) << 24) | (static_cast<uint8_t>(bytes[1]) << 16) |
                              (static_cast<uint8_t>(bytes[2]) << 8) | static_cast<uint8_t>(bytes[3]));
}

int64_t Int64Value(const std::string& bytes) {
  int64_t v = 0;
  for (char c : bytes) v = (v << 8) | static_cast<uint8_t>(c);
  return v;
}

Result<std::optional<TableSchema>> SchemaFromSystemTables(FileSystem& fs, const std::string& root,
                                                          const std::string& keyspace, const std::string& table) {
  auto columns_dir = SystemTableDir(fs, root, "columns");
  if (!columns_dir) return std::optional<TableSchema>();
  std::string what = StrCat("system_schema in ", root);
  ASSIGN_OR_RETURN(SchemaRows columns, ReadSchemaRows(fs, *columns_dir, keyspace));

  // User types of the keyspace: name -> (field names, field type texts). Types
  // may refer to each other, so they are resolved in rounds.
  UserTypes user_types;
  if (auto types_dir = SystemTableDir(fs, root, "types")) {
    ASSIGN_OR_RETURN(SchemaRows pending, ReadSchemaRows(fs, *types_dir, keyspace));
    for (size_t round = 0; round <= pending.size() && !pending.empty(); ++round) {
      for (auto it = pending.begin(); it != pending.end();) {
        auto names = TextList(it->second["field_names"]);
        auto type_texts = TextList(it->second["field_types"]);
        auto udt = std::make_shared<CqlType>();
        udt->kind = CqlKind::kUdt;
        udt->udt_keyspace = keyspace;
        udt->udt_name = it->first.empty() ? "" : it->first[0];
        bool resolved = names.size() == type_texts.size();
        for (size_t i = 0; resolved && i < names.size(); ++i) {
          auto field = ParseCqlType(type_texts[i], user_types);
          if (!field.ok()) {
            resolved = false;
            break;
          }
          udt->field_names.push_back(names[i]);
          udt->params.push_back(*field);
        }
        if (resolved) {
          user_types[udt->udt_name] = udt;
          it = pending.erase(it);
        } else {
          ++it;
        }
      }
    }
  }

  TableSchema schema;
  schema.keyspace = keyspace;
  schema.table = table;
  for (auto& [clustering, values] : columns) {
    if (clustering.size() != 2 || clustering[0] != table) continue;
    ColumnSchema column;
    column.name = clustering[1];
    auto type = ParseCqlType(values["type"], user_types);
    if (!type.ok()) return type.status().WithContext(StrCat(what, ": column ", table, ".", column.name));
    column.type = *type;
    const std::string& kind = values["kind"];
    column.kind = kind == "partition_key" ? ColumnKind::kPartitionKey
                  : kind == "clustering"  ? ColumnKind::kClustering
                  : kind == "static"      ? ColumnKind::kStatic
                                          : ColumnKind::kRegular;
    column.position = Int32Value(values["position"]);
    column.reversed = values["clustering_order"] == "desc";
    schema.columns.push_back(std::move(column));
  }
  if (schema.columns.empty()) return std::optional<TableSchema>();
  auto rank = [](ColumnKind k) { return static_cast<int>(k); };
  std::stable_sort(schema.columns.begin(), schema.columns.end(), [&](const ColumnSchema& a, const ColumnSchema& b) {
    if (rank(a.kind) != rank(b.kind)) return rank(a.kind) < rank(b.kind);
    return a.position < b.position;
  });

  if (auto dropped_dir = SystemTableDir(fs, root, "dropped_columns")) {
    ASSIGN_OR_RETURN(SchemaRows dropped, ReadSchemaRows(fs, *dropped_dir, keyspace));
    for (auto& [clustering, values] : dropped) {
      if (clustering.size() != 2 || clustering[0] != table) continue;
      DroppedColumnSchema column;
      column.name = clustering[1];
      auto type = ParseCqlType(values["type"], user_types);
      column.type = type.ok() ? *type : nullptr;
      column.is_static = values["kind"] == "static";
      column.drop_time_micros = Int64Value(values["dropped_time"]) * 1000;  // a timestamp, in milliseconds
      schema.dropped_columns.push_back(std::move(column));
    }
  }
  return std::optional<TableSchema>(std::move(schema));
}

// Structural type equality as far as decoding cares: frozen-ness may differ
// only for the 3.0 headers that left UDTs unmarked (CASSANDRA-15035).
bool Compatible(const CqlType& header, const CqlType& schema) {
  if (header.kind == CqlKind::kCustom || schema.kind == CqlKind::kCustom) return true;
  bool text_like = (header.kind == CqlKind::kAscii || header.kind == CqlKind::kText) &&
                   (schema.kind == CqlKind::kAscii || schema.kind == CqlKind::kText);
  if (header.kind != schema.kind && !text_like) return false;
  if (header.frozen != schema.frozen && header.kind != CqlKind::kUdt) return false;
  if (header.kind == CqlKind::kVector && header.vector_dimension != schema.vector_dimension) return false;
  // A UDT may have gained fields since the file was written.
  if (header.kind == CqlKind::kUdt || header.kind == CqlKind::kTuple) {
    if (header.params.size() > schema.params.size()) return false;
  } else if (header.params.size() != schema.params.size()) {
    return false;
  }
  for (size_t i = 0; i < header.params.size(); ++i) {
    if (!Compatible(*header.params[i], *schema.params[i])) return false;
  }
  return true;
}

}  // namespace

std::string ResolvedSchema::Describe() const {
  switch (origin) {
    case SchemaOrigin::kSchemaFile: return StrCat("schema file ", origin_path);
    case SchemaOrigin::kSnapshotSchema: return StrCat("snapshot schema ", origin_path);
    case SchemaOrigin::kSystemSchema: return StrCat("system_schema tables in ", origin_path);
    case SchemaOrigin::kSerializationHeader: return StrCat("serialization header of ", origin_path);
  }
  return "";
}

TableSchema SchemaFromHeader(const SerializationHeader& header, const std::string& keyspace,
                             const std::string& table) {
  TableSchema schema;
  schema.keyspace = keyspace;
  schema.table = table;
  std::vector<CqlTypePtr> keys;
  if (header.partition_key_type && header.partition_key_type->kind == CqlKind::kComposite) {
    keys = header.partition_key_type->params;
  } else if (header.partition_key_type) {
    keys = {header.partition_key_type};
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    schema.columns.push_back({i == 0 ? "key" : StrCat("key", i + 1), keys[i], ColumnKind::kPartitionKey,
                              static_cast<int>(i), false});
  }
  for (size_t i = 0; i < header.clustering_types.size(); ++i) {
    auto plain = std::make_shared<CqlType>(*header.clustering_types[i]);
    plain->reversed = false;
    schema.columns.push_back({StrCat("column", i + 1), plain, ColumnKind::kClustering, static_cast<int>(i),
                              header.clustering_types[i]->reversed});
  }
  for (const auto& c : header.static_columns) schema.columns.push_back({c.name, c.type, ColumnKind::kStatic, -1, false});
  for (const auto& c : header.regular_columns) schema.columns.push_back({c.name, c.type, ColumnKind::kRegular, -1, false});
  return schema;
}

void AddStaticCompactColumns(const SerializationHeader& header, TableSchema* schema) {
  if (!schema->compact_storage || !schema->ClusteringColumns().empty() || header.clustering_types.size() != 1) {
    return;
  }
  // Cassandra stores a COMPACT STORAGE table without clustering columns as
  // one with a hidden clustering column, its declared columns static, and a
  // hidden regular column for the compact value (CompactTables).
  for (ColumnSchema& column : schema->columns) {
    if (column.kind == ColumnKind::kRegular) column.kind = ColumnKind::kStatic;
  }
  auto type = std::make_shared<CqlType>(*header.clustering_types[0]);
  type->reversed = false;
  ColumnSchema clustering{"column1", type, ColumnKind::kClustering, 0, header.clustering_types[0]->reversed};
  clustering.hidden = true;
  auto first_other = std::find_if(schema->columns.begin(), schema->columns.end(),
                                  [](const ColumnSchema& c) { return c.kind != ColumnKind::kPartitionKey; });
  schema->columns.insert(first_other, clustering);
  for (const auto& c : header.regular_columns) {
    if (schema->FindColumn(c.name)) continue;
    ColumnSchema value{c.name, c.type, ColumnKind::kRegular, -1, false};
    value.hidden = true;
    schema->columns.push_back(value);
  }
}

void AddColumnsFromHeader(const SerializationHeader& header, TableSchema* schema) {
  auto add = [schema](const auto& columns, ColumnKind kind) {
    for (const auto& c : columns) {
      if (!schema->FindColumn(c.name)) schema->columns.push_back({c.name, c.type, kind, -1, false});
    }
  };
  add(header.static_columns, ColumnKind::kStatic);
  add(header.regular_columns, ColumnKind::kRegular);
}

Status CheckSchemaAgainstHeader(const TableSchema& schema, const SerializationHeader& header,
                                const std::string& statistics_path) {
  auto contradiction = [&](const std::string& what) {
    return Status::InvalidArgument(StrCat(statistics_path, ": the schema of ", schema.keyspace, ".", schema.table,
                                          " contradicts the serialization header: ", what));
  };
  auto keys = schema.PartitionKeyColumns();
  CqlTypePtr key_type = schema.PartitionKeyType();
  if (header.partition_key_type && key_type && !Compatible(*header.partition_key_type, *key_type)) {
    return contradiction(StrCat("partition key is ", key_type->ToCql(), " in the schema, ",
                                header.partition_key_type->ToCql(), " in the file"));
  }
  auto clustering = schema.ClusteringColumns();
  if (clustering.size() != header.clustering_types.size()) {
    return contradiction(StrCat(clustering.size(), " clustering columns in the schema, ",
                                header.clustering_types.size(), " in the file"));
  }
  for (size_t i = 0; i < clustering.size(); ++i) {
    const CqlType& in_file = *header.clustering_types[i];
    if (!Compatible(in_file, *clustering[i]->type) || in_file.reversed != clustering[i]->reversed) {
      return contradiction(StrCat("clustering column ", clustering[i]->name, " is ", clustering[i]->type->ToCql(),
                                  clustering[i]->reversed ? " DESC" : "", " in the schema, ", in_file.ToCql(),
                                  in_file.reversed ? " DESC" : "", " in the file"));
    }
  }
  auto check_columns = [&](const std::vector<HeaderColumn>& columns, bool is_static) -> Status {
    for (const HeaderColumn& c : columns) {
      const ColumnSchema* column = schema.FindColumn(c.name);
      if (column && (column->kind == ColumnKind::kStatic) == is_static &&
          (column->kind == ColumnKind::kStatic || column->kind == ColumnKind::kRegular)) {
        if (!Compatible(*c.type, *column->type)) {
          return contradiction(StrCat("column ", c.name, " is ", column->type->ToCql(), " in the schema, ",
                                      c.type->ToCql(), " in the file"));
        }
        continue;
      }
      bool dropped = std::any_of(schema.dropped_columns.begin(), schema.dropped_columns.end(),
                                 [&](const DroppedColumnSchema& d) { return d.name == c.name; });
      if (!dropped) {
        return contradiction(StrCat(is_static ? "static" : "regular", " column ", c.name,
                                    " is in the file but neither in the schema nor dropped from it"));
      }
    }
    return Status::OK();
  };
  RETURN_IF_ERROR(check_columns(header.static_columns, true));
  return check_columns(header.regular_columns, false);
}

std::vector<SchemaCandidate> SchemaCandidates(const SSTableLocation& table, const std::string& schema_file) {
  if (!schema_file.empty()) return {{SchemaOrigin::kSchemaFile, schema_file}};
  std::vector<SchemaCandidate> candidates;
  std::string dir = WithoutTrailingSlash(table.directory);
  candidates.push_back({SchemaOrigin::kSnapshotSchema, JoinPath(dir, "schema.cql")});
  if (std::optional<std::string> table_dir = TableDirectoryOf(table)) {
    if (*table_dir != dir) candidates.push_back({SchemaOrigin::kSnapshotSchema, JoinPath(*table_dir, "schema.cql")});
    std::string keyspace_dir = DirName(*table_dir);
    candidates.push_back({SchemaOrigin::kSnapshotSchema, JoinPath(keyspace_dir, "schema.cql")});
    candidates.push_back({SchemaOrigin::kSystemSchema, DirName(keyspace_dir)});
  }
  return candidates;
}

namespace {

// The schema the first candidate found declares (sources 1 to 3), or nullopt
// when there is none and only a serialization header could tell.
Result<std::optional<ResolvedSchema>> FindDeclaredSchema(FileSystem& fs, const SSTableLocation& location,
                                                         const std::string& schema_file) {
  auto pick = [&](std::vector<TableSchema> tables, const std::string& path) -> Result<TableSchema> {
    std::vector<TableSchema> matching;
    for (auto& t : tables) {
      bool keyspace_ok = t.keyspace.empty() || location.keyspace.empty() || t.keyspace == location.keyspace;
      if (t.table == location.table && keyspace_ok) matching.push_back(std::move(t));
    }
    if (matching.empty() && tables.size() == 1) matching.push_back(std::move(tables[0]));
    if (matching.size() != 1) {
      return Status::NotFound(StrCat(path, ": no CREATE TABLE for ", location.keyspace, ".", location.table));
    }
    return std::move(matching[0]);
  };
  for (const SchemaCandidate& candidate : SchemaCandidates(location, schema_file)) {
    if (candidate.origin == SchemaOrigin::kSystemSchema) {
      ASSIGN_OR_RETURN(auto table, SchemaFromSystemTables(fs, candidate.path, location.keyspace, location.table));
      if (table) return std::optional<ResolvedSchema>(ResolvedSchema{std::move(*table), candidate.origin, candidate.path});
      continue;
    }
    // An explicit file must be there; schema.cql files may not be.
    if (candidate.origin != SchemaOrigin::kSchemaFile && !fs.Exists(candidate.path)) continue;
    ASSIGN_OR_RETURN(std::string text, fs.ReadFileToString(candidate.path));
    auto tables = ParseCqlSchema(text);
    if (!tables.ok()) return tables.status().WithContext(candidate.path);
    ASSIGN_OR_RETURN(TableSchema table, pick(std::move(*tables), candidate.path));
    return std::optional<ResolvedSchema>(ResolvedSchema{std::move(table), candidate.origin, candidate.path});
  }
  return std::optional<ResolvedSchema>();
}

}  // namespace

Result<ResolvedSchema> ResolveTableSchema(FileSystem& fs, const SSTableLocation& table,
                                          const std::vector<const SSTable*>& sstables,
                                          const std::string& schema_file) {
  ASSIGN_OR_RETURN(std::optional<ResolvedSchema> declared, FindDeclaredSchema(fs, table, schema_file));
  if (sstables.empty()) {
    if (!declared) {
      return Status::NotFound(StrCat(table.directory, ": no SSTable, and no schema for ", table.keyspace, ".",
                                     table.table, " (give one with --schema)"));
    }
    return std::move(*declared);
  }
  const SSTable& front = *sstables.front();
  if (!declared) {
    // A header names the columns its generation wrote: take them all.
    ResolvedSchema resolved{SchemaFromHeader(front.header(), table.keyspace, table.table),
                            SchemaOrigin::kSerializationHeader, front.location().ComponentPath("Statistics.db")};
    for (const SSTable* sstable : sstables) AddColumnsFromHeader(sstable->header(), &resolved.table);
    return resolved;
  }
  AddStaticCompactColumns(front.header(), &declared->table);
  for (const SSTable* sstable : sstables) {
    RETURN_IF_ERROR(CheckSchemaAgainstHeader(declared->table, sstable->header(),
                                             sstable->location().ComponentPath("Statistics.db"))
                        .WithContext(StrCat("using the ", declared->Describe())));
  }
  return std::move(*declared);
}

Result<ResolvedSchema> ResolveSchemaWithoutSSTables(FileSystem& fs, const SSTableLocation& location,
                                                    const std::string& schema_file) {
  return ResolveTableSchema(fs, location, {}, schema_file);
}

}  // namespace cqlite
