// Writes Iceberg manifests and a manifest list with known contents, and reads
// Avro files back, for the independent-reader tests in
// tests/integration/test_avro_fastavro.py (fastavro reads what we write, and
// we read what fastavro writes).
//
//   manifest_write_sample write <output-directory>
//       data-manifest.avro (ADDED, EXISTING and DELETED data files),
//       delete-manifest.avro (a position and an equality delete file),
//       manifest-list.avro (both, snapshot 3051729675574597004, sequence 7,
//       parent 3051729675574597003).
//   manifest_write_sample write-v3 <table-directory>
//       a format version 3 table of local files: metadata/v3.metadata.json
//       with two snapshots (row lineage: next-row-id 1035), their v3
//       manifest lists, data manifests (data files of 1000, 10 and 25 rows)
//       and a delete manifest of two deletion vectors in data/dvs.puffin
//       (positions 0, 5 and 999 of the first data file; 1, 2, 3 and 4 of the
//       second), for tests/integration/test_v3_metadata_iceberg_java.py.
//   manifest_write_sample dump <file.avro>
//       the schema, metadata and records of any container file as JSON.
//   manifest_write_sample read-list <manifest-list.avro>
//       the manifest list and every manifest's entries (with inherited
//       values filled in) as JSON, read through iceberg/manifest.h.
#include <iostream>
#include <string>
#include <vector>

#include "avro/container.h"
#include "iceberg/deletion_vector.h"
#include "iceberg/manifest.h"
#include "iceberg/table_metadata.h"
#include "io/file_system.h"
#include "util/strings.h"

namespace cqlite::iceberg {
namespace {

using avro::Json;

constexpr int64_t kSnapshotId = 3051729675574597004;
constexpr int64_t kParentSnapshotId = 3051729675574597003;
constexpr int64_t kSequenceNumber = 7;
constexpr char kTableSchema[] =
    R"({"type":"struct","schema-id":0,"identifier-field-ids":[1],"fields":[)"
    R"({"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"name","required":false,"type":"string"}]})";

std::string LongBytes(int64_t v) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff);
  return out;
}

Status Write(const std::string& dir) {
  FileSystem& fs = LocalFileSystem();
  RETURN_IF_ERROR(fs.CreateDirectories(dir));
  ManifestWriteOptions options;
  options.table_schema_json = kTableSchema;
  options.schema_id = 0;
  options.partition_spec_id = 0;

  std::vector<ManifestEntry> data(3);
  data[0].status = ManifestEntryStatus::kAdded;
  data[0].data_file.file_path = "s3://bucket/t/data/00000-added.parquet";
  data[0].data_file.record_count = 1000;
  data[0].data_file.file_size_in_bytes = 65536;
  data[0].data_file.column_sizes = {{1, 8000}, {2, 12000}};
  data[0].data_file.value_counts = {{1, 1000}, {2, 1000}};
  data[0].data_file.null_value_counts = {{1, 0}, {2, 17}};
  data[0].data_file.lower_bounds = {{1, LongBytes(-5)}, {2, "apple"}};
  data[0].data_file.upper_bounds = {{1, LongBytes(994)}, {2, "zebra"}};
  data[0].data_file.split_offsets = {4, 32768};
  data[0].data_file.sort_order_id = 0;
  data[1].status = ManifestEntryStatus::kExisting;
  data[1].snapshot_id = kParentSnapshotId;
  data[1].sequence_number = 5;
  data[1].file_sequence_number = 6;
  data[1].data_file.file_path = "s3://bucket/t/data/00001-existing.parquet";
  data[1].data_file.record_count = 10;
  data[1].data_file.file_size_in_bytes = 2048;
  data[2].status = ManifestEntryStatus::kDeleted;
  data[2].snapshot_id = kSnapshotId;
  data[2].sequence_number = 4;
  data[2].file_sequence_number = 4;
  data[2].data_file.file_path = "s3://bucket/t/data/00002-deleted.parquet";
  data[2].data_file.record_count = 20;
  data[2].data_file.file_size_in_bytes = 4096;
  ASSIGN_OR_RETURN(ManifestFile data_manifest, WriteManifest(fs, JoinPath(dir, "data-manifest.avro"), options, data,
                                                             kSnapshotId, kSequenceNumber));

  std::vector<ManifestEntry> deletes(2);
  deletes[0].data_file.content = FileContent::kPositionDeletes;
  deletes[0].data_file.file_path = "s3://bucket/t/data/00003-pos-deletes.parquet";
  deletes[0].data_file.record_count = 3;
  deletes[0].data_file.file_size_in_bytes = 900;
  deletes[0].data_file.referenced_data_file = "s3://bucket/t/data/00000-added.parquet";
  deletes[1].data_file.content = FileContent::kEqualityDeletes;
  deletes[1].data_file.file_path = "s3://bucket/t/data/00004-eq-deletes.parquet";
  deletes[1].data_file.record_count = 2;
  deletes[1].data_file.file_size_in_bytes = 700;
  deletes[1].data_file.equality_ids = {1};
  options.content = ManifestContent::kDeletes;
  ASSIGN_OR_RETURN(ManifestFile delete_manifest, WriteManifest(fs, JoinPath(dir, "delete-manifest.avro"), options,
                                                               deletes, kSnapshotId, kSequenceNumber));

  RETURN_IF_ERROR(WriteManifestList(fs, JoinPath(dir, "manifest-list.avro"), kSnapshotId, kParentSnapshotId,
                                    kSequenceNumber, {data_manifest, delete_manifest}));
  std::cout << "wrote " << dir << "\n";
  return Status::OK();
}

