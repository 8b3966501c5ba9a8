#include "iceberg/manifest.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>

#include "avro/container.h"
#include "io/file_system.h"
#include "util/strings.h"

namespace cqlite::iceberg {
namespace {

constexpr char kTableSchema[] =
    R"({"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","required":true,"type":"long"}]})";

DataFile SampleDataFile(int i) {
  DataFile file;
  file.file_path = StrCat("/warehouse/t/data/", i, ".parquet");
  file.record_count = 100 + i;
  file.file_size_in_bytes = 4096 + i;
  file.column_sizes = {{1, 800}, {2, 1200}};
  file.value_counts = {{1, 100}, {2, 100}};
  file.null_value_counts = {{1, 0}, {2, 3}};
  file.nan_value_counts = {{3, 1}};
  file.lower_bounds = {{1, std::string("\x01\x00\x00\x00\x00\x00\x00\x00", 8)}, {2, "a"}};
  file.upper_bounds = {{1, std::string("\x64\x00\x00\x00\x00\x00\x00\x00", 8)}, {2, "z"}};
  file.split_offsets = {4};
  file.sort_order_id = 0;
  return file;
}

ManifestWriteOptions Options(ManifestContent content = ManifestContent::kData) {
  ManifestWriteOptions options;
  options.table_schema_json = kTableSchema;
  options.schema_id = 0;
  options.partition_spec_id = 0;
  options.content = content;
  return options;
}

TEST(ManifestTest, WriteReadRoundTripWithInheritance) {
  MemoryFileSystem fs;
  std::vector<ManifestEntry> entries(3);
  entries[0].data_file = SampleDataFile(0);
  // ADDED: whatever the entry says, ids and sequence numbers are inherited.
  entries[0].snapshot_id = 999;
  entries[1].status = ManifestEntryStatus::kExisting;
  entries[1].snapshot_id = 10;
  entries[1].sequence_number = 3;
  entries[1].file_sequence_number = 3;
  entries[1].data_file = SampleDataFile(1);
  entries[2].status = ManifestEntryStatus::kDeleted;
  entries[2].snapshot_id = 42;
  entries[2].sequence_number = 2;
  entries[2].file_sequence_number = 2;
  entries[2].data_file = SampleDataFile(2);
  entries[2].data_file.sort_order_id.reset();

  auto written = WriteManifest(fs, "t/metadata/m0.avro", Options(), entries, /*snapshot_id=*/42, /*sequence_number=*/5);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  const ManifestFile& m = *written;
  EXPECT_EQ(m.manifest_path, "t/metadata/m0.avro");
  EXPECT_EQ(m.manifest_length, static_cast<int64_t>(fs.ReadFileToString("t/metadata/m0.avro")->size()));
  EXPECT_EQ(m.content, ManifestContent::kData);
  EXPECT_EQ(m.sequence_number, 5);
  EXPECT_EQ(m.min_sequence_number, 3);  // the EXISTING entry's; the DELETED one is not live
  EXPECT_EQ(m.added_snapshot_id, 42);
  EXPECT_EQ(m.added_files_count, 1);
  EXPECT_EQ(m.existing_files_count, 1);
  EXPECT_EQ(m.deleted_files_count, 1);
  EXPECT_EQ(m.added_rows_count, 100);
  EXPECT_EQ(m.existing_rows_count, 101);
  EXPECT_EQ(m.deleted_rows_count, 102);

  // On disk the ADDED entry has null snapshot id and sequence numbers.
  auto reader = avro::ContainerReader::Open(fs, "t/metadata/m0.avro");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->Metadata("schema"), kTableSchema);
  EXPECT_EQ((*reader)->Metadata("schema-id"), "0");
  EXPECT_EQ((*reader)->Metadata("partition-spec"), "[]");
  EXPECT_EQ((*reader)->Metadata("partition-spec-id"), "0");
  EXPECT_EQ((*reader)->Metadata("format-version"), "2");
  EXPECT_EQ((*reader)->Metadata("content"), "data");
  EXPECT_EQ((*reader)->Metadata("avro.codec"), "deflate");
  auto raw = (*reader)->ReadAll();
  ASSERT_TRUE(raw.ok());
  const avro::Schema& schema = (*reader)->schema();
  for (const char* name : {"snapshot_id", "sequence_number", "file_sequence_number"}) {
    EXPECT_TRUE(avro::FindField(schema, (*raw)[0], name)->Unwrapped().is_null()) << name;
    EXPECT_FALSE(avro::FindField(schema, (*raw)[1], name)->Unwrapped().is_null()) << name;
  }

