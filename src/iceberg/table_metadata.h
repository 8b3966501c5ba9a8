// Iceberg v2 table metadata (https://iceberg.apache.org/spec/#table-metadata):
// the JSON document a catalog points at, with the table's schema, its
// snapshots and their summaries. An unpartitioned, unsorted table is all
// CQLite writes; reading accepts any partition spec or sort order it finds
// but keeps only what CQLite needs. Also the file naming and ids the spec
// prescribes for metastore tables. No I/O; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "iceberg/schema.h"
#include "util/status.h"

namespace cqlite::iceberg {

struct Snapshot {
  int64_t snapshot_id = 0;
  std::optional<int64_t> parent_snapshot_id;
  int64_t sequence_number = 0;
  int64_t timestamp_ms = 0;
  std::string manifest_list;
  std::map<std::string, std::string> summary;  // "operation" and metrics
  std::optional<int32_t> schema_id;
};

struct TableMetadata {
  std::string table_uuid;
  std::string location;
  int64_t last_sequence_number = 0;
  int64_t last_updated_ms = 0;
  int32_t last_column_id = 0;
  std::vector<Schema> schemas;
  int32_t current_schema_id = 0;
  std::map<std::string, std::string> properties;
  std::optional<int64_t> current_snapshot_id;
  std::vector<Snapshot> snapshots;
  // (timestamp-ms, snapshot-id) and (timestamp-ms, metadata-file) histories.
  std::vector<std::pair<int64_t, int64_t>> snapshot_log;
  std::vector<std::pair<int64_t, std::string>> metadata_log;

  const Schema* CurrentSchema() const;
  const Snapshot* CurrentSnapshot() const;
};

// A v2 table with `schema` as schema 0, no snapshot yet.
TableMetadata NewTableMetadata(const std::string& location, Schema schema,
                               std::map<std::string, std::string> properties, int64_t now_ms);

// Adds `snapshot` as the current snapshot (and main branch), recording the
// metadata file this one replaces (`previous_file`, may be empty).
void AddSnapshot(TableMetadata* metadata, Snapshot snapshot, const std::string& previous_file);

std::string TableMetadataToJson(const TableMetadata& metadata);
// A snapshot as table metadata (and a REST catalog's add-snapshot) holds it.
nlohmann::json SnapshotToJson(const Snapshot& snapshot);
// Corruption naming `path` when `text` is not v2 table metadata.
Result<TableMetadata> TableMetadataFromJson(const std::string& text, const std::string& path);

// A random (version 4) UUID in its canonical form.
std::string RandomUuid();
// A positive random snapshot id.
int64_t RandomSnapshotId();
// "<location>/metadata/NNNNN-<uuid>.metadata.json" for metadata version
// `version` (spec: metastore tables).
std::string MetadataFilePath(const std::string& location, int version);
// The version number of a metadata file so named; -1 when not so named.
int MetadataFileVersion(const std::string& path);
// The local path of a location: a file: URI (file:///p, as PyIceberg writes,
// or file:/p, as Hadoop's file system does) as its path; anything else as is.
std::string LocalFilePath(const std::string& location);

}  // namespace cqlite::iceberg