DataFile SampleDataFile(const std::string& path, int64_t record_count) {
  DataFile file;
  file.file_path = path;
  file.record_count = record_count;
  file.file_size_in_bytes = 1024 + record_count;
  return file;
}

Status WriteV3(const std::string& dir) {
  FileSystem& fs = LocalFileSystem();
  RETURN_IF_ERROR(fs.CreateDirectories(JoinPath(dir, "metadata")));
  RETURN_IF_ERROR(fs.CreateDirectories(JoinPath(dir, "data")));
  ASSIGN_OR_RETURN(Schema schema, SchemaFromJson(nlohmann::json::parse(kTableSchema)));
  TableMetadata table = NewTableMetadata(dir, schema, {}, 1700000000000, /*format_version=*/3);
  ManifestWriteOptions options;
  options.table_schema_json = kTableSchema;
  options.format_version = kManifestFormatV3;
  const std::string file_a = JoinPath(dir, "data/a.parquet"), file_b = JoinPath(dir, "data/b.parquet"),
                    file_c = JoinPath(dir, "data/c.parquet");

  // Snapshot 1 adds a (1000 rows) and b (10 rows): row ids 0..1009.
  const int64_t first_id = 1000001, second_id = 1000002;
  std::vector<ManifestEntry> added(2);
  added[0].data_file = SampleDataFile(file_a, 1000);
  added[1].data_file = SampleDataFile(file_b, 10);
  ASSIGN_OR_RETURN(ManifestFile m1, WriteManifest(fs, JoinPath(dir, "metadata/m1.avro"), options, added, first_id, 1));
  std::vector<ManifestFile> list1 = {m1};
  ASSIGN_OR_RETURN(int64_t added_rows1, AssignFirstRowIds(&list1, table.next_row_id));
  Snapshot first;
  first.snapshot_id = first_id;
  first.sequence_number = 1;
  first.timestamp_ms = 1700000001000;
  first.manifest_list = JoinPath(dir, "metadata/snap-1.avro");
  first.summary = {{"operation", "append"}};
  first.schema_id = 0;
  AssignSnapshotRowIds(table, added_rows1, &first);
  RETURN_IF_ERROR(WriteManifestList(fs, first.manifest_list, first_id, std::nullopt, 1, list1, kManifestFormatV3,
                                    first.first_row_id));
  AddSnapshot(&table, first, "");

  // Snapshot 2 adds c (25 rows: ids 1010..1034) and deletion vectors of a and b.
  std::vector<ManifestEntry> added_c(1);
  added_c[0].data_file = SampleDataFile(file_c, 25);
  ASSIGN_OR_RETURN(ManifestFile m2,
                   WriteManifest(fs, JoinPath(dir, "metadata/m2.avro"), options, added_c, second_id, 2));
  std::vector<std::pair<std::string, DeletionVector>> vectors(2);
  vectors[0].first = file_a;
  vectors[1].first = file_b;
  for (int64_t position : {0, 5, 999}) RETURN_IF_ERROR(vectors[0].second.Delete(position));
  for (int64_t position : {1, 2, 3, 4}) RETURN_IF_ERROR(vectors[1].second.Delete(position));
  ASSIGN_OR_RETURN(std::vector<DeletionVectorFile> dvs,
                   WriteDeletionVectorFile(fs, JoinPath(dir, "data/dvs.puffin"), vectors));
  std::vector<ManifestEntry> deletes(dvs.size());
  for (size_t i = 0; i < dvs.size(); ++i) {
    DataFile& f = deletes[i].data_file;
    f.content = FileContent::kPositionDeletes;
    f.file_path = dvs[i].file_path;
    f.file_format = "puffin";
    f.record_count = dvs[i].record_count;
    f.file_size_in_bytes = dvs[i].file_size_in_bytes;
    f.referenced_data_file = dvs[i].referenced_data_file;
    f.content_offset = dvs[i].content_offset;
    f.content_size_in_bytes = dvs[i].content_size_in_bytes;
  }
  options.content = ManifestContent::kDeletes;
  ASSIGN_OR_RETURN(ManifestFile m3, WriteManifest(fs, JoinPath(dir, "metadata/m3-deletes.avro"), options, deletes,
                                                  second_id, 2));
  std::vector<ManifestFile> list2 = {m2, m3, list1[0]};
  ASSIGN_OR_RETURN(int64_t added_rows2, AssignFirstRowIds(&list2, table.next_row_id));
  Snapshot second;
  second.snapshot_id = second_id;
  second.parent_snapshot_id = first_id;
  second.sequence_number = 2;
  second.timestamp_ms = 1700000002000;
  second.manifest_list = JoinPath(dir, "metadata/snap-2.avro");
  second.summary = {{"operation", "overwrite"}};
  second.schema_id = 0;
  AssignSnapshotRowIds(table, added_rows2, &second);
  RETURN_IF_ERROR(WriteManifestList(fs, second.manifest_list, second_id, first_id, 2, list2, kManifestFormatV3,
                                    second.first_row_id));
  AddSnapshot(&table, second, "");

  const std::string metadata_path = JoinPath(dir, "metadata/v3.metadata.json");
  RETURN_IF_ERROR(fs.WriteStringToFile(metadata_path, TableMetadataToJson(table)));
  std::cout << metadata_path << "\n";
  return Status::OK();
}

