#include "catalog/sqlite_db.h"

#include <sqlite3.h>

#include <climits>
#include <utility>

#include "util/strings.h"

namespace cqlite::catalog {

namespace {

// Maps an SQLite result code to a Status kind and names the file.
Status StatusFromCode(int code, const std::string& path, std::string_view action, const char* detail) {
  std::string what = StrCat(path, ": ", action, ": ", detail ? detail : sqlite3_errstr(code));
  switch (code & 0xff) {
    case SQLITE_NOTADB:
      return Status::InvalidArgument(StrCat(path, " is not a SQLite database (", action, ")"));
    case SQLITE_CORRUPT:
      return Status::Corruption(std::move(what));
    case SQLITE_CONSTRAINT:
      if (code == SQLITE_CONSTRAINT_PRIMARYKEY || code == SQLITE_CONSTRAINT_UNIQUE) {
        return Status::CommitConflict(std::move(what));
      }
      return Status::InvalidArgument(std::move(what));
    case SQLITE_ERROR:
    case SQLITE_MISUSE:
    case SQLITE_RANGE:
    case SQLITE_TOOBIG:
      return Status::InvalidArgument(std::move(what));
    default:  // BUSY, LOCKED, IOERR, CANTOPEN, FULL, READONLY, PERM, NOMEM, ...
      return Status::IOError(std::move(what));
  }
}

}  // namespace

void SqliteCloser::operator()(sqlite3* db) const { sqlite3_close_v2(db); }
void SqliteFinalizer::operator()(sqlite3_stmt* stmt) const { sqlite3_finalize(stmt); }

Result<std::unique_ptr<SqliteDb>> SqliteDb::Open(const std::string& path, bool create_if_missing,
                                                 int busy_timeout_ms) {
  // Try the existing file first, so that "absent" can be told apart from other failures.
  for (bool create : {false, true}) {
    if (create && !create_if_missing) break;
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
    sqlite3* raw = nullptr;
    int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
    // Owns the handle from here on, even when opening failed.
    auto db = std::make_unique<SqliteDb>(Key{}, path, raw);
    if (rc == SQLITE_OK) {
      sqlite3_extended_result_codes(raw, 1);
      sqlite3_busy_timeout(raw, busy_timeout_ms);
      return db;
    }
    if (rc != SQLITE_CANTOPEN || create) {
      return StatusFromCode(rc, path, "cannot open", raw ? sqlite3_errmsg(raw) : nullptr);
    }
  }
  return Status::NotFound(StrCat(path, ": no such catalog file (or it cannot be opened)"));
}

Status SqliteDb::Error(int code, std::string_view action) const {
  return StatusFromCode(code, path_, action, sqlite3_errmsg(db_.get()));
}

Status SqliteDb::Exec(const char* sql) {
  char* message = nullptr;
  int rc = sqlite3_exec(db_.get(), sql, nullptr, nullptr, &message);
  if (rc == SQLITE_OK) return Status::OK();
  Status status = StatusFromCode(rc, path_, StrCat("running \"", sql, "\""), message);
  sqlite3_free(message);
  return status;
}

Result<std::unique_ptr<SqlStatement>> SqliteDb::Prepare(std::string_view sql) {
  if (sql.size() > static_cast<size_t>(INT_MAX)) return Status::InvalidArgument("statement too long");
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_.get(), sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  // Finalizes stmt (which may be null) on every path.
  std::unique_ptr<SqliteStatement> statement(new SqliteStatement(this, stmt));
  if (rc != SQLITE_OK) return Error(rc, StrCat("preparing \"", sql, "\""));
  return std::unique_ptr<SqlStatement>(std::move(statement));
}

int64_t SqliteDb::Changes() const { return sqlite3_changes64(db_.get()); }

Status SqliteStatement::BindText(int index, std::string_view text) {
  int rc = sqlite3_bind_text64(stmt_.get(), index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  if (rc != SQLITE_OK) return db_->Error(rc, StrCat("binding parameter ", index));
  return Status::OK();
}

Result<bool> SqliteStatement::Step() {
  int rc = sqlite3_step(stmt_.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return db_->Error(rc, StrCat("running \"", sqlite3_sql(stmt_.get()), "\""));
}

std::optional<std::string> SqliteStatement::ColumnText(int column) const {
  if (sqlite3_column_type(stmt_.get(), column) == SQLITE_NULL) return std::nullopt;
  const unsigned char* text = sqlite3_column_text(stmt_.get(), column);
  int size = sqlite3_column_bytes(stmt_.get(), column);
  if (text == nullptr) return std::string();
  return std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(size));
}

}  // namespace cqlite::catalog
