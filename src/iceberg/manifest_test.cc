#include "iceberg/manifest.h"

#include <gtest/gtest.h>

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
