#include "catalog/sql_db.h"

#include "util/strings.h"

namespace cqlite::catalog {

Status SqlStatement::Run() {
  while (true) {
    ASSIGN_OR_RETURN(bool row, Step());
    if (!row) return Status::OK();
  }
}

Result<std::set<std::string>> SqlDb::TableColumns(const char* table) {
  ASSIGN_OR_RETURN(std::unique_ptr<SqlStatement> stmt, Prepare(TableColumnsSql()));
  RETURN_IF_ERROR(stmt->BindText(1, table));
  std::set<std::string> columns;
  while (true) {
    ASSIGN_OR_RETURN(bool row, stmt->Step());
    if (!row) break;
    columns.insert(ToLowerAscii(stmt->ColumnText(0).value_or("")));
  }
  return columns;
}

Result<SqlWriteTransaction> SqlWriteTransaction::Begin(SqlDb& db) {
  RETURN_IF_ERROR(db.BeginWrite());
  return SqlWriteTransaction(&db);
}

SqlWriteTransaction::~SqlWriteTransaction() {
  // Best effort: a database whose ROLLBACK fails has ended the transaction itself.
  if (db_ != nullptr) (void)db_->Exec("ROLLBACK");
}

Status SqlWriteTransaction::Commit() {
  SqlDb* db = std::exchange(db_, nullptr);
  Status status = db->Exec("COMMIT");
  // A failed COMMIT (e.g. the disk is full) may leave the transaction open: end it.
  if (!status.ok()) (void)db->Exec("ROLLBACK");
  return status;
}

}  // namespace cqlite::catalog
