// An Apache Iceberg catalog kept in a SQLite file or a PostgreSQL database, in
// the schema of Iceberg's JDBC catalog (two tables, iceberg_tables and
// iceberg_namespace_properties), so that Iceberg Java's JdbcCatalog, PyIceberg's
// SqlCatalog and iceberg-rust's SQL catalog open the same catalog as is. The catalog stores, per table, only the
// location of the current metadata JSON file; committing a new table version
// is a compare-and-swap of that location.
//
// Rows are scoped by a catalog name: every client sharing a file must use the
// same name to see the same tables. Rows of other catalog names and any other
// tables in the file are never modified.
//
// Thread-compatible: use one SqlCatalog per thread. Any number of SqlCatalog
// objects, in one or many processes (on many machines, for PostgreSQL), may
// share one catalog; the compare-and-swap lets exactly one of several racing
// commits win. SQLite writers wait for each other (up to a busy timeout);
// PostgreSQL's serializable transactions fail the loser, which a commit
// reports as CommitConflict and other writes retry.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "util/status.h"

namespace cqlite::catalog {

class SqlDb;
class SqlWriteTransaction;

class SqlCatalog final : public Catalog {
 private:
  struct Key {};  // only Open() constructs a SqlCatalog

 public:
  // How long a writer waits for another writer before giving up with IOError.
  static constexpr int kBusyTimeoutMs = 10'000;

  // Opens the catalog at `address` and creates the two catalog tables if they
  // are missing, in the V1 layout (with the iceberg_type column). The address
  // is a SQLite file's path, or sqlite:<path> (the file is created if
  // `create_if_missing` and absent), or a PostgreSQL server's
  // postgresql://... URI (postgres_db.h; the database must exist). A file
  // that is not a SQLite database is InvalidArgument, a catalog table without
  // the catalog's columns is Corruption; in both cases nothing is written. A
  // V0 catalog (iceberg_tables without iceberg_type) is used as is.
  static Result<std::unique_ptr<SqlCatalog>> Open(const std::string& address,
                                                  std::string catalog_name = "cqlite",
                                                  bool create_if_missing = true);
  // The same on a database opened already (or on a wrapper of one, as tests
  // use to inject faults); the catalog name is not checked.
  static Result<std::unique_ptr<SqlCatalog>> OpenOn(std::unique_ptr<SqlDb> db, std::string catalog_name);
  SqlCatalog(Key, std::unique_ptr<SqlDb> db, std::string catalog_name, bool has_iceberg_type);
  ~SqlCatalog() override;
  SqlCatalog(const SqlCatalog&) = delete;
  SqlCatalog& operator=(const SqlCatalog&) = delete;

  // Creates the namespace with the property exists=true and `properties`.
  // Idempotent: for a namespace that exists already, properties it lacks are
  // added and existing values are kept.
  Status CreateNamespace(const Namespace& ns, const std::map<std::string, std::string>& properties) override;
  Status CreateNamespace(const Namespace& ns) { return CreateNamespace(ns, {}); }

  // True if the namespace has properties or tables, itself or below it (as
  // Java's and PyIceberg's catalogs decide).
  Result<bool> NamespaceExists(const Namespace& ns) override;

  // Every namespace of this catalog (with properties or with tables), sorted.
  Result<std::vector<Namespace>> ListNamespaces() override;

  // The names of the tables (not views) directly in `ns`, sorted. NotFound if
  // the namespace does not exist.
  Result<std::vector<std::string>> ListTables(const Namespace& ns) override;

  // The table's current metadata location, or nullopt when it does not exist.
  Result<std::optional<std::string>> LoadTable(const Namespace& ns, const std::string& table);

  // Registers a new table whose current metadata is at `metadata_location`.
  // NotFound if the namespace does not exist; CommitConflict if a table or
  // view of that name exists already (someone else created it first).
  Status CreateTable(const Namespace& ns, const std::string& table, const std::string& metadata_location);

  // Compare-and-swap: sets the table's metadata location to `new_location`
  // and its previous location to `expected_location`, if and only if its
  // current location is `expected_location`. CommitConflict, with nothing
  // changed, otherwise (including when the table does not exist).
  //
  // This and CreateTable learn the outcome of a COMMIT that failed with an
  // I/O error (a server's connection lost while it ran) from the table's row
  // over a new connection: OK when the row holds the new location after all,
  // the error when it does not, CommitUnknown when it cannot be read (the
  // caller must then keep every file the new location may name).
  Status CommitTable(const Namespace& ns, const std::string& table, const std::string& expected_location,
                     const std::string& new_location);

  // The table's location (LoadTable) and the metadata file there, read
  // through `fs` (a file: URI is read as its path).
  Result<std::optional<LoadedTable>> LoadTableMetadata(FileSystem& fs, const Namespace& ns,
                                                       const std::string& table) override;

  // Writes `commit.next` to `commit.metadata_file` (synced), then swaps it in
  // with CommitTable, or registers a new table with CreateNamespace and
  // CreateTable.
  Result<std::string> Commit(FileSystem& fs, const TableCommit& commit) override;

  // What messages name the catalog by: the SQLite file, or the server's URI
  // without its password.
  const std::string& path() const;
  std::string DisplayName() const override { return path(); }
  const std::string& catalog_name() const { return catalog_name_; }
  // False for a V0 catalog, whose iceberg_tables has no iceberg_type column.
  bool has_iceberg_type() const { return has_iceberg_type_; }

 private:
  Status CheckLocation(const std::string& location, const char* what) const;
  // Commits `transaction`, which points the table at `new_location` (see CommitTable).
  Status FinishCommit(SqlWriteTransaction& transaction, const Namespace& ns, const std::string& table,
                      const std::string& new_location);

  std::unique_ptr<SqlDb> db_;
  std::string catalog_name_;
  bool has_iceberg_type_;
};

}  // namespace cqlite::catalog