Status Dump(const std::string& path) {
  ASSIGN_OR_RETURN(auto reader, avro::ContainerReader::Open(LocalFileSystem(), path));
  Json out = Json::object();
  out["schema"] = avro::ToJsonValue(reader->schema());
  Json metadata = Json::object();
  for (const auto& [key, value] : reader->metadata()) {
    if (key != avro::kSchemaKey) metadata[key] = value;
  }
  out["metadata"] = metadata;
  Json records = Json::array();
  ASSIGN_OR_RETURN(std::vector<avro::Datum> datums, reader->ReadAll());
  for (const avro::Datum& datum : datums) records.push_back(avro::DatumToJson(reader->schema(), datum));
  out["records"] = records;
  std::cout << out.dump(1, ' ', false, Json::error_handler_t::replace) << "\n";
  return Status::OK();
}

template <typename V>
Json MapJson(const std::map<int32_t, V>& map) {
  Json out = Json::object();
  for (const auto& [key, value] : map) {
    if constexpr (std::is_same_v<V, std::string>) {
      out[std::to_string(key)] = ToHex(value);
    } else {
      out[std::to_string(key)] = value;
    }
  }
  return out;
}

Json OptionalJson(const auto& value) { return value ? Json(*value) : Json(nullptr); }

Status ReadList(const std::string& path) {
  FileSystem& fs = LocalFileSystem();
  ASSIGN_OR_RETURN(std::vector<ManifestFile> manifests, ReadManifestList(fs, path));
  Json out = Json::array();
  for (const ManifestFile& m : manifests) {
    Json manifest = {
        {"manifest_path", m.manifest_path},
        {"manifest_length", m.manifest_length},
        {"partition_spec_id", m.partition_spec_id},
        {"content", static_cast<int32_t>(m.content)},
        {"sequence_number", m.sequence_number},
        {"min_sequence_number", m.min_sequence_number},
        {"added_snapshot_id", m.added_snapshot_id},
        {"added_files_count", m.added_files_count},
        {"existing_files_count", m.existing_files_count},
        {"deleted_files_count", m.deleted_files_count},
        {"added_rows_count", m.added_rows_count},
        {"existing_rows_count", m.existing_rows_count},
        {"deleted_rows_count", m.deleted_rows_count},
    };
    ASSIGN_OR_RETURN(std::vector<ManifestEntry> entries, ReadManifest(fs, m));
    Json entries_json = Json::array();
    for (const ManifestEntry& e : entries) {
      const DataFile& f = e.data_file;
      entries_json.push_back({
          {"status", static_cast<int32_t>(e.status)},
          {"snapshot_id", OptionalJson(e.snapshot_id)},
          {"sequence_number", OptionalJson(e.sequence_number)},
          {"file_sequence_number", OptionalJson(e.file_sequence_number)},
          {"content", static_cast<int32_t>(f.content)},
          {"file_path", f.file_path},
          {"file_format", f.file_format},
          {"record_count", f.record_count},
          {"file_size_in_bytes", f.file_size_in_bytes},
          {"column_sizes", MapJson(f.column_sizes)},
          {"value_counts", MapJson(f.value_counts)},
          {"null_value_counts", MapJson(f.null_value_counts)},
          {"nan_value_counts", MapJson(f.nan_value_counts)},
          {"lower_bounds", MapJson(f.lower_bounds)},
          {"upper_bounds", MapJson(f.upper_bounds)},
          {"split_offsets", f.split_offsets},
          {"equality_ids", f.equality_ids},
          {"sort_order_id", OptionalJson(f.sort_order_id)},
          {"referenced_data_file", OptionalJson(f.referenced_data_file)},
      });
    }
    manifest["entries"] = entries_json;
    out.push_back(manifest);
  }
  std::cout << out.dump(1, ' ', false, Json::error_handler_t::replace) << "\n";
  return Status::OK();
}

int Main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: manifest_write_sample write <dir> | write-v3 <dir> | dump <file.avro> | read-list "
                 "<manifest-list.avro>\n";
    return 2;
  }
  std::string mode = argv[1];
  Status status = mode == "write"       ? Write(argv[2])
                  : mode == "write-v3"  ? WriteV3(argv[2])
                  : mode == "dump"      ? Dump(argv[2])
                  : mode == "read-list" ? ReadList(argv[2])
                                        : Status::InvalidArgument(StrCat("unknown mode ", mode));
  if (!status.ok()) {
    std::cerr << status.ToString() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace cqlite::iceberg

int main(int argc, char** argv) { return cqlite::iceberg::Main(argc, argv); }