  auto read = ReadManifest(fs, m);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->size(), 3u);
  std::vector<ManifestEntry> expected = entries;
  expected[0].snapshot_id = 42;
  expected[0].sequence_number = 5;
  expected[0].file_sequence_number = 5;
  for (size_t i = 0; i < 3; ++i) EXPECT_TRUE((*read)[i] == expected[i]) << i;

  // The same manifest listed with another commit's numbers (a retried commit)
  // inherits those instead.
  ManifestFile retried = m;
  retried.added_snapshot_id = 43;
  retried.sequence_number = 6;
  read = ReadManifest(fs, retried);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ((*read)[0].snapshot_id, 43);
  EXPECT_EQ((*read)[0].sequence_number, 6);
  EXPECT_EQ((*read)[1].sequence_number, 3);
}

TEST(ManifestTest, DeleteManifests) {
  MemoryFileSystem fs;
  std::vector<ManifestEntry> entries(2);
  entries[0].data_file.content = FileContent::kPositionDeletes;
  entries[0].data_file.file_path = "/w/t/data/pos-1.parquet";
  entries[0].data_file.record_count = 3;
  entries[0].data_file.referenced_data_file = "/w/t/data/0.parquet";
  entries[1].data_file.content = FileContent::kEqualityDeletes;
  entries[1].data_file.file_path = "/w/t/data/eq-1.parquet";
  entries[1].data_file.record_count = 2;
  entries[1].data_file.equality_ids = {1, 2};
  auto written = WriteManifest(fs, "d.avro", Options(ManifestContent::kDeletes), entries, 7, 9);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(written->content, ManifestContent::kDeletes);
  EXPECT_EQ(written->min_sequence_number, 9);
  auto reader = avro::ContainerReader::Open(fs, "d.avro");
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->Metadata("content"), "deletes");
  auto read = ReadManifest(fs, *written);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->size(), 2u);
  EXPECT_EQ((*read)[0].data_file, entries[0].data_file);
  EXPECT_EQ((*read)[1].data_file, entries[1].data_file);
}

TEST(ManifestTest, WriterRejectsInvalidEntries) {
  MemoryFileSystem fs;
  std::vector<ManifestEntry> entries(1);
  entries[0].data_file = SampleDataFile(0);
  EXPECT_EQ(WriteManifest(fs, "x.avro", Options(ManifestContent::kDeletes), entries, 1, 1).status().kind(),
            StatusKind::kInvalidArgument);
  ManifestWriteOptions no_schema = Options();
  no_schema.table_schema_json.clear();
  EXPECT_EQ(WriteManifest(fs, "x.avro", no_schema, entries, 1, 1).status().kind(), StatusKind::kInvalidArgument);
  entries[0].status = ManifestEntryStatus::kExisting;
  Status status = WriteManifest(fs, "x.avro", Options(), entries, 1, 1).status();
  EXPECT_EQ(status.kind(), StatusKind::kInvalidArgument);
  EXPECT_NE(status.message().find("explicit snapshot_id"), std::string::npos) << status.ToString();
  entries[0].status = ManifestEntryStatus::kAdded;
  entries[0].data_file.equality_ids = {1};
  EXPECT_EQ(WriteManifest(fs, "x.avro", Options(), entries, 1, 1).status().kind(), StatusKind::kInvalidArgument);
}

TEST(ManifestTest, EmptyManifest) {
  MemoryFileSystem fs;
  auto written = WriteManifest(fs, "e.avro", Options(), {}, 3, 4);
  ASSERT_TRUE(written.ok());
  EXPECT_EQ(written->added_files_count, 0);
  EXPECT_EQ(written->min_sequence_number, 4);
  auto read = ReadManifest(fs, *written);
  ASSERT_TRUE(read.ok());
  EXPECT_TRUE(read->empty());
}

