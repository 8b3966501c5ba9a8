// The SQL database a JDBC-schema catalog keeps its two tables in: the few
// operations SqlCatalog needs, with each database's dialect and error codes
// behind them (sqlite_db.h for a SQLite file, postgres_db.h for a PostgreSQL
// server).
//
// Statements are written in one dialect: parameters are ?1, ?2, ... and bound
// as text; the SQL is otherwise plain enough for both databases.
//
// Thread-compatible: one SqlDb (and its statements) per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "util/status.h"

namespace cqlite::catalog {

// A prepared statement. Parameters are numbered from 1, result columns from 0.
// It must not outlive the SqlDb that prepared it.
class SqlStatement {
 public:
  virtual ~SqlStatement() = default;

  // Binds text to parameter `index`.
  virtual Status BindText(int index, std::string_view text) = 0;

  // Runs the statement one step: true when a result row is available, false
  // when the statement has finished.
  virtual Result<bool> Step() = 0;

  // Steps until the statement finishes, ignoring rows.
  Status Run();

  // The text of column `column` of the current row; nullopt for SQL NULL.
  // REQUIRES: the last Step() returned true.
  virtual std::optional<std::string> ColumnText(int column) const = 0;
};

class SqlDb {
 public:
  virtual ~SqlDb() = default;

  // Runs one or more statements that take no parameters and return no rows.
  // REQUIRES: `sql` is a constant of the caller, never built from user input.
  virtual Status Exec(const char* sql) = 0;

  // Compiles one statement.
  virtual Result<std::unique_ptr<SqlStatement>> Prepare(std::string_view sql) = 0;

  // Rows changed by the most recent INSERT, UPDATE or DELETE.
  virtual int64_t Changes() const = 0;

  // The columns of `table` in lower case; empty when the table does not exist.
  Result<std::set<std::string>> TableColumns(const char* table);

  // Starts a transaction that may write and that sees no other writer's
  // changes to what it reads before it commits: the second of two racing
  // transactions waits for the first or fails with CommitConflict.
  virtual Status BeginWrite() = 0;

  // What messages name the database by: a file's path, or a server's URI
  // without its password.
  virtual const std::string& name() const = 0;

  // Connects anew after the connection was lost (a server's); a file's
  // database has nothing to do.
  virtual Status Reconnect() { return Status::OK(); }

 protected:
  // A query of one parameter, a table's name, whose rows are its columns' names.
  virtual const char* TableColumnsSql() const = 0;
};

// A write transaction (SqlDb::BeginWrite), rolled back on destruction unless
// committed.
class SqlWriteTransaction {
 public:
  static Result<SqlWriteTransaction> Begin(SqlDb& db);
  SqlWriteTransaction(SqlWriteTransaction&& other) noexcept : db_(std::exchange(other.db_, nullptr)) {}
  SqlWriteTransaction& operator=(SqlWriteTransaction&&) = delete;
  SqlWriteTransaction(const SqlWriteTransaction&) = delete;
  SqlWriteTransaction& operator=(const SqlWriteTransaction&) = delete;
  ~SqlWriteTransaction();

  Status Commit();

 private:
  explicit SqlWriteTransaction(SqlDb* db) : db_(db) {}
  SqlDb* db_;  // not owned; null once committed or moved from
};

}  // namespace cqlite::catalog
