#include "catalog/sql_catalog.h"

#include <algorithm>
#include <functional>
#include <set>
#include <utility>

#include "catalog/postgres_db.h"
#include "catalog/sqlite_db.h"
#include "util/strings.h"

namespace cqlite::catalog {

namespace {

// The JDBC catalog schema, V1 (with iceberg_type). Column names and types as
// Iceberg Java's JdbcUtil, PyIceberg's sql.py and iceberg-rust's SQL catalog
// declare them; property key and value are NOT NULL as in PyIceberg.
constexpr std::string_view kSqlitePrefix = "sqlite:";
constexpr const char* kTablesTable = "iceberg_tables";
constexpr const char* kNamespacesTable = "iceberg_namespace_properties";
constexpr const char* kCreateTablesTableSql =
    "CREATE TABLE IF NOT EXISTS iceberg_tables ("
    "catalog_name VARCHAR(255) NOT NULL, "
    "table_namespace VARCHAR(255) NOT NULL, "
    "table_name VARCHAR(255) NOT NULL, "
    "metadata_location VARCHAR(1000), "
    "previous_metadata_location VARCHAR(1000), "
    "iceberg_type VARCHAR(5), "
    "PRIMARY KEY (catalog_name, table_namespace, table_name))";
constexpr const char* kCreateNamespacesTableSql =
    "CREATE TABLE IF NOT EXISTS iceberg_namespace_properties ("
    "catalog_name VARCHAR(255) NOT NULL, "
    "namespace VARCHAR(255) NOT NULL, "
    "property_key VARCHAR(255) NOT NULL, "
    "property_value VARCHAR(1000) NOT NULL, "
    "PRIMARY KEY (catalog_name, namespace, property_key))";
const std::vector<std::string> kTablesColumns = {"catalog_name", "table_namespace", "table_name",
                                                 "metadata_location", "previous_metadata_location"};
const std::vector<std::string> kNamespacesColumns = {"catalog_name", "namespace", "property_key",
                                                     "property_value"};
constexpr const char* kIcebergTypeColumn = "iceberg_type";

// The property every catalog writes when it creates a namespace.
constexpr const char* kExistsProperty = "exists";
// iceberg_type of a table row; NULL is read as a table too (rows written before V1).
constexpr const char* kTableType = "TABLE";
constexpr const char* kIsTableSql = "(iceberg_type = 'TABLE' OR iceberg_type IS NULL)";

// Column width of names in the schema.
constexpr size_t kMaxNameBytes = 255;

// What Open() found in the file.
struct CatalogShape {
  bool has_tables_table = false;
  bool has_namespaces_table = false;
  bool has_iceberg_type = false;
};

Status CheckColumns(const std::string& path, const char* table, const std::set<std::string>& columns,
                    const std::vector<std::string>& required) {
  for (const std::string& column : required) {
    if (!columns.count(column)) {
      return Status::Corruption(
          StrCat(path, ": table ", table, " has no column ", column,
                 ": the file holds a table of that name that is not an Iceberg catalog's"));
    }
  }
  return Status::OK();
}

Result<CatalogShape> ReadShape(SqlDb& db) {
  ASSIGN_OR_RETURN(std::set<std::string> tables_columns, db.TableColumns(kTablesTable));
  ASSIGN_OR_RETURN(std::set<std::string> namespaces_columns, db.TableColumns(kNamespacesTable));
  CatalogShape shape;
  shape.has_tables_table = !tables_columns.empty();
  shape.has_namespaces_table = !namespaces_columns.empty();
  if (shape.has_tables_table) {
    RETURN_IF_ERROR(CheckColumns(db.name(), kTablesTable, tables_columns, kTablesColumns));
    shape.has_iceberg_type = tables_columns.count(kIcebergTypeColumn) > 0;
  }
  if (shape.has_namespaces_table) {
    RETURN_IF_ERROR(CheckColumns(db.name(), kNamespacesTable, namespaces_columns, kNamespacesColumns));
  }
  return shape;
}

// Binds each value to the parameter of its position (from 1).
Status BindAll(SqlStatement& stmt, std::initializer_list<std::string_view> values) {
  int index = 1;
  for (std::string_view value : values) RETURN_IF_ERROR(stmt.BindText(index++, value));
  return Status::OK();
}

// Runs `attempt` again, a few times, while it fails with CommitConflict. For
// steps that are safe to repeat (creating what may exist already): a server
// database (PostgreSQL) fails the loser of two racing transactions where
// SQLite makes it wait.
Status RetryRaces(const std::function<Status()>& attempt) {
  constexpr int kAttempts = 5;
  Status status;
  for (int i = 0; i < kAttempts; ++i) {
    status = attempt();
    if (status.kind() != StatusKind::kCommitConflict) return status;
  }
  return status;
}

}  // namespace

Result<std::unique_ptr<SqlCatalog>> SqlCatalog::Open(const std::string& address, std::string catalog_name,
                                                     bool create_if_missing) {
  const bool is_postgres = IsPostgresUri(address);
  std::string path = StartsWith(address, kSqlitePrefix) ? address.substr(kSqlitePrefix.size()) : address;
  if (catalog_name.empty() || catalog_name.size() > kMaxNameBytes || !IsValidUtf8(catalog_name) ||
      catalog_name.find('\0') != std::string::npos) {
    return Status::InvalidArgument(StrCat(is_postgres ? RedactedPostgresUri(address) : path, ": bad catalog name ",
                                          QuotedName(catalog_name)));
  }
  std::unique_ptr<SqlDb> db;
  if (is_postgres) {
    ASSIGN_OR_RETURN(db, PostgresDb::Open(address));
  } else {
    ASSIGN_OR_RETURN(db, SqliteDb::Open(path, create_if_missing, kBusyTimeoutMs));
  }
  return OpenOn(std::move(db), std::move(catalog_name));
}

Result<std::unique_ptr<SqlCatalog>> SqlCatalog::OpenOn(std::unique_ptr<SqlDb> db, std::string catalog_name) {
  // Read first, so that a database that is not a catalog is rejected before anything is written.
  ASSIGN_OR_RETURN(CatalogShape shape, ReadShape(*db));
  if (!shape.has_tables_table || !shape.has_namespaces_table) {
    auto create = [&]() -> Status {
      ASSIGN_OR_RETURN(SqlWriteTransaction transaction, SqlWriteTransaction::Begin(*db));
      // Another process may have created the tables meanwhile.
      ASSIGN_OR_RETURN(shape, ReadShape(*db));
      if (!shape.has_tables_table) {
        RETURN_IF_ERROR(db->Exec(kCreateTablesTableSql));
        shape.has_iceberg_type = true;
      }
      if (!shape.has_namespaces_table) RETURN_IF_ERROR(db->Exec(kCreateNamespacesTableSql));
      return transaction.Commit();
    };
    RETURN_IF_ERROR(RetryRaces(create));
  }
  return std::make_unique<SqlCatalog>(Key{}, std::move(db), std::move(catalog_name), shape.has_iceberg_type);
}

SqlCatalog::SqlCatalog(Key, std::unique_ptr<SqlDb> db, std::string catalog_name, bool has_iceberg_type)
    : db_(std::move(db)), catalog_name_(std::move(catalog_name)), has_iceberg_type_(has_iceberg_type) {}

SqlCatalog::~SqlCatalog() = default;

const std::string& SqlCatalog::path() const { return db_->name(); }

Status SqlCatalog::CheckLocation(const std::string& location, const char* what) const {
  if (location.empty()) return Status::InvalidArgument(StrCat(path(), ": empty ", what));
  if (location.find('\0') != std::string::npos || !IsValidUtf8(location)) {
    return Status::InvalidArgument(StrCat(path(), ": ", what, " ", QuotedName(location), " is not valid text"));
  }
  return Status::OK();
}

Status SqlCatalog::CreateNamespace(const Namespace& ns,
                                   const std::map<std::string, std::string>& properties) {
  RETURN_IF_ERROR(ValidateNamespace(ns));
  std::map<std::string, std::string> all = properties;
  all.emplace(kExistsProperty, "true");  // keeps a caller's own value
  for (const auto& [key, value] : all) {
    if (key.empty() || key.size() > kMaxNameBytes || !IsValidUtf8(key) || !IsValidUtf8(value) ||
        key.find('\0') != std::string::npos || value.find('\0') != std::string::npos) {
      return Status::InvalidArgument(
          StrCat(path(), ": bad property ", QuotedName(key), " of namespace ", QuotedName(NamespaceToString(ns))));
    }
  }
  std::string name = NamespaceToString(ns);
  return RetryRaces([&]() -> Status {
    ASSIGN_OR_RETURN(SqlWriteTransaction transaction, SqlWriteTransaction::Begin(*db_));
    for (const auto& [key, value] : all) {
      // Keeps the value of a property the namespace has already; the primary
      // key is not relied on, since another tool may have created the table.
      ASSIGN_OR_RETURN(std::unique_ptr<SqlStatement> insert,
                       db_->Prepare("INSERT INTO iceberg_namespace_properties "
                                    "(catalog_name, namespace, property_key, property_value) "
                                    "SELECT ?1, ?2, ?3, ?4 WHERE NOT EXISTS (SELECT 1 FROM "
                                    "iceberg_namespace_properties WHERE catalog_name = ?1 AND "
                                    "namespace = ?2 AND property_key = ?3)"));
      RETURN_IF_ERROR(BindAll(*insert, {catalog_name_, name, key, value}));
      RETURN_IF_ERROR(insert->Run());
    }
    return transaction.Commit();
  });
}

Result<bool> SqlCatalog::NamespaceExists(const Namespace& ns) {
  RETURN_IF_ERROR(ValidateNamespace(ns));
  std::string name = NamespaceToString(ns);
  // A namespace exists if it, or a namespace below it ("a.b" below "a"), has
  // a row in either table. Prefixes are compared with substr, not LIKE, which
  // in SQLite ignores ASCII case.
  for (const char* sql : {"SELECT 1 FROM iceberg_tables WHERE catalog_name = ?1 AND "
                          "(table_namespace = ?2 OR substr(table_namespace, 1, length(?3)) = ?3) LIMIT 1",
                          "SELECT 1 FROM iceberg_namespace_properties WHERE catalog_name = ?1 AND "
                          "(namespace = ?2 OR substr(namespace, 1, length(?3)) = ?3) LIMIT 1"}) {
    ASSIGN_OR_RETURN(std::unique_ptr<SqlStatement> query, db_->Prepare(sql));
    RETURN_IF_ERROR(BindAll(*query, {catalog_name_, name, name + "."}));
    ASSIGN_OR_RETURN(bool found, query->Step());
    if (found) return true;
  }
  return false;
}

Result<std::vector<Namespace>> SqlCatalog::ListNamespaces() {
  ASSIGN_OR_RETURN(std::unique_ptr<SqlStatement> query,
                   db_->Prepare("SELECT table_namespace FROM iceberg_tables WHERE catalog_name = ?1 "
                                "UNION SELECT namespace FROM iceberg_namespace_properties "
                                "WHERE catalog_name = ?1"));
  RETURN_IF_ERROR(query->BindText(1, catalog_name_));
  std::set<Namespace> namespaces;
  while (true) {
    ASSIGN_OR_RETURN(bool row, query->Step());
    if (!row) break;
    std::string name = query->ColumnText(0).value_or("");
    // Other tools may keep tables outside any namespace; those are no namespace.
    if (!name.empty()) namespaces.insert(Split(name, '.'));
  }
  return std::vector<Namespace>(namespaces.begin(), namespaces.end());
}

Result<std::vector<std::string>> SqlCatalog::ListTables(const Namespace& ns) {
  ASSIGN_OR_RETURN(bool exists, NamespaceExists(ns));
  if (!exists) {
    return Status::NotFound(StrCat(path(), ": catalog ", QuotedName(catalog_name_), " has no namespace ",
                                   QuotedName(NamespaceToString(ns))));
  }
  std::string sql = "SELECT table_name FROM iceberg_tables WHERE catalog_name = ?1 AND table_namespace = ?2";
  if (has_iceberg_type_) sql += StrCat(" AND ", kIsTableSql);
  sql += " ORDER BY table_name";
  ASSIGN_OR_RETURN(std::unique_ptr<SqlStatement> query, db_->Prepare(sql));
  RETURN_IF_ERROR(BindAll(*query, {catalog_name_, NamespaceToString(ns)}));
  std::vector<std::string> tables;
  while (true) {
    ASSIGN_OR_RETURN(bool row, query->Step());
    if (!row) break;
    tables.push_back(query->ColumnText(0).value_or(""));
  }
  return tables;
}

Result<std::optional<std::string>> SqlCatalog::LoadTable(const Namespace& ns, const std::string& table) {
  RETURN_IF_ERROR(ValidateNamespace(ns));
  RETURN_IF_ERROR(ValidateTableName(table));
  std::string sql =
      "SELECT metadata_location FROM iceberg_tables WHERE catalog_name = ?1 AND table_namespace = ?2 AND "
      "table_name = ?3";
  if (has_iceberg_type_) sql += StrCat(" AND ", kIsTableSql);
  ASSIGN_OR_RETURN(std::unique_ptr<SqlStatement> query, db_->Prepare(sql));
  std::string full_name = StrCat(NamespaceToString(ns), ".", table);
  RETURN_IF_ERROR(BindAll(*query, {catalog_name_, NamespaceToString(ns), table}));
  ASSIGN_OR_RETURN(bool found, query->Step());
  if (!found) return std::optional<std::string>();
  std::optional<std::string> location = query->ColumnText(0);
  if (!location || location->empty()) {
    return Status::Corruption(StrCat(path(), ": table ", full_name, " has no metadata location"));
  }
  ASSIGN_OR_RETURN(bool second, query->Step());
  if (second) return Status::Corruption(StrCat(path(), ": table ", full_name, " has more than one row"));
  return location;
}

Status SqlCatalog::CreateTable(const Namespace& ns, const std::string& table,
                               const std::string& metadata_location) {
  RETURN_IF_ERROR(ValidateNamespace(ns));
  RETURN_IF_ERROR(ValidateTableName(table));
  RETURN_IF_ERROR(CheckLocation(metadata_location, "metadata location"));
  std::string name = NamespaceToString(ns);
  std::string full_name = StrCat(name, ".", table);
  ASSIGN_OR_RETURN(SqlWriteTransaction transaction, SqlWriteTransaction::Begin(*db_));
  ASSIGN_OR_RETURN(bool ns_exists, NamespaceExists(ns));
  if (!ns_exists) {
    return Status::NotFound(StrCat(path(), ": cannot create table ", full_name, ": catalog ",
                                   QuotedName(catalog_name_), " has no namespace ", QuotedName(name)));
  }
  {
    // Any row of that name, a table or a view, takes the name.
    ASSIGN_OR_RETURN(std::unique_ptr<SqlStatement> query,
                     db_->Prepare("SELECT 1 FROM iceberg_tables WHERE catalog_name = ?1 AND "
                                  "table_namespace = ?2 AND table_name = ?3"));
    RETURN_IF_ERROR(BindAll(*query, {catalog_name_, name, table}));
    ASSIGN_OR_RETURN(bool taken, query->Step());
    if (taken) {
      return Status::CommitConflict(
          StrCat(path(), ": table ", full_name, " exists already in catalog ", QuotedName(catalog_name_)));
    }
  }
  ASSIGN_OR_RETURN(
      std::unique_ptr<SqlStatement> insert,
      db_->Prepare(has_iceberg_type_
                       ? "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
                         "metadata_location, previous_metadata_location, iceberg_type) "
                         "VALUES (?1, ?2, ?3, ?4, NULL, ?5)"
                       : "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
                         "metadata_location, previous_metadata_location) "
                         "VALUES (?1, ?2, ?3, ?4, NULL)"));
  RETURN_IF_ERROR(BindAll(*insert, {catalog_name_, name, table, metadata_location}));
  if (has_iceberg_type_) RETURN_IF_ERROR(insert->BindText(5, kTableType));
  RETURN_IF_ERROR(insert->Run());
  return FinishCommit(transaction, ns, table, metadata_location);
}

Status SqlCatalog::FinishCommit(SqlWriteTransaction& transaction, const Namespace& ns, const std::string& table,
                                const std::string& new_location) {
  Status status = transaction.Commit();
  if (status.kind() != StatusKind::kIOError) return status;
  Status reconnected = db_->Reconnect();
  Result<std::optional<std::string>> current =
      reconnected.ok() ? LoadTable(ns, table) : Result<std::optional<std::string>>(reconnected);
  if (!current.ok()) {
    return Status::CommitUnknown(StrCat(status.message(), "; whether table ", NamespaceToString(ns), ".", table,
                                        " now names ", new_location, " could not be learned: ",
                                        current.status().message()));
  }
  if (*current == new_location) return Status::OK();
  return status;
}

Status SqlCatalog::CommitTable(const Namespace& ns, const std::string& table,
                               const std::string& expected_location, const std::string& new_location) {
  RETURN_IF_ERROR(ValidateNamespace(ns));
  RETURN_IF_ERROR(ValidateTableName(table));
  RETURN_IF_ERROR(CheckLocation(expected_location, "expected metadata location"));
  RETURN_IF_ERROR(CheckLocation(new_location, "new metadata location"));
  std::string name = NamespaceToString(ns);
  std::string full_name = StrCat(name, ".", table);
  // The predicate of Iceberg Java's JdbcUtil (and PyIceberg, iceberg-rust):
  // the row must still point at the metadata the new version was based on.
  std::string sql =
      "UPDATE iceberg_tables SET metadata_location = ?1, previous_metadata_location = ?2 "
      "WHERE catalog_name = ?3 AND table_namespace = ?4 AND table_name = ?5 AND metadata_location = ?2";
  if (has_iceberg_type_) sql += StrCat(" AND ", kIsTableSql);
  ASSIGN_OR_RETURN(SqlWriteTransaction transaction, SqlWriteTransaction::Begin(*db_));
  ASSIGN_OR_RETURN(std::unique_ptr<SqlStatement> update, db_->Prepare(sql));
  RETURN_IF_ERROR(BindAll(*update, {new_location, expected_location, catalog_name_, name, table}));
  RETURN_IF_ERROR(update->Run());
  int64_t changed = db_->Changes();
  if (changed == 1) return FinishCommit(transaction, ns, table, new_location);
  if (changed > 1) {
    return Status::Corruption(StrCat(path(), ": table ", full_name, " has ", changed, " rows"));
  }
  // Nothing changed: say why, from what the transaction sees.
  ASSIGN_OR_RETURN(std::optional<std::string> current, LoadTable(ns, table));
  if (!current) {
    return Status::CommitConflict(StrCat(path(), ": cannot commit to table ", full_name, ": catalog ",
                                         QuotedName(catalog_name_), " has no such table"));
  }
  return Status::CommitConflict(StrCat(path(), ": cannot commit to table ", full_name,
                                       ": its metadata location is ", *current, ", not ", expected_location));
}

Result<std::optional<LoadedTable>> SqlCatalog::LoadTableMetadata(FileSystem& fs, const Namespace& ns,
                                                                 const std::string& table) {
  ASSIGN_OR_RETURN(std::optional<std::string> location, LoadTable(ns, table));
  if (!location) return std::optional<LoadedTable>();
  LoadedTable loaded;
  loaded.metadata_location = std::move(*location);
  ASSIGN_OR_RETURN(std::string text, fs.ReadFileToString(iceberg::LocalFilePath(loaded.metadata_location)));
  ASSIGN_OR_RETURN(loaded.metadata, iceberg::TableMetadataFromJson(text, loaded.metadata_location, /*max_format_version=*/3));
  return std::optional<LoadedTable>(std::move(loaded));
}

Result<std::string> SqlCatalog::Commit(FileSystem& fs, const TableCommit& commit) {
  if (commit.next == nullptr || commit.metadata_file.empty()) {
    return Status::InvalidArgument(StrCat(path(), ": a commit needs the next metadata and its file name"));
  }
  RETURN_IF_ERROR(fs.WriteStringToFile(commit.metadata_file, iceberg::TableMetadataToJson(*commit.next)));
  if (commit.base != nullptr) {
    RETURN_IF_ERROR(CommitTable(commit.ns, commit.table, commit.base->metadata_location, commit.metadata_file));
  } else {
    RETURN_IF_ERROR(CreateNamespace(commit.ns));
    RETURN_IF_ERROR(CreateTable(commit.ns, commit.table, commit.metadata_file));
  }
  return commit.metadata_file;
}

}  // namespace cqlite::catalog