TEST(ManifestListTest, WriteReadRoundTrip) {
  MemoryFileSystem fs;
  std::vector<ManifestFile> manifests(2);
  manifests[0].manifest_path = "/w/t/metadata/a-m0.avro";
  manifests[0].manifest_length = 5000;
  manifests[0].sequence_number = 4;
  manifests[0].min_sequence_number = 1;
  manifests[0].added_snapshot_id = 77;
  manifests[0].added_files_count = 2;
  manifests[0].existing_files_count = 3;
  manifests[0].added_rows_count = 2000;
  manifests[0].existing_rows_count = 1 << 30;
  manifests[1].manifest_path = "/w/t/metadata/a-m1.avro";
  manifests[1].content = ManifestContent::kDeletes;
  manifests[1].partition_spec_id = 0;
  manifests[1].sequence_number = 4;
  manifests[1].min_sequence_number = 4;
  manifests[1].added_snapshot_id = 77;
  manifests[1].deleted_files_count = 1;
  manifests[1].deleted_rows_count = 9;
  ASSERT_TRUE(WriteManifestList(fs, "list.avro", 77, std::nullopt, 4, manifests).ok());
  auto reader = avro::ContainerReader::Open(fs, "list.avro");
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->Metadata("snapshot-id"), "77");
  EXPECT_EQ((*reader)->Metadata("parent-snapshot-id"), "null");
  EXPECT_EQ((*reader)->Metadata("sequence-number"), "4");
  EXPECT_EQ((*reader)->Metadata("format-version"), "2");
  auto read = ReadManifestList(fs, "list.avro");
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(*read, manifests);

  ASSERT_TRUE(WriteManifestList(fs, "list2.avro", 78, 77, 5, {}).ok());
  auto reader2 = avro::ContainerReader::Open(fs, "list2.avro");
  ASSERT_TRUE(reader2.ok());
  EXPECT_EQ((*reader2)->Metadata("parent-snapshot-id"), "77");
  auto empty = ReadManifestList(fs, "list2.avro");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST(ManifestSchemaTest, FollowsTheSpec) {
  std::string entry = avro::ToJson(ManifestEntrySchema());
  for (const char* needle : {
           R"({"type":"record","name":"manifest_entry","fields":[{"name":"status","type":"int","field-id":0})",
           R"({"name":"snapshot_id","type":["null","long"],"default":null,"field-id":1})",
           R"({"name":"data_file","type":{"type":"record","name":"r2","fields":[{"name":"content","type":"int","field-id":134})",
           R"({"name":"partition","type":{"type":"record","name":"r102","fields":[]},"field-id":102})",
           R"({"name":"column_sizes","type":["null",{"type":"array","items":{"type":"record","name":"k117_v118","fields":[{"name":"key","type":"int","field-id":117},{"name":"value","type":"long","field-id":118}]},"logicalType":"map"}],"default":null,"field-id":108})",
           R"({"name":"split_offsets","type":["null",{"type":"array","items":"long","element-id":133}],"default":null,"field-id":132})",
           R"({"name":"referenced_data_file","type":["null","string"],"default":null,"field-id":143})",
       }) {
    EXPECT_NE(entry.find(needle), std::string::npos) << needle << "\n" << entry;
  }
  for (const char* absent : {"\"field-id\":105", "\"field-id\":106", "\"field-id\":107", "\"field-id\":111"}) {
    EXPECT_EQ(entry.find(absent), std::string::npos) << absent;
  }
  std::string list = avro::ToJson(ManifestFileSchema());
  EXPECT_NE(list.find(R"({"type":"record","name":"manifest_file","fields":[{"name":"manifest_path","type":"string","field-id":500})"),
            std::string::npos)
      << list;
  EXPECT_NE(list.find(R"("items":{"type":"record","name":"r508")"), std::string::npos) << list;
}

