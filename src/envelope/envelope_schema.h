// The Parquet layout of envelope files (docs/formats/envelope.md), described
// once for the writer and the reader: the columns of the envelope v1 schema of
// the Rust CQLite project (key columns, one struct per non-key column, op,
// ts, range bounds), and CQLite's additions that keep every fact of a
// generation (local deletion times, TTLs, element cells and tombstones,
// complex deletions, counter shards, exact serialized values), with the
// footer keys that version both.
//
// Two flavours share the v1 columns: kV1 is exactly the Rust schema; kCqlite
// adds our columns and struct fields after the v1 ones. Pure functions;
// thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "cassandra/table_schema.h"
#include "parquet/schema.h"
#include "util/status.h"

namespace cqlite::envelope {

// Footer key-value metadata. The v1 keys, as the Rust writer sets them:
inline constexpr char kVersionKey[] = "cqlite.delta.version";
inline constexpr char kVersion[] = "1";  // the only v1 envelope version
inline constexpr char kSourceKey[] = "cqlite.delta.source";
inline constexpr char kSchemaHashKey[] = "cqlite.delta.schema_hash";
inline constexpr char kProducerVersionKey[] = "cqlite.version";
// Ours: their presence tells our files from Rust v1 files.
inline constexpr char kExtensionKey[] = "cqlite.delta.extension";
inline constexpr char kExtension[] = "cqlite-cpp";
inline constexpr char kExtensionVersionKey[] = "cqlite.delta.extension_version";
inline constexpr char kExtensionVersion[] = "1";
inline constexpr char kPrefixKey[] = "cqlite.delta.envelope_prefix";
inline constexpr char kSchemaCqlKey[] = "cqlite.delta.schema_cql";
inline constexpr char kKeyspaceKey[] = "cqlite.delta.keyspace";
inline constexpr char kTableKey[] = "cqlite.delta.table";
inline constexpr char kTableIdKey[] = "cqlite.delta.table_id";
inline constexpr char kGenerationKey[] = "cqlite.delta.generation";
inline constexpr char kSSTableVersionKey[] = "cqlite.delta.sstable_version";
inline constexpr char kSSTableFormatKey[] = "cqlite.delta.sstable_format";
inline constexpr char kDataSizeKey[] = "cqlite.delta.data_size";
inline constexpr char kPartitionerKey[] = "cqlite.delta.partitioner";
// A merged facts file of the earlier kind, every record kept with the
// generation it is of: how many generations it holds. Absent in a file of
// one generation.
inline constexpr char kGenerationsKey[] = "cqlite.delta.generations";
// A merged facts file (envelope_merge.h): how many generations were merged
// into it. Absent in a file of one generation.
inline constexpr char kMergedGenerationsKey[] = "cqlite.delta.merged_generations";
// Ours: the most records a range_delete record comes after the last record
// before its start bound. The writer ends a range tombstone that spans more
// than kRangeSplitRecords records and starts it again just after the row it
// ended at, so that a reader can hand a partition on in pieces, knowing how
// far back a range can still reach: the split plus 2 (a row gives at most
// two records, a row_delete and an upsert, and the range record follows
// them). Absent in files written without the split: such partitions are
// read whole.
inline constexpr char kRangeLagKey[] = "cqlite.delta.range_lag";
inline constexpr int64_t kRangeSplitRecords = 4096;

inline constexpr char kDefaultPrefix[] = "__";

// The op column's values (v1).
inline constexpr char kOpUpsert[] = "upsert";
inline constexpr char kOpStaticUpsert[] = "static_upsert";
inline constexpr char kOpRowDelete[] = "row_delete";
inline constexpr char kOpRangeDelete[] = "range_delete";
inline constexpr char kOpPartitionDelete[] = "partition_delete";

// Field names inside each column struct.
inline constexpr char kValueField[] = "value";
inline constexpr char kWritetimeField[] = "writetime";
inline constexpr char kExpiresAtField[] = "expires_at";
inline constexpr char kReplacedField[] = "replaced";
inline constexpr char kInclusiveField[] = "inclusive";
// Ours, inside column structs:
inline constexpr char kTtlField[] = "ttl";
inline constexpr char kLocalDeletionTimeField[] = "local_deletion_time";
inline constexpr char kRawField[] = "raw";
inline constexpr char kDeletionField[] = "deletion";
inline constexpr char kMarkedForDeleteAtField[] = "marked_for_delete_at";
inline constexpr char kCellsField[] = "cells";
inline constexpr char kPathField[] = "path";
inline constexpr char kShardsField[] = "shards";
inline constexpr char kShardKindField[] = "kind";
inline constexpr char kCounterIdField[] = "counter_id";
inline constexpr char kClockField[] = "clock";
inline constexpr char kCountField[] = "count";

enum class Flavor { kV1, kCqlite };

// The top-level envelope column names for a prefix.
struct EnvelopeNames {
  explicit EnvelopeNames(std::string_view prefix);
  // v1
  std::string op, ts, range_start, range_end;
  // ours
  std::string partition_key, clustering, range_start_clustering, range_end_clustering, ttl,
      local_deletion_time, shadowable;
  // merged facts files only
  std::string generation;
};

// Top-level field positions: table column i (TableSchema::columns order:
// partition key, clustering, then the others as declared) is field i; the
// envelope columns follow.
struct EnvelopeLayout {
  int op = 0, ts = 0, range_start = 0, range_end = 0;
  // kCqlite only (-1 in kV1):
  int partition_key = -1, clustering = -1, range_start_clustering = -1, range_end_clustering = -1, ttl = -1,
      local_deletion_time = -1, shadowable = -1;
  // Merged facts files only (-1 otherwise): which of the merged generations
  // the record belongs to.
  int generation = -1;
};

// InvalidArgument when a table column's name starts with the prefix (it could
// collide with an envelope column), naming the column and suggesting
// --envelope-prefix. Also rejects an empty prefix.
Status CheckPrefix(const TableSchema& table, std::string_view prefix);

// Whether the v1 struct of this column has `replaced` (non-frozen list, set, map).
bool HasReplacedField(const ColumnSchema& column);

// The envelope schema of `table`; `merged` adds the generation column of a
// merged facts file (kCqlite only). REQUIRES: CheckPrefix passed.
parquet::Schema BuildEnvelopeSchema(const TableSchema& table, std::string_view prefix, Flavor flavor,
                                    EnvelopeLayout* layout = nullptr, bool merged = false);

// Checks that `actual` (a file's schema) has exactly the columns of
// `expected`, with the same shapes and types (by name; nullability and the
// names of list/map inner groups are not compared). InvalidArgument naming
// the column otherwise.
Status CheckSchemaMatches(const parquet::Schema& expected, const parquet::Schema& actual);

// CREATE TYPE and CREATE TABLE statements that ParseCqlTableSchema reads back
// into `table` (names quoted; dropped columns left out; a COMPACT STORAGE
// table in the form it is stored in, hidden columns included).
std::string TableSchemaToCql(const TableSchema& table);

// FNV-1a 64-bit over the table's identity and columns, 16 hex digits (the
// v1 footer's schema_hash, computed over our spelling of the types).
std::string SchemaHash(const TableSchema& table);

}  // namespace cqlite::envelope
