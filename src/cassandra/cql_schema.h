// A parser for CQL schema files: the schema.cql that `nodetool snapshot`
// writes beside a snapshot's SSTables, and `DESCRIBE` output.
//
// Understood statements: CREATE TYPE, CREATE TABLE (quoted identifiers,
// IF NOT EXISTS, inline or separate PRIMARY KEY, composite partition keys,
// static columns, frozen/nested/tuple/vector/user types, WITH ID,
// CLUSTERING ORDER BY, COMPACT STORAGE; other WITH options are skipped),
// and the ALTER TABLE ... DROP col USING TIMESTAMP t / ALTER TABLE ... ADD
// statements that SchemaCQLHelper appends for dropped (and re-added)
// columns. Other statements (CREATE KEYSPACE, CREATE INDEX, ...) and
// comments (--, //, /* */) are skipped. Statements apply in file order.
// A COMPACT STORAGE table with static columns (which CQL itself refuses) is
// the stored form of a compact table without clustering columns, as CQLite's
// envelope files record it: its clustering and regular columns are hidden.
//
// Errors are InvalidArgument with "line L, column C" of the offending token.
// Pure functions; thread-safe.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cassandra/cql_type.h"
#include "cassandra/table_schema.h"
#include "util/status.h"

namespace cqlite {

// User types by name (as stored: lower-cased unless quoted).
using UserTypes = std::map<std::string, CqlTypePtr, std::less<>>;

// Parses CQL type text ("frozen<map<text, list<int>>>", "vector<float, 3>",
// "address", "'org.apache.cassandra.db.marshal.BytesType'"); user types are
// looked up in `user_types` (a keyspace prefix is ignored). Types nested in
// a collection, tuple, user type or vector are frozen, as Cassandra stores
// them.
Result<CqlTypePtr> ParseCqlType(std::string_view text, const UserTypes& user_types = {});

// Every table a schema file creates, in file order, with ALTER TABLE
// statements applied. When `user_types` is given it receives the file's
// CREATE TYPE definitions.
Result<std::vector<TableSchema>> ParseCqlSchema(std::string_view text, UserTypes* user_types = nullptr);

// The one table of a schema.cql file; InvalidArgument unless there is
// exactly one.
Result<TableSchema> ParseCqlTableSchema(std::string_view text);

}  // namespace cqlite