// The Avro schemas of v2 manifests and manifest lists exactly as written
// before format version 3 was added: v2 files must not change.
constexpr char kV2ManifestEntrySchema[] =
    R"({"type":"record","name":"manifest_entry","fields":[{"name":"status","type":"int","field-id":0},{"name":"snapshot_id","type":["null","long"],"default":null,"field-id":1},{"name":"sequence_number","type":["null","long"],"default":null,"field-id":3},{"name":"file_sequence_number","type":["null","long"],"default":null,"field-id":4},{"name":"data_file","type":{"type":"record","name":"r2","fields":[{"name":"content","type":"int","field-id":134},{"name":"file_path","type":"string","field-id":100},{"name":"file_format","type":"string","field-id":101},{"name":"partition","type":{"type":"record","name":"r102","fields":[]},"field-id":102},{"name":"record_count","type":"long","field-id":103},{"name":"file_size_in_bytes","type":"long","field-id":104},{"name":"column_sizes","type":["null",{"type":"array","items":{"type":"record","name":"k117_v118","fields":[{"name":"key","type":"int","field-id":117},{"name":"value","type":"long","field-id":118}]},"logicalType":"map"}],"default":null,"field-id":108},{"name":"value_counts","type":["null",{"type":"array","items":{"type":"record","name":"k119_v120","fields":[{"name":"key","type":"int","field-id":119},{"name":"value","type":"long","field-id":120}]},"logicalType":"map"}],"default":null,"field-id":109},{"name":"null_value_counts","type":["null",{"type":"array","items":{"type":"record","name":"k121_v122","fields":[{"name":"key","type":"int","field-id":121},{"name":"value","type":"long","field-id":122}]},"logicalType":"map"}],"default":null,"field-id":110},{"name":"nan_value_counts","type":["null",{"type":"array","items":{"type":"record","name":"k138_v139","fields":[{"name":"key","type":"int","field-id":138},{"name":"value","type":"long","field-id":139}]},"logicalType":"map"}],"default":null,"field-id":137},{"name":"lower_bounds","type":["null",{"type":"array","items":{"type":"record","name":"k126_v127","fields":[{"name":"key","type":"int","field-id":126},{"name":"value","type":"bytes","field-id":127}]},"logicalType":"map"}],"default":null,"field-id":125},{"name":"upper_bounds","type":["null",{"type":"array","items":{"type":"record","name":"k129_v130","fields":[{"name":"key","type":"int","field-id":129},{"name":"value","type":"bytes","field-id":130}]},"logicalType":"map"}],"default":null,"field-id":128},{"name":"key_metadata","type":["null","bytes"],"default":null,"field-id":131},{"name":"split_offsets","type":["null",{"type":"array","items":"long","element-id":133}],"default":null,"field-id":132},{"name":"equality_ids","type":["null",{"type":"array","items":"int","element-id":136}],"default":null,"field-id":135},{"name":"sort_order_id","type":["null","int"],"default":null,"field-id":140},{"name":"referenced_data_file","type":["null","string"],"default":null,"field-id":143}]},"field-id":2}]})";
constexpr char kV2ManifestFileSchema[] =
    R"({"type":"record","name":"manifest_file","fields":[{"name":"manifest_path","type":"string","field-id":500},{"name":"manifest_length","type":"long","field-id":501},{"name":"partition_spec_id","type":"int","field-id":502},{"name":"content","type":"int","field-id":517},{"name":"sequence_number","type":"long","field-id":515},{"name":"min_sequence_number","type":"long","field-id":516},{"name":"added_snapshot_id","type":"long","field-id":503},{"name":"added_files_count","type":"int","field-id":504},{"name":"existing_files_count","type":"int","field-id":505},{"name":"deleted_files_count","type":"int","field-id":506},{"name":"added_rows_count","type":"long","field-id":512},{"name":"existing_rows_count","type":"long","field-id":513},{"name":"deleted_rows_count","type":"long","field-id":514},{"name":"partitions","type":["null",{"type":"array","items":{"type":"record","name":"r508","fields":[{"name":"contains_null","type":"boolean","field-id":509},{"name":"contains_nan","type":["null","boolean"],"default":null,"field-id":518},{"name":"lower_bound","type":["null","bytes"],"default":null,"field-id":510},{"name":"upper_bound","type":["null","bytes"],"default":null,"field-id":511}]},"element-id":508}],"default":null,"field-id":507},{"name":"key_metadata","type":["null","bytes"],"default":null,"field-id":519}]})";

