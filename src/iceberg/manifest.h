// Iceberg v2 and v3 manifests and manifest lists: the Avro files that say
// which data and delete files make up a snapshot
// (https://iceberg.apache.org/spec/#manifests, #manifest-lists).
//
// A manifest holds manifest_entry records (status, snapshot id, sequence
// numbers, data_file struct) for one partition spec and one content kind (data
// or deletes). A manifest list holds one manifest_file record per manifest of
// a snapshot. Both layouts are described once, as Avro schemas with the spec's
// field ids (ManifestEntrySchema, ManifestFileSchema); writing builds datums of
// them, reading looks fields up by name so files from other writers (with
// extra or reordered fields) read as well.
//
// Format version 3 adds row lineage (first_row_id of data files and of data
// manifests, spec "Row Lineage") and the fields of deletion vectors
// (content_offset and content_size_in_bytes of a blob in a Puffin file,
// spec "Deletion Vectors"). Version 2 files are written exactly as before:
// the v3 fields are neither in their schema nor in their records.
//
// Only unpartitioned tables: the partition tuple is the empty record r102 and
// the spec is "[]". Files are written with Avro's deflate codec (what Iceberg
// Java writes), synced and closed before a writer returns.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "avro/schema.h"
#include "io/file_system.h"
#include "util/status.h"

namespace cqlite::iceberg {

enum class FileContent : int32_t { kData = 0, kPositionDeletes = 1, kEqualityDeletes = 2 };  // on-disk values
enum class ManifestEntryStatus : int32_t { kExisting = 0, kAdded = 1, kDeleted = 2 };       // on-disk values
enum class ManifestContent : int32_t { kData = 0, kDeletes = 1 };                           // on-disk values

// Manifest format versions written (the spec's table format versions).
inline constexpr int32_t kManifestFormatV2 = 2;
inline constexpr int32_t kManifestFormatV3 = 3;

struct DataFile {  // Iceberg data_file struct (field ids 100..145), unpartitioned tables only
  FileContent content = FileContent::kData;
  std::string file_path;
  std::string file_format = "parquet";  // "puffin" for deletion vectors (v3)
  int64_t record_count = 0;
  int64_t file_size_in_bytes = 0;
  std::map<int32_t, int64_t> column_sizes, value_counts, null_value_counts, nan_value_counts;
  std::map<int32_t, std::string> lower_bounds, upper_bounds;  // single-value serialization bytes
  std::vector<int64_t> split_offsets;
  std::vector<int32_t> equality_ids;  // only for kEqualityDeletes
  std::optional<int32_t> sort_order_id;
  std::optional<std::string> referenced_data_file;  // file-scoped position deletes; required for deletion vectors
  // v3 only (not written to v2 manifests):
  std::optional<int64_t> first_row_id;  // data files; null when added (inherited, spec "First Row ID Inheritance")
  std::optional<int64_t> content_offset, content_size_in_bytes;  // deletion vectors: the blob in the Puffin file

  bool operator==(const DataFile&) const = default;
};

// Whether `file` is a deletion vector (a v3 delete file in a Puffin file;
// file_format is compared without regard to case, as writers differ).
bool IsDeletionVector(const DataFile& file);

struct ManifestEntry {
  ManifestEntryStatus status = ManifestEntryStatus::kAdded;
  std::optional<int64_t> snapshot_id, sequence_number, file_sequence_number;  // null for ADDED (inherited)
  DataFile data_file;

  bool operator==(const ManifestEntry&) const = default;
};

struct ManifestFile {  // one manifest_file record of a manifest list
  std::string manifest_path;
  int64_t manifest_length = 0;
  int32_t partition_spec_id = 0;
  ManifestContent content = ManifestContent::kData;
  int64_t sequence_number = 0, min_sequence_number = 0, added_snapshot_id = 0;
  int32_t added_files_count = 0, existing_files_count = 0, deleted_files_count = 0;
  int64_t added_rows_count = 0, existing_rows_count = 0, deleted_rows_count = 0;
  std::optional<int64_t> first_row_id;  // v3 data manifests only (not written to v2 lists)

