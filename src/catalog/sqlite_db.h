// A SqlDb (sql_db.h) over the SQLite C API: the only file in CQLite that
// includes <sqlite3.h>. It opens a database file, runs fixed statements and
// prepared statements with bound parameters, and turns every SQLite error code
// into a Status whose message names the database file.
//
// Thread-compatible: one SqliteDb (and its statements) per thread. Several
// SqliteDb objects, in one process or many, may share a file; writers wait up
// to the busy timeout for each other instead of failing at once.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "catalog/sql_db.h"
#include "util/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace cqlite::catalog {

// Deleters for the SQLite handles (defined where <sqlite3.h> is included).
struct SqliteCloser {
  void operator()(sqlite3* db) const;
};
struct SqliteFinalizer {
  void operator()(sqlite3_stmt* stmt) const;
};

class SqliteDb final : public SqlDb {
 private:
  struct Key {};  // only Open() constructs a SqliteDb

 public:
  // Opens the database file at `path` for reading and writing. When the file
  // is absent it is created if `create_if_missing`, else the result is
  // NotFound. Opening reads nothing yet: a file that is not a database is
  // reported by the first statement that touches it.
  static Result<std::unique_ptr<SqliteDb>> Open(const std::string& path, bool create_if_missing,
                                                int busy_timeout_ms);
  SqliteDb(Key, std::string path, sqlite3* db) : path_(std::move(path)), db_(db) {}
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  Status Exec(const char* sql) override;
  Result<std::unique_ptr<SqlStatement>> Prepare(std::string_view sql) override;
  int64_t Changes() const override;
  // BEGIN IMMEDIATE, so that the write lock is held from the first statement
  // (a deferred transaction that upgrades from reading to writing can fail
  // with SQLITE_BUSY without waiting).
  Status BeginWrite() override { return Exec("BEGIN IMMEDIATE"); }
  const std::string& name() const override { return path_; }

 protected:
  const char* TableColumnsSql() const override { return "SELECT name FROM pragma_table_info(?1)"; }

 private:
  friend class SqliteStatement;
  Status Error(int code, std::string_view action) const;

  std::string path_;
  std::unique_ptr<sqlite3, SqliteCloser> db_;
};

class SqliteStatement final : public SqlStatement {
 public:
  // Binds text (copied by SQLite) to parameter `index`.
  Status BindText(int index, std::string_view text) override;
  Result<bool> Step() override;
  std::optional<std::string> ColumnText(int column) const override;

 private:
  friend class SqliteDb;
  SqliteStatement(const SqliteDb* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}

  const SqliteDb* db_;
  std::unique_ptr<sqlite3_stmt, SqliteFinalizer> stmt_;
};

}  // namespace cqlite::catalog