TEST(ManifestSchemaTest, V2SchemasAreUnchanged) {
  EXPECT_EQ(avro::ToJson(ManifestEntrySchema()), kV2ManifestEntrySchema);
  EXPECT_EQ(avro::ToJson(ManifestEntrySchema(kManifestFormatV2)), kV2ManifestEntrySchema);
  EXPECT_EQ(avro::ToJson(ManifestFileSchema()), kV2ManifestFileSchema);

  // And the files hold them, with the same metadata as before.
  MemoryFileSystem fs;
  std::vector<ManifestEntry> entries(1);
  entries[0].data_file = SampleDataFile(0);
  ASSERT_TRUE(WriteManifest(fs, "m.avro", Options(), entries, 1, 1).ok());
  auto reader = avro::ContainerReader::Open(fs, "m.avro");
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->Metadata(avro::kSchemaKey), kV2ManifestEntrySchema);
  std::map<std::string, std::string> expected_metadata = {
      {"avro.schema", kV2ManifestEntrySchema}, {"avro.codec", "deflate"}, {"schema", kTableSchema},
      {"schema-id", "0"}, {"partition-spec", "[]"}, {"partition-spec-id", "0"}, {"format-version", "2"},
      {"content", "data"}};
  EXPECT_EQ((*reader)->metadata(), expected_metadata);
  ManifestFile listed;
  listed.manifest_path = "m.avro";
  ASSERT_TRUE(WriteManifestList(fs, "list.avro", 1, std::nullopt, 1, {listed}).ok());
  auto list_reader = avro::ContainerReader::Open(fs, "list.avro");
  ASSERT_TRUE(list_reader.ok());
  EXPECT_EQ((*list_reader)->Metadata(avro::kSchemaKey), kV2ManifestFileSchema);
  EXPECT_FALSE((*list_reader)->Metadata("first-row-id").has_value());
}

TEST(ManifestSchemaTest, V3AddsRowLineageAndDeletionVectorFields) {
  std::string entry = avro::ToJson(ManifestEntrySchema(kManifestFormatV3));
  // The v2 data_file fields, then first_row_id before referenced_data_file
  // and the blob's offset and size after it, as Iceberg Java orders them.
  EXPECT_NE(entry.find(R"({"name":"sort_order_id","type":["null","int"],"default":null,"field-id":140},)"
                       R"({"name":"first_row_id","type":["null","long"],"default":null,"field-id":142},)"
                       R"({"name":"referenced_data_file","type":["null","string"],"default":null,"field-id":143},)"
                       R"({"name":"content_offset","type":["null","long"],"default":null,"field-id":144},)"
                       R"({"name":"content_size_in_bytes","type":["null","long"],"default":null,"field-id":145}]})"),
            std::string::npos)
      << entry;
  std::string list = avro::ToJson(ManifestFileSchema(kManifestFormatV3));
  EXPECT_NE(list.find(R"({"name":"first_row_id","type":["null","long"],"default":null,"field-id":520}]})"),
            std::string::npos)
      << list;
  // Otherwise the same as v2.
  std::string v2_entry = kV2ManifestEntrySchema;
  EXPECT_EQ(entry.substr(0, entry.find(R"({"name":"first_row_id")")),
            v2_entry.substr(0, v2_entry.find(R"({"name":"referenced_data_file")")));
}

DataFile SampleDeletionVector(int i) {
  DataFile file;
  file.content = FileContent::kPositionDeletes;
  file.file_path = "/w/t/data/dv-1.puffin";
  file.file_format = "puffin";
  file.record_count = 3 + i;
  file.file_size_in_bytes = 900;
  file.referenced_data_file = StrCat("/w/t/data/", i, ".parquet");
  file.content_offset = 4 + 100 * i;
  file.content_size_in_bytes = 60 + i;
  return file;
}

