// Iceberg v2 and v3 table metadata (https://iceberg.apache.org/spec/#table-metadata):
// the JSON document a catalog points at, with the table's schema, its
// snapshots and their summaries. Version 3 adds row lineage: the table's
// next-row-id and each snapshot's first-row-id and added-rows (spec "Row
// Lineage", "Snapshot Row IDs"); v2 metadata is written without them. An unpartitioned, unsorted table is all
// CQLite writes; reading accepts any partition spec or sort order it finds
// but keeps only what CQLite needs. Also the file naming and ids the spec
// prescribes for metastore tables. No I/O; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
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
  // v3 row lineage (required there, absent in v2): the table's next-row-id
  // when committed, and the row ids its manifests were given
  // (AssignFirstRowIds in iceberg/manifest.h).
  std::optional<int64_t> first_row_id, added_rows;
};

struct TableMetadata {
  int32_t format_version = 2;  // 2 or 3
  int64_t next_row_id = 0;     // v3 only: the first row id not yet assigned
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

// A table of `format_version` (2 or 3; a v3 one with next-row-id 0) with
// `schema` as schema 0, no snapshot yet.
TableMetadata NewTableMetadata(const std::string& location, Schema schema,
                               std::map<std::string, std::string> properties, int64_t now_ms,
                               int32_t format_version = 2);

// Adds `snapshot` as the current snapshot (and main branch), recording the
// metadata file this one replaces (`previous_file`, may be empty). In a v3
// table the table's next-row-id advances by the snapshot's added-rows.
// REQUIRES: in a v3 table snapshot.first_row_id == metadata->next_row_id and
// snapshot.added_rows >= 0 are set (see AssignSnapshotRowIds); in a v2 table
// neither is set.
void AddSnapshot(TableMetadata* metadata, Snapshot snapshot, const std::string& previous_file);

// Removes the snapshots `ids` (never the current one) and their snapshot
// log entries, as of `now_ms`, recording the metadata file this one
// replaces (`previous_file`). Their files are not touched.
void RemoveSnapshots(TableMetadata* metadata, const std::set<int64_t>& ids, int64_t now_ms,
                     const std::string& previous_file);

// Row lineage of a new snapshot of a v3 table (spec "Snapshot Row IDs"):
// its first-row-id is the table's next-row-id, and `added_rows` (what
// AssignFirstRowIds returned for its manifest list) its added-rows. Call
// again on each commit attempt, against the metadata committed on.
void AssignSnapshotRowIds(const TableMetadata& metadata, int64_t added_rows, Snapshot* snapshot);

std::string TableMetadataToJson(const TableMetadata& metadata);
// A snapshot as table metadata (and a REST catalog's add-snapshot) holds it.
nlohmann::json SnapshotToJson(const Snapshot& snapshot);
// Corruption naming `path` when `text` is not v2 or v3 table metadata (a v3
// one needs next-row-id, and its snapshots first-row-id and added-rows, or
// neither for one committed before the table's upgrade to v3);
// NotSupported for a format version other than 2 or up to
// `max_format_version`. The default is 2: who commits on what it reads must
// not take a v3 table for one it can extend with v2 manifests.
Result<TableMetadata> TableMetadataFromJson(const std::string& text, const std::string& path,
                                            int32_t max_format_version = 2);

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
