#include "catalog/postgres_db.h"

#include <libpq-fe.h>

#include <charconv>
#include <utility>
#include <vector>

#include "util/strings.h"

namespace cqlite::catalog {

namespace {

// PostgreSQL's type OID of text: every parameter is bound as text, so that
// functions such as length() know their argument's type.
constexpr Oid kTextOid = 25;

struct ResultClearer {
  void operator()(PGresult* result) const { PQclear(result); }
};
using ResultPtr = std::unique_ptr<PGresult, ResultClearer>;

// libpq's messages end with a newline (and may hold several lines).
std::string OneLine(const char* message) {
  std::string text = message ? message : "";
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  for (char& c : text) {
    if (c == '\n') c = ' ';
  }
  return text;
}

// A failed statement as a Status: a commit race (serialization failure,
// deadlock, a unique key taken meanwhile, or a table or its row type created
// meanwhile by another CREATE TABLE IF NOT EXISTS, which checks before it
// takes the name) is CommitConflict, a statement the
// server does not accept InvalidArgument, anything else (the connection, the
// server's resources) IOError.
Status StatusOfResult(const std::string& name, std::string_view action, const PGresult* result, PGconn* conn) {
  const char* state = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  std::string sqlstate = state ? state : "";
  std::string message = OneLine(result ? PQresultErrorMessage(result) : PQerrorMessage(conn));
  if (message.empty()) message = OneLine(PQerrorMessage(conn));
  std::string what = StrCat(name, ": ", action, ": ", message);
  if (sqlstate == "40001" || sqlstate == "40P01" || sqlstate == "23505" || sqlstate == "42P07" ||
      sqlstate == "42710") {
    return Status::CommitConflict(what);
  }
  if (sqlstate.size() == 5 && (StartsWith(sqlstate, "42") || StartsWith(sqlstate, "22") ||
                               StartsWith(sqlstate, "23"))) {
    return Status::InvalidArgument(what);
  }
  return Status::IOError(what);
}

}  // namespace

bool IsPostgresUri(std::string_view address) {
  return StartsWith(address, "postgresql://") || StartsWith(address, "postgres://");
}

std::string RedactedPostgresUri(std::string_view uri) {
  size_t scheme_end = uri.find("://");
  if (scheme_end == std::string_view::npos) return std::string(uri);
  size_t authority = scheme_end + 3;
  size_t authority_end = uri.find_first_of("/?", authority);
  if (authority_end == std::string_view::npos) authority_end = uri.size();
  std::string_view host_part = uri.substr(authority, authority_end - authority);
  size_t at = host_part.rfind('@');
  if (at == std::string_view::npos) return std::string(uri);
  std::string_view user_info = host_part.substr(0, at);
  size_t colon = user_info.find(':');
  if (colon == std::string_view::npos) return std::string(uri);
  // The query may carry a password too (?password=...): leave the query out
  // when it does.
  std::string_view rest = uri.substr(authority_end);
  size_t query = rest.find('?');
  if (query != std::string_view::npos && rest.find("password", query) != std::string_view::npos) {
    rest = rest.substr(0, query);
  }
  return StrCat(uri.substr(0, authority), user_info.substr(0, colon), host_part.substr(at), rest);
}

std::string ToPostgresParameters(std::string_view sql) {
  std::string out;
  out.reserve(sql.size());
  char quote = 0;  // the quote character of the literal or identifier we are in
  for (char c : sql) {
    if (quote != 0) {
      if (c == quote) quote = 0;  // a doubled quote closes and reopens: the same
      out += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      out += c;
    } else {
      out += c == '?' ? '$' : c;
    }
  }
  return out;
}

void PostgresCloser::operator()(pg_conn* conn) const { PQfinish(conn); }

// A statement run with PQexecParams on the first Step; its rows are read from
// the result.
class PostgresStatement final : public SqlStatement {
 public:
  PostgresStatement(PostgresDb* db, std::string sql) : db_(db), sql_(std::move(sql)) {}