TEST(ManifestV3Test, DeletionVectorsRoundTrip) {
  MemoryFileSystem fs;
  ManifestWriteOptions options = Options(ManifestContent::kDeletes);
  options.format_version = kManifestFormatV3;
  std::vector<ManifestEntry> entries(3);
  entries[0].data_file = SampleDeletionVector(0);
  entries[1].data_file = SampleDeletionVector(1);
  entries[2].status = ManifestEntryStatus::kDeleted;  // a replaced vector
  entries[2].snapshot_id = 5;
  entries[2].sequence_number = 2;
  entries[2].file_sequence_number = 2;
  entries[2].data_file = SampleDeletionVector(2);
  auto written = WriteManifest(fs, "dv.avro", options, entries, 9, 4);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(written->content, ManifestContent::kDeletes);
  EXPECT_EQ(written->added_rows_count, 3 + 4);
  EXPECT_EQ(written->deleted_rows_count, 5);
  EXPECT_FALSE(written->first_row_id.has_value());

  auto reader = avro::ContainerReader::Open(fs, "dv.avro");
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->Metadata("format-version"), "3");
  EXPECT_EQ((*reader)->Metadata("content"), "deletes");
  EXPECT_EQ((*reader)->Metadata(avro::kSchemaKey), avro::ToJson(ManifestEntrySchema(kManifestFormatV3)));

  auto read = ReadManifest(fs, *written);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->size(), 3u);
  std::vector<ManifestEntry> expected = entries;
  expected[0].snapshot_id = expected[1].snapshot_id = 9;
  expected[0].sequence_number = expected[0].file_sequence_number = 4;
  expected[1].sequence_number = expected[1].file_sequence_number = 4;
  EXPECT_EQ(*read, expected);
  EXPECT_EQ((*read)[1].data_file.content_offset, 104);
  EXPECT_EQ((*read)[1].data_file.content_size_in_bytes, 61);
  EXPECT_EQ((*read)[1].data_file.referenced_data_file, "/w/t/data/1.parquet");
}

TEST(ManifestV3Test, FirstRowIdsAreInheritedFromTheManifest) {
  MemoryFileSystem fs;
  ManifestWriteOptions options = Options();
  options.format_version = kManifestFormatV3;
  std::vector<ManifestEntry> entries(4);
  entries[0].data_file = SampleDataFile(0);  // ADDED, 100 rows, null first_row_id
  entries[1].status = ManifestEntryStatus::kExisting;
  entries[1].snapshot_id = 3;
  entries[1].sequence_number = entries[1].file_sequence_number = 1;
  entries[1].data_file = SampleDataFile(1);
  entries[1].data_file.first_row_id = 20;  // assigned before: kept, not counted
  entries[2].data_file = SampleDataFile(2);  // ADDED, 102 rows
  entries[3].status = ManifestEntryStatus::kExisting;  // an existing file never assigned one (upgraded table)
  entries[3].snapshot_id = 3;
  entries[3].sequence_number = entries[3].file_sequence_number = 1;
  entries[3].data_file = SampleDataFile(3);
  auto written = WriteManifest(fs, "m.avro", options, entries, 9, 4);
  ASSERT_TRUE(written.ok()) << written.status().ToString();

  // Without a first_row_id in the list (not yet committed) nothing is assigned.
  auto unassigned = ReadManifest(fs, *written);
  ASSERT_TRUE(unassigned.ok()) << unassigned.status().ToString();
  std::vector<std::optional<int64_t>> ids;
  for (const ManifestEntry& e : *unassigned) ids.push_back(e.data_file.first_row_id);
  EXPECT_EQ(ids, (std::vector<std::optional<int64_t>>{std::nullopt, 20, std::nullopt, std::nullopt}));

  ManifestFile listed = *written;
  listed.first_row_id = 1000;
  auto read = ReadManifest(fs, listed);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ids.clear();
  for (const ManifestEntry& e : *read) ids.push_back(e.data_file.first_row_id);
  // 1000, kept, 1000 + 100, 1000 + 100 + 102.
  EXPECT_EQ(ids, (std::vector<std::optional<int64_t>>{1000, 20, 1100, 1202}));
}