  bool operator==(const ManifestFile&) const = default;
};

struct ManifestWriteOptions {
  std::string table_schema_json;  // the table's current schema JSON (Iceberg schema object), stored as Avro metadata "schema"
  int32_t schema_id = 0;
  int32_t partition_spec_id = 0;  // spec is unpartitioned: metadata "partition-spec" = "[]"
  ManifestContent content = ManifestContent::kData;
  int32_t format_version = kManifestFormatV2;  // kManifestFormatV2 or kManifestFormatV3
};

// Writes a manifest (Avro, deflate) at `path`. ADDED entries are written with
// null snapshot_id and sequence numbers (inherited from the manifest list when
// read, spec "Sequence Number Inheritance"), whatever the entry holds;
// EXISTING and DELETED entries must carry snapshot_id and sequence_number
// (InvalidArgument otherwise; file_sequence_number is written as given).
// Returns the manifest's manifest-list record: counts and rows per status,
// the file's length, sequence_number = `sequence_number` and
// min_sequence_number = the least data sequence number of its live (ADDED or
// EXISTING) entries, `sequence_number` when it has none.
// first_row_id is written as the entry holds it (null for new data files; the
// inherited value for EXISTING and DELETED ones).
// REQUIRES: options.table_schema_json is not empty; every entry's content
// matches options.content (data files in data manifests, delete files in
// delete manifests); equality_ids only on equality delete files. In a v2
// manifest no entry has a v3 field set; in a v3 one delete files have no
// first_row_id, and a PUFFIN delete file (a deletion vector) has
// referenced_data_file, content_offset and content_size_in_bytes
// (InvalidArgument otherwise).
Result<ManifestFile> WriteManifest(FileSystem& fs, const std::string& path, const ManifestWriteOptions& options,
                                   const std::vector<ManifestEntry>& entries, int64_t snapshot_id,
                                   int64_t sequence_number);

// Reads a manifest's entries, filling inherited snapshot_id/sequence numbers
// from `manifest` (its list record): a null snapshot_id becomes
// manifest.added_snapshot_id; null sequence numbers of ADDED entries become
// manifest.sequence_number. A data file's null first_row_id becomes
// manifest.first_row_id plus the record counts of the data files before it
// with a null first_row_id, when manifest.first_row_id is set (spec "First
// Row ID Inheritance"). Reads v2 and v3 manifests alike. Corruption (naming
// the file) for bad files.
Result<std::vector<ManifestEntry>> ReadManifest(FileSystem& fs, const ManifestFile& manifest);

// Writes a manifest list (Avro, deflate) with the metadata keys snapshot-id,
// parent-snapshot-id ("null" when there is none), sequence-number and
// format-version; a v3 list also has first-row-id (`first_row_id`) and the
// manifests' first_row_id field.
// REQUIRES: format_version is kManifestFormatV2 or kManifestFormatV3; for v3
// `first_row_id` is set (the snapshot's first-row-id) and every data
// manifest has its first_row_id (AssignFirstRowIds), delete manifests none;
// for v2 neither (InvalidArgument otherwise).
Status WriteManifestList(FileSystem& fs, const std::string& path, int64_t snapshot_id,
                         std::optional<int64_t> parent_snapshot_id, int64_t sequence_number,
                         const std::vector<ManifestFile>& manifests, int32_t format_version = kManifestFormatV2,
                         std::optional<int64_t> first_row_id = std::nullopt);

// Row lineage of a v3 snapshot (spec "First Row ID Assignment" and "Snapshot
// Row IDs"): gives each data manifest without a first_row_id one, the first
// `snapshot_first_row_id` (the table's next-row-id), each next one the
// previous assigned value plus that manifest's added_rows_count and
// existing_rows_count (every file in it may inherit an id). Manifests that
// have one keep it; delete manifests get none. Returns the snapshot's
// added-rows: the ids assigned, by which the table's next-row-id advances.
// InvalidArgument for a delete manifest with a first_row_id or negative row
// counts.
Result<int64_t> AssignFirstRowIds(std::vector<ManifestFile>* manifests, int64_t snapshot_first_row_id);

Result<std::vector<ManifestFile>> ReadManifestList(FileSystem& fs, const std::string& path);

// The Avro schemas written, as Iceberg Java names and numbers them.
// Record manifest_entry, data_file as r2, partition as r102.
avro::Schema ManifestEntrySchema(int32_t format_version = kManifestFormatV2);
// Record manifest_file, partitions element r508.
avro::Schema ManifestFileSchema(int32_t format_version = kManifestFormatV2);

}  // namespace cqlite::iceberg
