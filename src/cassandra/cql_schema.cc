#include "cassandra/cql_schema.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "util/strings.h"

namespace cqlite {

namespace {

// ---------------------------------------------------------------------------
// Lexer

enum class TokenKind { kWord, kQuotedName, kString, kNumber, kUuid, kSymbol, kEnd };

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;  // words as written; quoted names and strings unescaped
  int line = 1;
  int column = 1;
};

bool IsHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool IsWordStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsWordChar(char c) { return IsWordStart(c) || (c >= '0' && c <= '9'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  Result<std::vector<Token>> Tokenize() {
    std::vector<Token> tokens;
    while (true) {
      RETURN_IF_ERROR(SkipSpaceAndComments());
      Token token;
      token.line = line_;
      token.column = column_;
      if (pos_ >= text_.size()) {
        tokens.push_back(token);
        return tokens;
      }
      char c = text_[pos_];
      if (LooksLikeUuid()) {
        token.kind = TokenKind::kUuid;
        token.text = Lower(text_.substr(pos_, 36));
        Advance(36);
      } else if (IsWordStart(c)) {
        size_t start = pos_;
        while (pos_ < text_.size() && IsWordChar(text_[pos_])) Advance(1);
        token.kind = TokenKind::kWord;
        token.text = std::string(text_.substr(start, pos_ - start));
      } else if (IsDigit(c) || ((c == '-' || c == '+' || c == '.') && pos_ + 1 < text_.size() &&
                                (IsDigit(text_[pos_ + 1]) || text_[pos_ + 1] == '.'))) {
        size_t start = pos_;
        Advance(1);
        while (pos_ < text_.size() && (IsWordChar(text_[pos_]) || text_[pos_] == '.' ||
                                       ((text_[pos_] == '-' || text_[pos_] == '+') &&
                                        (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E')))) {
          Advance(1);
        }
        token.kind = TokenKind::kNumber;
        token.text = std::string(text_.substr(start, pos_ - start));
      } else if (c == '"' || c == '\'') {
        ASSIGN_OR_RETURN(token.text, Quoted(c));
        token.kind = c == '"' ? TokenKind::kQuotedName : TokenKind::kString;
      } else if (c == '$' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '$') {
        // $$ ... $$ string literal.
        size_t end = text_.find("$$", pos_ + 2);
        if (end == std::string_view::npos) return Error(token, "unterminated $$ string");
        token.kind = TokenKind::kString;
        token.text = std::string(text_.substr(pos_ + 2, end - pos_ - 2));
        Advance(end + 2 - pos_);
      } else {
        token.kind = TokenKind::kSymbol;
        token.text = std::string(1, c);
        Advance(1);
      }
      tokens.push_back(std::move(token));
    }
  }

  static Status Error(const Token& at, const std::string& what) {
    return Status::InvalidArgument(StrCat("CQL line ", at.line, ", column ", at.column, ": ", what));
  }

 private:
  void Advance(size_t n) {
    for (size_t i = 0; i < n && pos_ < text_.size(); ++i) {
      if (text_[pos_] == '\n') {
        ++line_;
        column_ = 1;
      } else {
        ++column_;
      }
      ++pos_;
    }
  }

  Status SkipSpaceAndComments() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
        Advance(1);
      } else if (text_.substr(pos_, 2) == "--" || text_.substr(pos_, 2) == "//") {
        while (pos_ < text_.size() && text_[pos_] != '\n') Advance(1);
      } else if (text_.substr(pos_, 2) == "/*") {
        Token at{TokenKind::kEnd, "", line_, column_};
        size_t end = text_.find("*/", pos_ + 2);
        if (end == std::string_view::npos) return Error(at, "unterminated /* comment");
        Advance(end + 2 - pos_);
      } else {
        break;
      }
    }
    return Status::OK();
  }

  bool LooksLikeUuid() const {
    if (text_.size() - pos_ < 36) return false;
    for (size_t i = 0; i < 36; ++i) {
      char c = text_[pos_ + i];
      bool dash = i == 8 || i == 13 || i == 18 || i == 23;
      if (dash ? c != '-' : !IsHex(c)) return false;
    }
    return pos_ + 36 == text_.size() || !IsWordChar(text_[pos_ + 36]);
  }

  // A '...' or "..." literal; the quote is doubled to escape it.
  Result<std::string> Quoted(char quote) {
    Token at{TokenKind::kEnd, "", line_, column_};
    Advance(1);
    std::string out;
    while (true) {
      if (pos_ >= text_.size()) return Error(at, "unterminated quoted text");
      char c = text_[pos_];
      if (c == quote) {
        if (pos_ + 1 < text_.size() && text_[pos_ + 1] == quote) {
          out += quote;
          Advance(2);
          continue;
        }
        Advance(1);
        return out;
      }
      out += c;
      Advance(1);
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
};

// ---------------------------------------------------------------------------
// Parser

struct NativeName {
  const char* cql;
  CqlKind kind;
};

constexpr NativeName kNativeTypes[] = {
    {"ascii", CqlKind::kAscii},       {"bigint", CqlKind::kBigint},       {"blob", CqlKind::kBlob},
    {"boolean", CqlKind::kBoolean},   {"counter", CqlKind::kCounter},     {"date", CqlKind::kDate},
    {"decimal", CqlKind::kDecimal},   {"double", CqlKind::kDouble},       {"duration", CqlKind::kDuration},
    {"float", CqlKind::kFloat},       {"inet", CqlKind::kInet},           {"int", CqlKind::kInt},
    {"smallint", CqlKind::kSmallint}, {"text", CqlKind::kText},           {"varchar", CqlKind::kText},
    {"time", CqlKind::kTime},         {"timestamp", CqlKind::kTimestamp}, {"timeuuid", CqlKind::kTimeuuid},
    {"tinyint", CqlKind::kTinyint},   {"uuid", CqlKind::kUuid},           {"varint", CqlKind::kVarint},
};

CqlTypePtr Frozen(const CqlTypePtr& type) {
  if (type->frozen || !(type->IsCollection() || type->kind == CqlKind::kUdt)) return type;
  auto copy = std::make_shared<CqlType>(*type);
  copy->frozen = true;
  return copy;
}

class Parser {
 public:
  Parser(std::vector<Token> tokens, UserTypes user_types)
      : tokens_(std::move(tokens)), user_types_(std::move(user_types)) {}

  // The whole input must be one type.
  Result<CqlTypePtr> ParseTypeOnly() {
    ASSIGN_OR_RETURN(CqlTypePtr type, ParseType(/*nested=*/false));
    if (Peek().kind != TokenKind::kEnd) return Error("unexpected text after the type");
    return type;
  }

  Result<std::vector<TableSchema>> ParseFile() {
    while (Peek().kind != TokenKind::kEnd) {
      if (AcceptSymbol(";")) continue;
      if (PeekKeyword("CREATE")) {
        size_t save = pos_;
        Next();
        if (AcceptKeyword("TYPE")) {
          RETURN_IF_ERROR(ParseCreateType());
          continue;
        }
        if (AcceptKeyword("TABLE") || AcceptKeyword("COLUMNFAMILY")) {
          RETURN_IF_ERROR(ParseCreateTable());
          continue;
        }
        pos_ = save;
      } else if (PeekKeyword("ALTER")) {
        size_t save = pos_;
        Next();
        if (AcceptKeyword("TABLE") || AcceptKeyword("COLUMNFAMILY")) {
          RETURN_IF_ERROR(ParseAlterTable());
          continue;
        }
        pos_ = save;
      }
      SkipStatement();
    }
    return tables_;
  }

  // The CREATE TYPE definitions seen so far.
  const UserTypes& user_types() const { return user_types_; }

 private:
  // --- token helpers

  const Token& Peek(size_t ahead = 0) const {
    size_t i = std::min(pos_ + ahead, tokens_.size() - 1);
    return tokens_[i];
  }
  const Token& Next() {
    const Token& t = Peek();
    if (pos_ < tokens_.size() - 1) ++pos_;
    return t;
  }
  bool PeekKeyword(std::string_view word, size_t ahead = 0) const {
    const Token& t = Peek(ahead);
    return t.kind == TokenKind::kWord && Lower(t.text) == Lower(word);
  }
  bool AcceptKeyword(std::string_view word) {
    if (!PeekKeyword(word)) return false;
    Next();
    return true;
  }
  bool PeekSymbol(std::string_view s) const { return Peek().kind == TokenKind::kSymbol && Peek().text == s; }
  bool AcceptSymbol(std::string_view s) {
    if (!PeekSymbol(s)) return false;
    Next();
    return true;
  }
  Status Error(const std::string& what) const {
    const Token& t = Peek();
    std::string near = t.kind == TokenKind::kEnd ? "end of input" : "'" + t.text + "'";
    return Lexer::Error(t, StrCat(what, " (at ", near, ")"));
  }
  Status ExpectKeyword(std::string_view word) {
    if (!AcceptKeyword(word)) return Error(StrCat("expected ", word));
    return Status::OK();
  }
  Status ExpectSymbol(std::string_view s) {
    if (!AcceptSymbol(s)) return Error(StrCat("expected '", s, "'"));
    return Status::OK();
  }

  // An identifier: unquoted words fold to lower case, quoted ones are kept.
  Result<std::string> Identifier(const char* what) {
    const Token& t = Peek();
    if (t.kind == TokenKind::kWord) {
      Next();
      return Lower(t.text);
    }
    if (t.kind == TokenKind::kQuotedName) {
      Next();
      return t.text;
    }
    return Error(StrCat("expected ", what));
  }

  // [keyspace.]name
  Status QualifiedName(std::string* keyspace, std::string* name, const char* what) {
    ASSIGN_OR_RETURN(std::string first, Identifier(what));
    if (AcceptSymbol(".")) {
      *keyspace = first;
      ASSIGN_OR_RETURN(*name, Identifier(what));
    } else {
      keyspace->clear();
      *name = first;
    }
    return Status::OK();
  }

  void SkipStatement() {
    int depth = 0;
    while (Peek().kind != TokenKind::kEnd) {
      if (depth == 0 && PeekSymbol(";")) {
        Next();
        return;
      }
      if (PeekSymbol("(") || PeekSymbol("{") || PeekSymbol("[")) ++depth;
      if (PeekSymbol(")") || PeekSymbol("}") || PeekSymbol("]")) --depth;
      Next();
    }
  }

  void SkipIfNotExists() {
    if (PeekKeyword("IF") && PeekKeyword("NOT", 1) && PeekKeyword("EXISTS", 2)) {
      Next();
      Next();
      Next();
    }
  }

  // --- types

  Result<int> Integer() {
    const Token& t = Peek();
    int value = 0;
    if (t.kind != TokenKind::kNumber) return Error("expected a number");
    auto res = std::from_chars(t.text.data(), t.text.data() + t.text.size(), value);
    if (res.ec != std::errc() || res.ptr != t.text.data() + t.text.size())
      return Error("expected an integer");
    Next();
    return value;
  }

  Result<CqlTypePtr> ParseType(bool nested) {
    const Token& t = Peek();
    if (t.kind == TokenKind::kString) {
      // A custom type given by its AbstractType class name.
      Next();
      ASSIGN_OR_RETURN(CqlTypePtr custom, ParseMarshalType(t.text));
      return custom;
    }
    if (t.kind != TokenKind::kWord && t.kind != TokenKind::kQuotedName) return Error("expected a type");
    bool quoted = t.kind == TokenKind::kQuotedName;
    std::string word = quoted ? t.text : Lower(t.text);
    Token at = t;
    Next();
    if (!quoted) {
      for (const auto& native : kNativeTypes) {
        if (word == native.cql) {
          auto type = std::make_shared<CqlType>();
          type->kind = native.kind;
          return CqlTypePtr(type);
        }
      }
      if (word == "frozen") {
        RETURN_IF_ERROR(ExpectSymbol("<"));
        ASSIGN_OR_RETURN(CqlTypePtr inner, ParseType(nested));
        RETURN_IF_ERROR(ExpectSymbol(">"));
        return Frozen(inner);
      }
      if (word == "list" || word == "set" || word == "map" || word == "tuple") {
        RETURN_IF_ERROR(ExpectSymbol("<"));
        auto type = std::make_shared<CqlType>();
        type->kind = word == "list"  ? CqlKind::kList
                     : word == "set" ? CqlKind::kSet
                     : word == "map" ? CqlKind::kMap
                                     : CqlKind::kTuple;
        do {
          ASSIGN_OR_RETURN(CqlTypePtr element, ParseType(/*nested=*/true));
          type->params.push_back(Frozen(element));
        } while (AcceptSymbol(","));
        RETURN_IF_ERROR(ExpectSymbol(">"));
        size_t want = type->kind == CqlKind::kMap ? 2 : 1;
        if (type->kind != CqlKind::kTuple && type->params.size() != want) {
          return Lexer::Error(at, StrCat(word, " takes ", want, " type parameter", want == 1 ? "" : "s"));
        }
        // Tuples are always frozen; collections nested in another type too.
        type->frozen = type->kind == CqlKind::kTuple || nested;
        return CqlTypePtr(type);
      }
      if (word == "vector") {
        RETURN_IF_ERROR(ExpectSymbol("<"));
        ASSIGN_OR_RETURN(CqlTypePtr element, ParseType(/*nested=*/true));
        RETURN_IF_ERROR(ExpectSymbol(","));
        ASSIGN_OR_RETURN(int dimension, Integer());
        if (dimension <= 0) return Lexer::Error(at, "a vector dimension must be positive");
        RETURN_IF_ERROR(ExpectSymbol(">"));
        auto type = std::make_shared<CqlType>();
        type->kind = CqlKind::kVector;
        type->frozen = true;
        type->vector_dimension = dimension;
        type->params = {Frozen(element)};
        return CqlTypePtr(type);
      }
    }
    // A user type, maybe keyspace-qualified.
    std::string name = word;
    if (AcceptSymbol(".")) {
      ASSIGN_OR_RETURN(name, Identifier("a user type name"));
    }
    auto it = user_types_.find(name);
    if (it == user_types_.end()) return Lexer::Error(at, StrCat("unknown type '", name, "'"));
    return nested ? Frozen(it->second) : it->second;
  }

  // --- statements

  Status ParseCreateType() {
    SkipIfNotExists();
    auto type = std::make_shared<CqlType>();
    type->kind = CqlKind::kUdt;
    RETURN_IF_ERROR(QualifiedName(&type->udt_keyspace, &type->udt_name, "a type name"));
    RETURN_IF_ERROR(ExpectSymbol("("));
    if (!PeekSymbol(")")) {
      do {
        ASSIGN_OR_RETURN(std::string field, Identifier("a field name"));
        ASSIGN_OR_RETURN(CqlTypePtr field_type, ParseType(/*nested=*/true));
        type->field_names.push_back(std::move(field));
        type->params.push_back(Frozen(field_type));
      } while (AcceptSymbol(","));
    }
    RETURN_IF_ERROR(ExpectSymbol(")"));
    user_types_[type->udt_name] = type;
    return Status::OK();
  }

  // One column definition: name type [static] [PRIMARY KEY] [MASKED WITH f(...)].
  Status ParseColumnDefinition(TableSchema* table, std::vector<std::string>* inline_key) {
    Token at = Peek();
    ASSIGN_OR_RETURN(std::string name, Identifier("a column name"));
    ASSIGN_OR_RETURN(CqlTypePtr type, ParseType(/*nested=*/false));
    ColumnSchema column;
    column.name = name;
    column.type = type;
    column.kind = ColumnKind::kRegular;
    if (AcceptKeyword("STATIC")) column.kind = ColumnKind::kStatic;
    if (AcceptKeyword("PRIMARY")) {
      RETURN_IF_ERROR(ExpectKeyword("KEY"));
      inline_key->push_back(name);
    }
    if (AcceptKeyword("MASKED")) {
      // Dynamic data masking: irrelevant to the stored bytes.
      int depth = 0;
      while (Peek().kind != TokenKind::kEnd && !(depth == 0 && (PeekSymbol(",") || PeekSymbol(")")))) {
        if (PeekSymbol("(")) ++depth;
        if (PeekSymbol(")")) --depth;
        Next();
      }
    }
    if (table->FindColumn(name)) return Lexer::Error(at, StrCat("column '", name, "' is defined twice"));
    table->columns.push_back(std::move(column));
    return Status::OK();
  }

  Status ParsePrimaryKey(std::vector<std::string>* partition, std::vector<std::string>* clustering) {
    RETURN_IF_ERROR(ExpectSymbol("("));
    if (AcceptSymbol("(")) {
      do {
        ASSIGN_OR_RETURN(std::string name, Identifier("a partition key column"));
        partition->push_back(std::move(name));
      } while (AcceptSymbol(","));
      RETURN_IF_ERROR(ExpectSymbol(")"));
    } else {
      ASSIGN_OR_RETURN(std::string name, Identifier("a partition key column"));
      partition->push_back(std::move(name));
    }
    while (AcceptSymbol(",")) {
      ASSIGN_OR_RETURN(std::string name, Identifier("a clustering column"));
      clustering->push_back(std::move(name));
    }
    return ExpectSymbol(")");
  }

  // Skips an option value up to the next AND or the end of the statement.
  void SkipOptionValue() {
    int depth = 0;
    while (Peek().kind != TokenKind::kEnd) {
      if (depth == 0 && (PeekSymbol(";") || PeekKeyword("AND"))) return;
      if (PeekSymbol("(") || PeekSymbol("{") || PeekSymbol("[")) ++depth;
      if (PeekSymbol(")") || PeekSymbol("}") || PeekSymbol("]")) --depth;
      Next();
    }
  }

  Status ParseTableOptions(TableSchema* table, std::vector<std::pair<std::string, bool>>* order) {
    do {
      if (AcceptKeyword("COMPACT")) {
        RETURN_IF_ERROR(ExpectKeyword("STORAGE"));
        table->compact_storage = true;
      } else if (PeekKeyword("CLUSTERING") && PeekKeyword("ORDER", 1)) {
        Next();
        Next();
        RETURN_IF_ERROR(ExpectKeyword("BY"));
        RETURN_IF_ERROR(ExpectSymbol("("));
        do {
          ASSIGN_OR_RETURN(std::string name, Identifier("a clustering column"));
          bool desc = false;
          if (AcceptKeyword("DESC")) {
            desc = true;
          } else {
            AcceptKeyword("ASC");
          }
          order->emplace_back(std::move(name), desc);
        } while (AcceptSymbol(","));
        RETURN_IF_ERROR(ExpectSymbol(")"));
      } else if (PeekKeyword("ID") && Peek(1).kind == TokenKind::kSymbol && Peek(1).text == "=") {
        Next();
        Next();
        const Token& id = Peek();
        if (id.kind != TokenKind::kUuid && id.kind != TokenKind::kString) return Error("expected a table id");
        table->table_id = Lower(id.text);
        Next();
      } else {
        if (Peek().kind != TokenKind::kWord && Peek().kind != TokenKind::kQuotedName) {
          return Error("expected a table option");
        }
        SkipOptionValue();
      }
    } while (AcceptKeyword("AND"));
    return Status::OK();
  }

  Status ParseCreateTable() {
    SkipIfNotExists();
    Token at = Peek();
    TableSchema table;
    RETURN_IF_ERROR(QualifiedName(&table.keyspace, &table.table, "a table name"));
    RETURN_IF_ERROR(ExpectSymbol("("));
    std::vector<std::string> inline_key, partition, clustering;
    bool separate_key = false;
    do {
      if (PeekKeyword("PRIMARY") && PeekKeyword("KEY", 1)) {
        Next();
        Next();
        if (separate_key) return Error("PRIMARY KEY is given twice");
        separate_key = true;
        RETURN_IF_ERROR(ParsePrimaryKey(&partition, &clustering));
      } else if (PeekSymbol(")")) {
        break;  // a trailing comma
      } else {
        RETURN_IF_ERROR(ParseColumnDefinition(&table, &inline_key));
      }
    } while (AcceptSymbol(","));
    RETURN_IF_ERROR(ExpectSymbol(")"));

    std::vector<std::pair<std::string, bool>> order;
    if (AcceptKeyword("WITH")) RETURN_IF_ERROR(ParseTableOptions(&table, &order));
    if (!PeekSymbol(";") && Peek().kind != TokenKind::kEnd) return Error("expected ';' after CREATE TABLE");

    if (inline_key.size() + (separate_key ? 1 : 0) != 1) {
      return Lexer::Error(at, StrCat("table '", table.table, "' needs exactly one PRIMARY KEY"));
    }
    if (!separate_key) partition = inline_key;
    RETURN_IF_ERROR(AssignKeys(at, &table, partition, clustering, order));
    MarkStoredStaticCompactColumns(&table);
    tables_.push_back(std::move(table));
    return Status::OK();
  }

  // CQL refuses static columns in a COMPACT STORAGE table, so one that has
  // them is written in the form Cassandra stores a compact table without
  // clustering columns (as CQLite's own envelope files record it): its
  // clustering column and its regular (compact value) column are the hidden
  // ones Cassandra added.
  static void MarkStoredStaticCompactColumns(TableSchema* table) {
    if (!table->compact_storage) return;
    bool has_static = std::any_of(table->columns.begin(), table->columns.end(),
                                  [](const ColumnSchema& c) { return c.kind == ColumnKind::kStatic; });
    if (!has_static) return;
    for (ColumnSchema& column : table->columns) {
      if (column.kind == ColumnKind::kClustering || column.kind == ColumnKind::kRegular) column.hidden = true;
    }
  }

  Status AssignKeys(const Token& at, TableSchema* table, const std::vector<std::string>& partition,
                    const std::vector<std::string>& clustering,
                    const std::vector<std::pair<std::string, bool>>& order) {
    std::vector<ColumnSchema> keys, others;
    std::set<std::string> used;
    auto take = [&](const std::string& name, ColumnKind kind, int position) -> Status {
      auto it = std::find_if(table->columns.begin(), table->columns.end(),
                             [&](const ColumnSchema& c) { return c.name == name; });
      if (it == table->columns.end()) return Lexer::Error(at, StrCat("unknown key column '", name, "'"));
      if (!used.insert(name).second) return Lexer::Error(at, StrCat("key column '", name, "' is repeated"));
      if (it->kind == ColumnKind::kStatic)
        return Lexer::Error(at, StrCat("key column '", name, "' is static"));
      ColumnSchema column = *it;
      column.kind = kind;
      column.position = position;
      keys.push_back(std::move(column));
      return Status::OK();
    };
    for (size_t i = 0; i < partition.size(); ++i) {
      RETURN_IF_ERROR(take(partition[i], ColumnKind::kPartitionKey, static_cast<int>(i)));
    }
    for (size_t i = 0; i < clustering.size(); ++i) {
      RETURN_IF_ERROR(take(clustering[i], ColumnKind::kClustering, static_cast<int>(i)));
    }
    for (size_t i = 0; i < order.size(); ++i) {
      if (i >= clustering.size() || order[i].first != clustering[i]) {
        return Lexer::Error(at, StrCat("CLUSTERING ORDER BY must list the clustering columns in order; '",
                                       order[i].first, "' is out of place"));
      }
      keys[partition.size() + i].reversed = order[i].second;
    }
    for (auto& column : table->columns) {
      if (!used.count(column.name)) {
        if (column.kind == ColumnKind::kStatic && clustering.empty() && !table->compact_storage) {
          return Lexer::Error(
              at, StrCat("static column '", column.name, "' in a table without clustering columns"));
        }
        others.push_back(std::move(column));
      }
    }
    keys.insert(keys.end(), std::make_move_iterator(others.begin()), std::make_move_iterator(others.end()));
    table->columns = std::move(keys);
    return Status::OK();
  }

  Result<TableSchema*> FindTable(const Token& at, const std::string& keyspace, const std::string& name) {
    for (auto it = tables_.rbegin(); it != tables_.rend(); ++it) {
      if (it->table == name && (keyspace.empty() || it->keyspace.empty() || it->keyspace == keyspace))
        return &*it;
    }
    return Lexer::Error(at, StrCat("ALTER TABLE of unknown table '", name, "'"));
  }

  Status ParseAlterTable() {
    Token at = Peek();
    std::string keyspace, name;
    RETURN_IF_ERROR(QualifiedName(&keyspace, &name, "a table name"));
    ASSIGN_OR_RETURN(TableSchema * table, FindTable(at, keyspace, name));
    if (AcceptKeyword("DROP")) {
      std::vector<std::pair<Token, std::string>> names;
      bool parens = AcceptSymbol("(");
      do {
        Token column_at = Peek();
        ASSIGN_OR_RETURN(std::string column, Identifier("a column name"));
        names.emplace_back(column_at, std::move(column));
      } while (parens && AcceptSymbol(","));
      if (parens) RETURN_IF_ERROR(ExpectSymbol(")"));
      int64_t timestamp = 0;
      if (AcceptKeyword("USING")) {
        RETURN_IF_ERROR(ExpectKeyword("TIMESTAMP"));
        const Token& t = Peek();
        auto res = std::from_chars(t.text.data(), t.text.data() + t.text.size(), timestamp);
        if (t.kind != TokenKind::kNumber || res.ec != std::errc() ||
            res.ptr != t.text.data() + t.text.size()) {
          return Error("expected a timestamp");
        }
        Next();
      }
      for (auto& name : names) {
        // Named references, not a structured binding: lambdas may not capture
        // bindings before C++20 compilers implement P1091 (clang < 16).
        const auto& column_at = name.first;
        const std::string& column = name.second;
        auto it = std::find_if(table->columns.begin(), table->columns.end(),
                               [&](const ColumnSchema& c) { return c.name == column; });
        if (it == table->columns.end())
          return Lexer::Error(column_at, StrCat("DROP of unknown column '", column, "'"));
        if (it->kind == ColumnKind::kPartitionKey || it->kind == ColumnKind::kClustering) {
          return Lexer::Error(column_at, StrCat("cannot drop key column '", column, "'"));
        }
        DroppedColumnSchema dropped;
        dropped.name = it->name;
        dropped.type = it->type;
        dropped.is_static = it->kind == ColumnKind::kStatic;
        dropped.drop_time_micros = timestamp;
        std::erase_if(table->dropped_columns, [&](const DroppedColumnSchema& d) { return d.name == column; });
        table->dropped_columns.push_back(std::move(dropped));
        table->columns.erase(it);
      }
    } else if (AcceptKeyword("ADD")) {
      bool parens = AcceptSymbol("(");
      std::vector<std::string> inline_key;
      do {
        RETURN_IF_ERROR(ParseColumnDefinition(table, &inline_key));
      } while (parens && AcceptSymbol(","));
      if (parens) RETURN_IF_ERROR(ExpectSymbol(")"));
      if (!inline_key.empty()) return Lexer::Error(at, "ALTER TABLE ADD cannot add a key column");
    } else {
      SkipStatement();
      return Status::OK();
    }
    if (!PeekSymbol(";") && Peek().kind != TokenKind::kEnd) return Error("expected ';' after ALTER TABLE");
    return Status::OK();
  }

  std::vector<Token> tokens_;
  size_t pos_ = 0;
  UserTypes user_types_;
  std::vector<TableSchema> tables_;
};

}  // namespace

Result<CqlTypePtr> ParseCqlType(std::string_view text, const UserTypes& user_types) {
  ASSIGN_OR_RETURN(auto tokens, Lexer(text).Tokenize());
  return Parser(std::move(tokens), user_types).ParseTypeOnly();
}

Result<std::vector<TableSchema>> ParseCqlSchema(std::string_view text, UserTypes* user_types) {
  ASSIGN_OR_RETURN(auto tokens, Lexer(text).Tokenize());
  Parser parser(std::move(tokens), {});
  ASSIGN_OR_RETURN(auto tables, parser.ParseFile());
  if (user_types) *user_types = parser.user_types();
  return tables;
}

Result<TableSchema> ParseCqlTableSchema(std::string_view text) {
  ASSIGN_OR_RETURN(auto tables, ParseCqlSchema(text));
  if (tables.size() != 1) {
    return Status::InvalidArgument(StrCat("expected one CREATE TABLE in the schema, found ", tables.size()));
  }
  return std::move(tables[0]);
}

}  // namespace cqlite