TEST(ManifestV3Test, WriterRejectsMisplacedV3Fields) {
  MemoryFileSystem fs;
  auto rejects = [&fs](ManifestWriteOptions options, DataFile file, const char* why) {
    SCOPED_TRACE(why);
    std::vector<ManifestEntry> entries(1);
    entries[0].data_file = std::move(file);
    Status status = WriteManifest(fs, "bad.avro", options, entries, 1, 1).status();
    EXPECT_EQ(status.kind(), StatusKind::kInvalidArgument) << status.ToString();
    EXPECT_NE(status.message().find("bad.avro"), std::string::npos) << status.ToString();
  };
  ManifestWriteOptions v2_deletes = Options(ManifestContent::kDeletes);
  ManifestWriteOptions v3_deletes = v2_deletes;
  v3_deletes.format_version = kManifestFormatV3;
  ManifestWriteOptions v2_data = Options();
  ManifestWriteOptions v3_data = v2_data;
  v3_data.format_version = kManifestFormatV3;

  rejects(v2_deletes, SampleDeletionVector(0), "a deletion vector in a v2 manifest");
  DataFile with_row_id = SampleDataFile(0);
  with_row_id.first_row_id = 7;
  rejects(v2_data, with_row_id, "first_row_id in a v2 manifest");
  DataFile delete_with_row_id = SampleDeletionVector(0);
  delete_with_row_id.first_row_id = 7;
  rejects(v3_deletes, delete_with_row_id, "a delete file with a first_row_id");
  for (int missing = 0; missing < 3; ++missing) {
    DataFile dv = SampleDeletionVector(0);
    if (missing == 0) dv.referenced_data_file.reset();
    if (missing == 1) dv.content_offset.reset();
    if (missing == 2) dv.content_size_in_bytes.reset();
    rejects(v3_deletes, dv, "a deletion vector without its referenced file, offset or size");
  }
  DataFile parquet_with_offset = SampleDeletionVector(0);
  parquet_with_offset.file_format = "parquet";
  rejects(v3_deletes, parquet_with_offset, "content_offset on a position delete file");
  ManifestWriteOptions v4 = v3_data;
  v4.format_version = 4;
  rejects(v4, SampleDataFile(0), "format version 4");

  // What is valid in v3 is accepted, whatever the case of "PUFFIN".
  std::vector<ManifestEntry> entries(1);
  entries[0].data_file = SampleDeletionVector(0);
  entries[0].data_file.file_format = "PUFFIN";
  EXPECT_TRUE(WriteManifest(fs, "ok.avro", v3_deletes, entries, 1, 1).ok());
}

// The manifests of one snapshot, as the spec's "First Row ID Assignment"
// sees them: the table's next-row-id is 1000.
std::vector<ManifestFile> SnapshotManifests() {
  std::vector<ManifestFile> manifests(5);
  manifests[0].manifest_path = "old.avro";  // committed before: keeps its first_row_id
  manifests[0].added_rows_count = 400;
  manifests[0].first_row_id = 0;
  manifests[1].manifest_path = "deletes.avro";  // delete manifests get none
  manifests[1].content = ManifestContent::kDeletes;
  manifests[1].added_rows_count = 7;
  manifests[2].manifest_path = "new-a.avro";  // added and existing rows may all inherit ids
  manifests[2].added_rows_count = 100;
  manifests[2].existing_rows_count = 125;
  manifests[3].manifest_path = "new-empty.avro";
  manifests[4].manifest_path = "new-b.avro";
  manifests[4].added_rows_count = 75;
  manifests[4].deleted_rows_count = 1000;  // deleted rows get no ids
  for (ManifestFile& m : manifests) {
    m.manifest_length = 1000;
    m.sequence_number = m.min_sequence_number = 3;
    m.added_snapshot_id = 77;
  }
  return manifests;
}

TEST(ManifestListV3Test, AssignFirstRowIdsFollowsTheSpec) {
  std::vector<ManifestFile> manifests = SnapshotManifests();
  auto added_rows = AssignFirstRowIds(&manifests, 1000);
  ASSERT_TRUE(added_rows.ok()) << added_rows.status().ToString();
  EXPECT_EQ(*added_rows, 225 + 0 + 75);
  std::vector<std::optional<int64_t>> ids;
  for (const ManifestFile& m : manifests) ids.push_back(m.first_row_id);
  EXPECT_EQ(ids, (std::vector<std::optional<int64_t>>{0, std::nullopt, 1000, 1225, 1225}));

  // A retry against a newer next-row-id reassigns only what is unassigned:
  // assigned ids stay (callers start again from the unassigned list).
  auto again = AssignFirstRowIds(&manifests, 5000);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, 0);
  EXPECT_EQ(manifests[2].first_row_id, 1000);

  std::vector<ManifestFile> bad = SnapshotManifests();
  bad[1].first_row_id = 3;
  EXPECT_EQ(AssignFirstRowIds(&bad, 0).status().kind(), StatusKind::kInvalidArgument);
  bad = SnapshotManifests();
  bad[2].added_rows_count = -1;
  EXPECT_EQ(AssignFirstRowIds(&bad, 0).status().kind(), StatusKind::kInvalidArgument);
}