  Status BindText(int index, std::string_view text) override {
    if (index < 1 || index > 65535) return Status::InvalidArgument(StrCat(db_->name(), ": no parameter ", index));
    if (text.find('\0') != std::string_view::npos) {
      return Status::InvalidArgument(StrCat(db_->name(), ": parameter ", index, " holds a NUL byte"));
    }
    if (params_.size() < static_cast<size_t>(index)) params_.resize(index);
    params_[index - 1] = std::string(text);
    return Status::OK();
  }

  Result<bool> Step() override {
    if (!result_) {
      std::vector<const char*> values;
      std::vector<Oid> types(params_.size(), kTextOid);
      for (const std::optional<std::string>& param : params_) values.push_back(param ? param->c_str() : nullptr);
      result_.reset(PQexecParams(db_->conn(), sql_.c_str(), static_cast<int>(params_.size()), types.data(),
                                 values.data(), nullptr, nullptr, 0));
      ExecStatusType status = result_ ? PQresultStatus(result_.get()) : PGRES_FATAL_ERROR;
      if (status == PGRES_COMMAND_OK) {
        int64_t changed = 0;
        const char* tuples = PQcmdTuples(result_.get());
        std::from_chars(tuples, tuples + std::char_traits<char>::length(tuples), changed);
        db_->changes_ = changed;
      } else if (status != PGRES_TUPLES_OK) {
        Status error = StatusOfResult(db_->name(), StrCat("running \"", sql_, "\""), result_.get(), db_->conn());
        result_.reset();
        return error;
      }
      row_ = -1;
    }
    ++row_;
    return row_ < PQntuples(result_.get());
  }

  std::optional<std::string> ColumnText(int column) const override {
    if (PQgetisnull(result_.get(), row_, column)) return std::nullopt;
    return std::string(PQgetvalue(result_.get(), row_, column),
                       static_cast<size_t>(PQgetlength(result_.get(), row_, column)));
  }

 private:
  PostgresDb* db_;
  std::string sql_;
  std::vector<std::optional<std::string>> params_;
  ResultPtr result_;
  int row_ = -1;
};

Result<std::unique_ptr<PostgresDb>> PostgresDb::Open(const std::string& uri, int connect_timeout_s) {
  std::string name = RedactedPostgresUri(uri);
  // Ours first: what the URI says overrides them.
  std::string timeout = std::to_string(connect_timeout_s);
  const char* keywords[] = {"connect_timeout", "application_name", "dbname", nullptr};
  const char* values[] = {timeout.c_str(), "cqlite", uri.c_str(), nullptr};
  auto db = std::make_unique<PostgresDb>(Key{}, name, PQconnectdbParams(keywords, values, 1));
  if (db->conn_ == nullptr) return Status::IOError(StrCat(name, ": cannot connect: out of memory"));
  if (PQstatus(db->conn_.get()) != CONNECTION_OK) {
    return Status::IOError(StrCat(name, ": cannot connect: ", OneLine(PQerrorMessage(db->conn_.get()))));
  }
  // Notices (such as CREATE TABLE IF NOT EXISTS on a table that exists) are not for the user.
  PQsetNoticeProcessor(db->conn_.get(), [](void*, const char*) {}, nullptr);
  return db;
}

Status PostgresDb::Reconnect() {
  PQreset(conn_.get());
  if (PQstatus(conn_.get()) != CONNECTION_OK) {
    return Status::IOError(StrCat(name_, ": cannot connect again: ", OneLine(PQerrorMessage(conn_.get()))));
  }
  return Status::OK();
}

Status PostgresDb::Exec(const char* sql) {
  ResultPtr result(PQexec(conn_.get(), sql));
  ExecStatusType status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return Status::OK();
  return StatusOfResult(name_, StrCat("running \"", sql, "\""), result.get(), conn_.get());
}

Result<std::unique_ptr<SqlStatement>> PostgresDb::Prepare(std::string_view sql) {
  return std::unique_ptr<SqlStatement>(new PostgresStatement(this, ToPostgresParameters(sql)));
}

}  // namespace cqlite::catalog
