// The Iceberg catalog as the materialize pipeline sees it: namespaces, the
// tables in them, a table's current metadata, and the one atomic step that
// makes a new table version visible. Two kinds implement it:
//
//   SqlCatalog (sql_catalog.h)   the JDBC catalog schema in a SQLite file or a
//                                PostgreSQL database; a commit writes the next
//                                metadata file and swaps the table's metadata
//                                location (compare-and-swap);
//   RestCatalog (rest_catalog.h) a server speaking the Iceberg REST catalog
//                                protocol; a commit sends requirements and
//                                updates, and the server writes the metadata
//                                file.
//
// OpenCatalog picks one from the address the user gives (--catalog).
//
// A commit is planned on a base version (the table as loaded) and either
// takes effect whole or not at all: CommitConflict when another writer moved
// the table first (nothing changed: load it again, plan again),
// CommitUnknown when the outcome could not be learned (the table may now be
// the new version: the caller must keep every file it may name).
//
// Thread-compatible: one Catalog object per thread; any number of them, in
// one or many processes, may share one catalog.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "iceberg/table_metadata.h"
#include "io/file_system.h"
#include "util/status.h"

namespace cqlite::catalog {

// A namespace is a list of levels, stored dot-joined ("a.b") by the SQL
// catalog. Levels must not be empty nor contain '.', '/', '\\', quotes or
// control characters (NUL included); the joined name is at most 255 bytes.
using Namespace = std::vector<std::string>;

// "a.b" for {"a", "b"}.
std::string NamespaceToString(const Namespace& ns);
// The levels of a dot-joined name, validated: "a.b" -> {"a", "b"}.
Result<Namespace> ParseNamespace(const std::string& text);

// InvalidArgument naming the bad name, or OK.
Status ValidateNamespace(const Namespace& ns);
// Table names follow the rules of a namespace level.
Status ValidateTableName(const std::string& table);

// `name` in double quotes, with control bytes as \xNN, for messages.
std::string QuotedName(std::string_view name);

// A table's current version as the catalog shows it.
struct LoadedTable {
  std::string metadata_location;
  iceberg::TableMetadata metadata;
};

// A new version of a table: `next` is `base` with a snapshot added (and
// maybe a schema or properties changed), or a new table's first version.
struct TableCommit {
  Namespace ns;
  std::string table;
  // The version `next` was planned on; null for a table that does not exist
  // yet (the commit then creates it, and its namespace if need be).
  const LoadedTable* base = nullptr;
  const iceberg::TableMetadata* next = nullptr;
  // Where `next` goes when this catalog needs the metadata file written by
  // the committer (a SQL catalog always, a REST catalog for a new table):
  // a name in the table's metadata directory no other writer uses
  // (fold_state/warehouse_files.h).
  std::string metadata_file;
};

class Catalog {
 public:
  virtual ~Catalog() = default;

  // Creates the namespace with `properties`; OK when it exists already.
  virtual Status CreateNamespace(const Namespace& ns, const std::map<std::string, std::string>& properties) = 0;
  virtual Result<bool> NamespaceExists(const Namespace& ns) = 0;
  // Every namespace of the catalog, sorted.
  virtual Result<std::vector<Namespace>> ListNamespaces() = 0;
  // The names of the tables directly in `ns`, sorted; NotFound if the
  // namespace does not exist.
  virtual Result<std::vector<std::string>> ListTables(const Namespace& ns) = 0;

  // The table's current metadata (format version 2 or 3) and its location,
  // or nullopt when the table does not exist. Metadata files are read
  // through `fs`. Who commits on it must write the table's format version.
  virtual Result<std::optional<LoadedTable>> LoadTableMetadata(FileSystem& fs, const Namespace& ns,
                                                               const std::string& table) = 0;

  // Makes `commit.next` the table's current version if the table is still at
  // `commit.base` (or, for a new table, does not exist), writing through
  // `fs` what this catalog needs written; returns the new metadata location.
  // CommitConflict with nothing changed when another writer got there first;
  // CommitUnknown when the outcome could not be learned.
  virtual Result<std::string> Commit(FileSystem& fs, const TableCommit& commit) = 0;

  // What messages and reports name the catalog by (never a secret).
  virtual std::string DisplayName() const = 0;
};

// Opens the catalog `address` names:
//   sqlite:<path> or a plain path   a SQLite file (created if
//                                   `create_if_missing` and absent)
//   postgresql://... (postgres://)  a PostgreSQL database (sql_catalog.h)
//   rest:http(s)://host[:port][/path]  an Iceberg REST catalog server
//                                   (rest_catalog.h)
// `catalog_name` scopes a SQL catalog's rows; a REST catalog ignores it (the
// address's own warehouse= parameter names a server's warehouse).
Result<std::unique_ptr<Catalog>> OpenCatalog(const std::string& address, const std::string& catalog_name,
                                             bool create_if_missing);

// Whether `address` names a REST catalog (rest:...).
bool IsRestCatalogAddress(std::string_view address);

}  // namespace cqlite::catalog