TEST(ManifestListV3Test, WriteReadRoundTrip) {
  MemoryFileSystem fs;
  std::vector<ManifestFile> manifests = SnapshotManifests();
  ASSERT_TRUE(AssignFirstRowIds(&manifests, 1000).ok());
  ASSERT_TRUE(WriteManifestList(fs, "list.avro", 77, 76, 3, manifests, kManifestFormatV3, 1000).ok());
  auto reader = avro::ContainerReader::Open(fs, "list.avro");
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->Metadata("format-version"), "3");
  EXPECT_EQ((*reader)->Metadata("first-row-id"), "1000");
  EXPECT_EQ((*reader)->Metadata("parent-snapshot-id"), "76");
  EXPECT_EQ((*reader)->Metadata(avro::kSchemaKey), avro::ToJson(ManifestFileSchema(kManifestFormatV3)));
  auto read = ReadManifestList(fs, "list.avro");
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(*read, manifests);

  auto rejects = [&fs](const std::vector<ManifestFile>& list, int32_t version, std::optional<int64_t> first_row_id) {
    Status status = WriteManifestList(fs, "bad.avro", 77, 76, 3, list, version, first_row_id);
    EXPECT_EQ(status.kind(), StatusKind::kInvalidArgument) << status.ToString();
  };
  rejects(SnapshotManifests(), kManifestFormatV3, 1000);  // data manifests without first_row_id
  rejects(manifests, kManifestFormatV3, std::nullopt);    // no snapshot first-row-id
  rejects(manifests, kManifestFormatV2, std::nullopt);    // first_row_id in a v2 list
  rejects({}, kManifestFormatV2, 1000);
  rejects({}, 4, 1000);
  std::vector<ManifestFile> delete_with_id = manifests;
  delete_with_id[1].first_row_id = 0;
  rejects(delete_with_id, kManifestFormatV3, 1000);
}

// Every truncation of a manifest is an error naming the file, not a crash.
TEST(ManifestTest, TruncatedManifestIsAnError) {
  MemoryFileSystem fs;
  std::vector<ManifestEntry> entries(2);
  entries[0].data_file = SampleDataFile(0);
  entries[1].data_file = SampleDataFile(1);
  auto written = WriteManifest(fs, "m.avro", Options(), entries, 1, 1);
  ASSERT_TRUE(written.ok());
  std::string bytes = *fs.ReadFileToString("m.avro");
  std::string marker = bytes.substr(bytes.size() - avro::kSyncMarkerSize);
  size_t header_end = bytes.find(marker) + avro::kSyncMarkerSize;
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    if (cut == header_end) continue;  // a valid manifest without entries
    fs.AddFile("cut.avro", bytes.substr(0, cut));
    ManifestFile m = *written;
    m.manifest_path = "cut.avro";
    Status status = ReadManifest(fs, m).status();
    ASSERT_FALSE(status.ok()) << cut;
    EXPECT_NE(status.message().find("cut.avro"), std::string::npos) << status.ToString();
  }
}

TEST(ManifestTest, WrongRecordShapeIsCorruption) {
  MemoryFileSystem fs;
  // A container of manifest_file records is not a manifest.
  ManifestFile listed;
  listed.manifest_path = "x";
  ASSERT_TRUE(WriteManifestList(fs, "list.avro", 1, std::nullopt, 1, {listed}).ok());
  ManifestFile m;
  m.manifest_path = "list.avro";
  Status status = ReadManifest(fs, m).status();
  EXPECT_EQ(status.kind(), StatusKind::kCorruption);
  EXPECT_NE(status.message().find("list.avro: manifest entry 0: required field status"), std::string::npos)
      << status.ToString();
}

}  // namespace
}  // namespace cqlite::iceberg
