// A SqlDb (sql_db.h) on a PostgreSQL server, through libpq: the only file in
// CQLite that includes <libpq-fe.h>. The catalog's two tables live there as
// Iceberg Java's JdbcCatalog (with the PostgreSQL JDBC driver) and PyIceberg's
// SqlCatalog (with psycopg2) create them, so that several writers on several
// machines share one catalog.
//
// The server is named by a libpq connection URI,
// postgresql://[user[:password]@]host[:port]/dbname[?param=value&...]; what it
// leaves out comes from libpq's environment variables (PGUSER, PGPASSWORD,
// ...) and ~/.pgpass, as for psql. Messages name the server by the URI
// without its password.
//
// Write transactions are SERIALIZABLE: of two that race on the same rows one
// fails, as CommitConflict, whether or not the tables have their primary keys.
//
// Thread-compatible: one PostgresDb (one connection) per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "catalog/sql_db.h"
#include "util/status.h"

struct pg_conn;

namespace cqlite::catalog {

// Whether `address` names a PostgreSQL server (postgresql:// or postgres://).
bool IsPostgresUri(std::string_view address);

// The URI with the password of its user part (if any) left out.
std::string RedactedPostgresUri(std::string_view uri);

// `sql` with its parameters ?1, ?2, ... written as PostgreSQL's $1, $2, ...
// (outside quoted literals and identifiers).
std::string ToPostgresParameters(std::string_view sql);

struct PostgresCloser {
  void operator()(pg_conn* conn) const;
};

class PostgresDb final : public SqlDb {
 private:
  struct Key {};  // only Open() constructs a PostgresDb

 public:
  // Connects to the server `uri` names, waiting at most `connect_timeout_s`
  // unless the URI gives its own connect_timeout. IOError naming the server
  // (never the password) when it cannot be reached or refuses the login.
  static Result<std::unique_ptr<PostgresDb>> Open(const std::string& uri, int connect_timeout_s = 10);
  PostgresDb(Key, std::string name, pg_conn* conn) : name_(std::move(name)), conn_(conn) {}
  PostgresDb(const PostgresDb&) = delete;
  PostgresDb& operator=(const PostgresDb&) = delete;

  Status Exec(const char* sql) override;
  Result<std::unique_ptr<SqlStatement>> Prepare(std::string_view sql) override;
  int64_t Changes() const override { return changes_; }
  Status BeginWrite() override { return Exec("BEGIN ISOLATION LEVEL SERIALIZABLE"); }
  const std::string& name() const override { return name_; }
  Status Reconnect() override;

 protected:
  // The tables a client finds unqualified: those of the first schema of the
  // search path that has one of that name.
  const char* TableColumnsSql() const override {
    return "SELECT a.attname FROM pg_attribute a WHERE a.attrelid = to_regclass(?1) AND a.attnum > 0 AND NOT "
           "a.attisdropped";
  }

 private:
  friend class PostgresStatement;
  pg_conn* conn() const { return conn_.get(); }

  std::string name_;
  std::unique_ptr<pg_conn, PostgresCloser> conn_;
  int64_t changes_ = 0;
};

}  // namespace cqlite::catalog
