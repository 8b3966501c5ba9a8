// A small RAII wrapper over the SQLite C API: the only file in CQLite that
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
#include <utility>

#include "util/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace cqlite::catalog {

class SqliteStatement;

// Deleters for the SQLite handles (defined where <sqlite3.h> is included).
struct SqliteCloser {
  void operator()(sqlite3* db) const;
};
struct SqliteFinalizer {
  void operator()(sqlite3_stmt* stmt) const;
};

class SqliteDb {
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

  // Runs one or more statements that take no parameters and return no rows.
  // REQUIRES: `sql` is a constant of the caller, never built from user input.
  Status Exec(const char* sql);

  // Compiles one statement. The statement must not outlive this SqliteDb.
  Result<SqliteStatement> Prepare(std::string_view sql);

  // Rows changed by the most recent INSERT, UPDATE or DELETE on this connection.
  int64_t Changes() const;

  const std::string& path() const { return path_; }

 private:
  friend class SqliteStatement;
  Status Error(int code, std::string_view action) const;

  std::string path_;
  std::unique_ptr<sqlite3, SqliteCloser> db_;
};

// A prepared statement. Parameters are numbered from 1, result columns from 0.
class SqliteStatement {
 public:
  // Binds text (copied by SQLite) to parameter `index`.
  Status BindText(int index, std::string_view text);

  // Runs the statement one step: true when a result row is available, false
  // when the statement has finished.
  Result<bool> Step();

  // Steps until the statement finishes, ignoring rows.
  Status Run();

  // The text of column `column` of the current row; nullopt for SQL NULL.
  // REQUIRES: the last Step() returned true.
  std::optional<std::string> ColumnText(int column) const;

 private:
  friend class SqliteDb;
  SqliteStatement(const SqliteDb* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}

  const SqliteDb* db_;
  std::unique_ptr<sqlite3_stmt, SqliteFinalizer> stmt_;
};

// A write transaction, taken with BEGIN IMMEDIATE so that the write lock is
// held from the first statement (a deferred transaction that upgrades from
// reading to writing can fail with SQLITE_BUSY without waiting). Rolled back
// on destruction unless committed.
class SqliteWriteTransaction {
 public:
  static Result<SqliteWriteTransaction> Begin(SqliteDb& db);
  SqliteWriteTransaction(SqliteWriteTransaction&& other) noexcept : db_(std::exchange(other.db_, nullptr)) {}
  SqliteWriteTransaction& operator=(SqliteWriteTransaction&&) = delete;
  SqliteWriteTransaction(const SqliteWriteTransaction&) = delete;
  SqliteWriteTransaction& operator=(const SqliteWriteTransaction&) = delete;
  ~SqliteWriteTransaction();

  Status Commit();

 private:
  explicit SqliteWriteTransaction(SqliteDb* db) : db_(db) {}
  SqliteDb* db_;  // not owned; null once committed or moved from
};

}  // namespace cqlite::catalog
