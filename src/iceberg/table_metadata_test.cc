#include "iceberg/table_metadata.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>

#include <nlohmann/json.hpp>

namespace cqlite::iceberg {
namespace {

using nlohmann::json;

Schema TwoColumnSchema() {
  Schema s;
  s.schema_id = 5;  // NewTableMetadata makes it schema 0
  s.fields = {{1, "id", true, Type::Primitive(Type::Kind::kLong)},
              {2, "tags", false, Type::List(3, false, Type::Primitive(Type::Kind::kString))}};
  s.identifier_field_ids = {1};
  return s;
}

Snapshot MakeSnapshot(int64_t id, std::optional<int64_t> parent, int64_t sequence_number, int64_t timestamp_ms) {
  Snapshot s;
  s.snapshot_id = id;
  s.parent_snapshot_id = parent;
  s.sequence_number = sequence_number;
  s.timestamp_ms = timestamp_ms;
  s.manifest_list = "/warehouse/t/metadata/snap-" + std::to_string(id) + ".avro";
  s.summary = {{"operation", "append"}, {"added-records", "10"}};
  s.schema_id = 0;
  return s;
}

TEST(TableMetadataTest, NewTableHasEveryRequiredV2Field) {
  TableMetadata m = NewTableMetadata("/warehouse/t", TwoColumnSchema(), {{"owner", "cqlite"}}, 1700000000000);
  EXPECT_EQ(m.location, "/warehouse/t");
  EXPECT_EQ(m.last_column_id, 3);
  EXPECT_EQ(m.last_updated_ms, 1700000000000);
  EXPECT_EQ(m.last_sequence_number, 0);
  ASSERT_EQ(m.schemas.size(), 1u);
  EXPECT_EQ(m.schemas[0].schema_id, 0);
  ASSERT_NE(m.CurrentSchema(), nullptr);
  EXPECT_EQ(m.CurrentSnapshot(), nullptr);

  json j = json::parse(TableMetadataToJson(m));
  EXPECT_EQ(j.at("format-version"), 2);
  EXPECT_EQ(j.at("table-uuid"), m.table_uuid);
  EXPECT_EQ(j.at("table-uuid").get<std::string>().size(), 36u);
  EXPECT_EQ(j.at("location"), "/warehouse/t");
  EXPECT_EQ(j.at("last-sequence-number"), 0);
  EXPECT_EQ(j.at("last-updated-ms"), 1700000000000);
  EXPECT_EQ(j.at("last-column-id"), 3);
  EXPECT_EQ(j.at("current-schema-id"), 0);
  ASSERT_EQ(j.at("schemas").size(), 1u);
  EXPECT_EQ(j["schemas"][0].at("schema-id"), 0);
  EXPECT_EQ(j["schemas"][0].at("identifier-field-ids"), json::array({1}));
  EXPECT_EQ(j.at("partition-specs"), json::parse(R"([{"spec-id": 0, "fields": []}])"));
  EXPECT_EQ(j.at("default-spec-id"), 0);
  // Partition field ids start at 1000; an unpartitioned table's last is 999.
  EXPECT_EQ(j.at("last-partition-id"), 999);
  EXPECT_EQ(j.at("sort-orders"), json::parse(R"([{"order-id": 0, "fields": []}])"));
  EXPECT_EQ(j.at("default-sort-order-id"), 0);
  EXPECT_EQ(j.at("properties"), json::parse(R"({"owner": "cqlite"})"));
  EXPECT_EQ(j.at("snapshots"), json::array());
  EXPECT_EQ(j.at("snapshot-log"), json::array());
  EXPECT_EQ(j.at("metadata-log"), json::array());
  EXPECT_FALSE(j.contains("refs") && j["refs"].contains("main"));
  // No current snapshot: absent, null or -1 (what Java writes).
  if (j.contains("current-snapshot-id")) {
    EXPECT_TRUE(j["current-snapshot-id"].is_null() || j["current-snapshot-id"] == -1);
  }
}

TEST(TableMetadataTest, AddSnapshotMakesItCurrentAndLogsHistory) {
  TableMetadata m = NewTableMetadata("/warehouse/t", TwoColumnSchema(), {}, 1000);
  AddSnapshot(&m, MakeSnapshot(111, std::nullopt, 1, 2000), "");
  AddSnapshot(&m, MakeSnapshot(222, 111, 2, 3000), "/warehouse/t/metadata/00001-a.metadata.json");

  EXPECT_EQ(m.current_snapshot_id, 222);
  ASSERT_NE(m.CurrentSnapshot(), nullptr);
  EXPECT_EQ(m.CurrentSnapshot()->snapshot_id, 222);
  EXPECT_EQ(m.last_sequence_number, 2);
  EXPECT_EQ(m.last_updated_ms, 3000);

  json j = json::parse(TableMetadataToJson(m));
  EXPECT_EQ(j.at("current-snapshot-id"), 222);
  EXPECT_EQ(j.at("last-sequence-number"), 2);
  EXPECT_EQ(j.at("last-updated-ms"), 3000);
  EXPECT_EQ(j.at("refs"), json::parse(R"({"main": {"snapshot-id": 222, "type": "branch"}})"));
  ASSERT_EQ(j.at("snapshots").size(), 2u);
  const json& first = j["snapshots"][0];
  EXPECT_EQ(first.at("snapshot-id"), 111);
  EXPECT_FALSE(first.contains("parent-snapshot-id") && !first["parent-snapshot-id"].is_null());
  EXPECT_EQ(first.at("sequence-number"), 1);
  EXPECT_EQ(first.at("timestamp-ms"), 2000);
  EXPECT_EQ(first.at("manifest-list"), "/warehouse/t/metadata/snap-111.avro");
  EXPECT_EQ(first.at("summary"), json::parse(R"({"operation": "append", "added-records": "10"})"));
  EXPECT_EQ(first.at("schema-id"), 0);
  EXPECT_EQ(j["snapshots"][1].at("parent-snapshot-id"), 111);
  EXPECT_EQ(j.at("snapshot-log"), json::parse(R"([{"timestamp-ms": 2000, "snapshot-id": 111},
                                                   {"timestamp-ms": 3000, "snapshot-id": 222}])"));
  // The replaced file is logged with the time it was written: the table's
  // last-updated-ms before this snapshot.
  EXPECT_EQ(j.at("metadata-log"), json::parse(R"([{"timestamp-ms": 2000,
      "metadata-file": "/warehouse/t/metadata/00001-a.metadata.json"}])"));
}

TEST(TableMetadataTest, RoundTrip) {
  TableMetadata m = NewTableMetadata("s3://bucket/t", TwoColumnSchema(), {{"k", "v"}, {"write.format.default", "parquet"}},
                                     1000);
  AddSnapshot(&m, MakeSnapshot(111, std::nullopt, 1, 2000), "s3://bucket/t/metadata/00000-x.metadata.json");
  AddSnapshot(&m, MakeSnapshot(222, 111, 2, 3000), "s3://bucket/t/metadata/00001-y.metadata.json");
  std::string text = TableMetadataToJson(m);

  auto back = TableMetadataFromJson(text, "t/metadata/00002-z.metadata.json");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->table_uuid, m.table_uuid);
  EXPECT_EQ(back->location, "s3://bucket/t");
  EXPECT_EQ(back->last_sequence_number, 2);
  EXPECT_EQ(back->last_updated_ms, 3000);
  EXPECT_EQ(back->last_column_id, 3);
  EXPECT_EQ(back->current_schema_id, 0);
  ASSERT_EQ(back->schemas.size(), 1u);
  EXPECT_TRUE(SameStructure(back->schemas[0], m.schemas[0]));
  EXPECT_EQ(back->properties, m.properties);
  EXPECT_EQ(back->current_snapshot_id, 222);
  ASSERT_EQ(back->snapshots.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const Snapshot& a = m.snapshots[i];
    const Snapshot& b = back->snapshots[i];
    EXPECT_EQ(b.snapshot_id, a.snapshot_id);
    EXPECT_EQ(b.parent_snapshot_id, a.parent_snapshot_id);
    EXPECT_EQ(b.sequence_number, a.sequence_number);
    EXPECT_EQ(b.timestamp_ms, a.timestamp_ms);
    EXPECT_EQ(b.manifest_list, a.manifest_list);
    EXPECT_EQ(b.summary, a.summary);
    EXPECT_EQ(b.schema_id, a.schema_id);
  }
  EXPECT_EQ(back->snapshot_log, m.snapshot_log);
  EXPECT_EQ(back->metadata_log, m.metadata_log);
  ASSERT_EQ(back->metadata_log.size(), 2u);
  EXPECT_EQ(back->metadata_log[0], (std::pair<int64_t, std::string>{1000, "s3://bucket/t/metadata/00000-x.metadata.json"}));
  EXPECT_EQ(TableMetadataToJson(*back), text);

  // A table without snapshots round-trips too.
  TableMetadata empty = NewTableMetadata("/t", TwoColumnSchema(), {}, 5);
  auto empty_back = TableMetadataFromJson(TableMetadataToJson(empty), "p");
  ASSERT_TRUE(empty_back.ok()) << empty_back.status().ToString();
  EXPECT_FALSE(empty_back->current_snapshot_id.has_value());
  EXPECT_TRUE(empty_back->snapshots.empty());
}

TEST(TableMetadataTest, V2HasNoRowLineage) {
  TableMetadata m = NewTableMetadata("/warehouse/t", TwoColumnSchema(), {}, 1000);
  AddSnapshot(&m, MakeSnapshot(111, std::nullopt, 1, 2000), "");
  json j = json::parse(TableMetadataToJson(m));
  std::set<std::string> keys;
  for (const auto& [key, value] : j.items()) keys.insert(key);
  EXPECT_EQ(keys, (std::set<std::string>{"format-version", "table-uuid", "location", "last-sequence-number",
                                         "last-updated-ms", "last-column-id", "current-schema-id", "schemas",
                                         "default-spec-id", "partition-specs", "last-partition-id",
                                         "default-sort-order-id", "sort-orders", "properties",
                                         "current-snapshot-id", "snapshots", "snapshot-log", "metadata-log",
                                         "refs"}));
  std::set<std::string> snapshot_keys;
  for (const auto& [key, value] : j["snapshots"][0].items()) snapshot_keys.insert(key);
  EXPECT_EQ(snapshot_keys, (std::set<std::string>{"snapshot-id", "sequence-number", "timestamp-ms", "manifest-list",
                                                  "summary", "schema-id"}));
  EXPECT_EQ(m.next_row_id, 0);
}

TEST(TableMetadataTest, V3RowLineageRoundTrip) {
  TableMetadata m = NewTableMetadata("/warehouse/t", TwoColumnSchema(), {}, 1000, /*format_version=*/3);
  json fresh = json::parse(TableMetadataToJson(m));
  EXPECT_EQ(fresh.at("format-version"), 3);
  EXPECT_EQ(fresh.at("next-row-id"), 0);

  // Spec "Snapshot Row IDs": each snapshot starts at the table's next-row-id,
  // which then advances by the snapshot's added-rows.
  Snapshot first = MakeSnapshot(111, std::nullopt, 1, 2000);
  AssignSnapshotRowIds(m, 300, &first);
  EXPECT_EQ(first.first_row_id, 0);
  EXPECT_EQ(first.added_rows, 300);
  AddSnapshot(&m, first, "");
  EXPECT_EQ(m.next_row_id, 300);
  Snapshot empty_commit = MakeSnapshot(222, 111, 2, 3000);  // no ids assigned: first-row-id still required
  AssignSnapshotRowIds(m, 0, &empty_commit);
  AddSnapshot(&m, empty_commit, "/warehouse/t/metadata/00001-a.metadata.json");
  EXPECT_EQ(m.next_row_id, 300);
  Snapshot third = MakeSnapshot(333, 222, 3, 4000);
  AssignSnapshotRowIds(m, 45, &third);
  AddSnapshot(&m, third, "/warehouse/t/metadata/00002-b.metadata.json");
  EXPECT_EQ(m.next_row_id, 345);

  std::string text = TableMetadataToJson(m);
  json j = json::parse(text);
  EXPECT_EQ(j.at("format-version"), 3);
  EXPECT_EQ(j.at("next-row-id"), 345);
  EXPECT_EQ(j["snapshots"][0].at("first-row-id"), 0);
  EXPECT_EQ(j["snapshots"][0].at("added-rows"), 300);
  EXPECT_EQ(j["snapshots"][1].at("first-row-id"), 300);
  EXPECT_EQ(j["snapshots"][1].at("added-rows"), 0);
  EXPECT_EQ(j["snapshots"][2].at("first-row-id"), 300);
  EXPECT_EQ(j["snapshots"][2].at("added-rows"), 45);

  // Who would commit v2 manifests reads v3 tables as not supported; a v3
  // reader gets them whole.
  EXPECT_EQ(TableMetadataFromJson(text, "p").status().kind(), StatusKind::kNotSupported);
  auto back = TableMetadataFromJson(text, "p", /*max_format_version=*/3);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->format_version, 3);
  EXPECT_EQ(back->next_row_id, 345);
  ASSERT_EQ(back->snapshots.size(), 3u);
  EXPECT_EQ(back->snapshots[2].first_row_id, 300);
  EXPECT_EQ(back->snapshots[2].added_rows, 45);
  EXPECT_EQ(TableMetadataToJson(*back), text);

  // v2 metadata reads the same with a v3 reader.
  TableMetadata v2 = NewTableMetadata("/t", TwoColumnSchema(), {}, 5);
  auto v2_back = TableMetadataFromJson(TableMetadataToJson(v2), "p", 3);
  ASSERT_TRUE(v2_back.ok());
  EXPECT_EQ(v2_back->format_version, 2);
  EXPECT_EQ(TableMetadataToJson(*v2_back), TableMetadataToJson(v2));
}

TEST(TableMetadataTest, V3WithoutRowLineageIsCorruption) {
  TableMetadata m = NewTableMetadata("/warehouse/t", TwoColumnSchema(), {}, 1000, 3);
  Snapshot s = MakeSnapshot(111, std::nullopt, 1, 2000);
  AssignSnapshotRowIds(m, 10, &s);
  AddSnapshot(&m, s, "");
  json valid = json::parse(TableMetadataToJson(m));
  ASSERT_TRUE(TableMetadataFromJson(valid.dump(), "p", 3).ok());
  for (const char* drop : {"next-row-id", "first-row-id", "added-rows"}) {
    SCOPED_TRACE(drop);
    json bad = valid;
    if (bad.contains(drop)) {
      bad.erase(drop);
    } else {
      bad["snapshots"][0].erase(drop);
    }
    auto read = TableMetadataFromJson(bad.dump(), "/w/t/metadata/00001-x.metadata.json", 3);
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.status().kind(), StatusKind::kCorruption) << read.status().ToString();
    EXPECT_NE(read.status().message().find("00001-x.metadata.json"), std::string::npos);
  }
  // A snapshot committed before the table's upgrade to v3 has neither.
  json upgraded = valid;
  upgraded["snapshots"][0].erase("first-row-id");
  upgraded["snapshots"][0].erase("added-rows");
  auto read = TableMetadataFromJson(upgraded.dump(), "p", 3);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_FALSE(read->snapshots[0].first_row_id.has_value());
  json v4 = valid;
  v4["format-version"] = 4;
  EXPECT_EQ(TableMetadataFromJson(v4.dump(), "p", 3).status().kind(), StatusKind::kNotSupported);
}

TEST(TableMetadataTest, ReadsOtherWritersForms) {
  // A null current-snapshot-id means no current snapshot as -1 does.
  json j = json::parse(TableMetadataToJson(NewTableMetadata("/t", TwoColumnSchema(), {}, 5)));
  j["current-snapshot-id"] = nullptr;
  auto m = TableMetadataFromJson(j.dump(), "p");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_FALSE(m->current_snapshot_id.has_value());
}

TEST(TableMetadataTest, ReadsWhatIcebergJavaWritesForARestCommit) {
  // The shape of the metadata file Iceberg Java's REST catalog server writes
  // for a commit of ours: fields we never write (statistics,
  // partition-statistics, a ref's retention), its own metadata-log entry.
  json j = R"({
    "format-version": 2, "table-uuid": "9f1c0c3e-4c3a-4d8e-9f57-1f0f0e4b6a11", "location": "/w/shop/t",
    "last-sequence-number": 2, "last-updated-ms": 1796582679900, "last-column-id": 2,
    "current-schema-id": 0,
    "schemas": [{"type": "struct", "schema-id": 0, "identifier-field-ids": [1], "fields": [
      {"id": 1, "name": "id", "required": true, "type": "long"},
      {"id": 2, "name": "name", "required": false, "type": "string"}]}],
    "default-spec-id": 0, "partition-specs": [{"spec-id": 0, "fields": []}], "last-partition-id": 999,
    "default-sort-order-id": 0, "sort-orders": [{"order-id": 0, "fields": []}],
    "properties": {"cqlite.source.table": "t"},
    "current-snapshot-id": 22,
    "refs": {"main": {"snapshot-id": 22, "type": "branch", "max-ref-age-ms": 86400000},
             "audit": {"snapshot-id": 11, "type": "tag"}},
    "snapshots": [
      {"sequence-number": 1, "snapshot-id": 11, "timestamp-ms": 1796582675190,
       "summary": {"operation": "append", "total-records": "9"}, "manifest-list": "/w/shop/t/metadata/snap-11.avro",
       "schema-id": 0},
      {"sequence-number": 2, "snapshot-id": 22, "parent-snapshot-id": 11, "timestamp-ms": 1796582679865,
       "summary": {"operation": "delete", "total-records": "8", "cqlite.fold-state": "/w/shop/t/cqlite/s.json"},
       "manifest-list": "/w/shop/t/metadata/snap-22.avro", "schema-id": 0}],
    "statistics": [], "partition-statistics": [],
    "snapshot-log": [{"timestamp-ms": 1796582675190, "snapshot-id": 11},
                     {"timestamp-ms": 1796582679865, "snapshot-id": 22}],
    "metadata-log": [{"timestamp-ms": 1796582675190, "metadata-file": "/w/shop/t/metadata/00000-a.metadata.json"}]
  })"_json;
  auto m = TableMetadataFromJson(j.dump(), "00001-b.metadata.json");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_NE(m->CurrentSnapshot(), nullptr);
  EXPECT_EQ(m->CurrentSnapshot()->snapshot_id, 22);
  EXPECT_EQ(m->CurrentSnapshot()->summary.at("cqlite.fold-state"), "/w/shop/t/cqlite/s.json");
  EXPECT_EQ(m->last_sequence_number, 2);
  EXPECT_EQ(m->metadata_log.size(), 1u);
  EXPECT_EQ(m->CurrentSchema()->identifier_field_ids, std::vector<int32_t>({1}));
}

TEST(TableMetadataTest, LocalFilePathOfFileUris) {
  EXPECT_EQ(LocalFilePath("file:///w/t/metadata/a.json"), "/w/t/metadata/a.json");
  EXPECT_EQ(LocalFilePath("file:/w/t/metadata/a.json"), "/w/t/metadata/a.json");
  EXPECT_EQ(LocalFilePath("/w/t/metadata/a.json"), "/w/t/metadata/a.json");
  EXPECT_EQ(LocalFilePath("s3://bucket/t/a.json"), "s3://bucket/t/a.json");
}

std::string ValidMetadataJson() {
  TableMetadata m = NewTableMetadata("/warehouse/t", TwoColumnSchema(), {}, 1000);
  AddSnapshot(&m, MakeSnapshot(111, std::nullopt, 1, 2000), "");
  return TableMetadataToJson(m);
}

TEST(TableMetadataTest, BadInputsAreErrorsNamingThePath) {
  const std::string path = "/warehouse/t/metadata/00007-bad.metadata.json";
  json valid = json::parse(ValidMetadataJson());
  ASSERT_TRUE(TableMetadataFromJson(valid.dump(), path).ok());

  auto expect_error = [&path](const std::string& text, StatusKind kind) {
    SCOPED_TRACE(text.substr(0, 200));
    Result<TableMetadata> m = Status::Corruption("not run");
    ASSERT_NO_THROW(m = TableMetadataFromJson(text, path));
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.status().kind(), kind) << m.status().ToString();
    EXPECT_NE(m.status().message().find(path), std::string::npos) << m.status().ToString();
  };
  expect_error("", StatusKind::kCorruption);
  expect_error("{\"format-version\": 2", StatusKind::kCorruption);
  expect_error("[2]", StatusKind::kCorruption);

  json v1 = valid;
  v1["format-version"] = 1;
  expect_error(v1.dump(), StatusKind::kNotSupported);
  json v3 = valid;
  v3["format-version"] = 3;
  expect_error(v3.dump(), StatusKind::kNotSupported);

  // Integers must be integers that fit: a float (once beyond int64 a
  // conversion with undefined behaviour, a fuzz finding), a string or an
  // unsigned number past the signed range is damage, not a truncated value.
  for (const json& bad : {json(3.69247e19), json(1.5), json("12"), json(uint64_t{1} << 63)}) {
    SCOPED_TRACE(bad.dump());
    json wrong = valid;
    wrong["snapshots"][0]["snapshot-id"] = bad;
    expect_error(wrong.dump(), StatusKind::kCorruption);
    json wrong_id = valid;
    wrong_id["last-column-id"] = bad;
    expect_error(wrong_id.dump(), StatusKind::kCorruption);
    // Optional members too (a snapshot's sequence number, a schema's id).
    json wrong_sequence = valid;
    wrong_sequence["snapshots"][0]["sequence-number"] = bad;
    expect_error(wrong_sequence.dump(), StatusKind::kCorruption);
    json wrong_schema = valid;
    wrong_schema["schemas"][0]["schema-id"] = bad;
    expect_error(wrong_schema.dump(), StatusKind::kCorruption);
  }
  json wide = valid;
  wide["last-column-id"] = int64_t{1} << 40;  // an int
  expect_error(wide.dump(), StatusKind::kCorruption);

  for (const char* required : {"format-version", "table-uuid", "location", "last-sequence-number", "last-updated-ms",
                               "last-column-id", "current-schema-id", "schemas"}) {
    SCOPED_TRACE(required);
    json missing = valid;
    missing.erase(required);
    expect_error(missing.dump(), StatusKind::kCorruption);
  }

  json wrong_type = valid;
  wrong_type["last-column-id"] = "three";
  expect_error(wrong_type.dump(), StatusKind::kCorruption);

  json unlisted = valid;
  unlisted["current-snapshot-id"] = 999;
  expect_error(unlisted.dump(), StatusKind::kCorruption);

  json no_schema = valid;
  no_schema["current-schema-id"] = 4;
  expect_error(no_schema.dump(), StatusKind::kCorruption);

  json bad_schema = valid;
  bad_schema["schemas"][0].erase("fields");
  expect_error(bad_schema.dump(), StatusKind::kCorruption);

  json bad_field = valid;
  bad_field["schemas"][0]["fields"][0]["id"] = "one";
  expect_error(bad_field.dump(), StatusKind::kCorruption);

  json bad_snapshot = valid;
  bad_snapshot["snapshots"][0].erase("snapshot-id");
  expect_error(bad_snapshot.dump(), StatusKind::kCorruption);

  json bad_log = valid;
  bad_log["snapshot-log"][0].erase("snapshot-id");
  expect_error(bad_log.dump(), StatusKind::kCorruption);
}

TEST(TableMetadataTest, RandomUuidIsVersion4) {
  const std::regex canonical("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    std::string uuid = RandomUuid();
    ASSERT_EQ(uuid.size(), 36u) << uuid;
    ASSERT_TRUE(std::regex_match(uuid, canonical)) << uuid;
    seen.insert(uuid);
  }
  EXPECT_EQ(seen.size(), 1000u);
}

TEST(TableMetadataTest, RandomSnapshotIdIsPositiveAndDistinct) {
  std::set<int64_t> seen;
  for (int i = 0; i < 1000; ++i) {
    int64_t id = RandomSnapshotId();
    ASSERT_GT(id, 0);
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 1000u);
}

TEST(TableMetadataTest, MetadataFilePath) {
  const std::regex expected(
      "^/warehouse/t/metadata/00003-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"
      "\\.metadata\\.json$");
  std::string path = MetadataFilePath("/warehouse/t", 3);
  EXPECT_TRUE(std::regex_match(path, expected)) << path;
  EXPECT_NE(MetadataFilePath("/warehouse/t", 3), path);
  EXPECT_EQ(MetadataFileVersion(path), 3);
  EXPECT_EQ(MetadataFileVersion(MetadataFilePath("s3://b/t", 0)), 0);
  EXPECT_EQ(MetadataFileVersion(MetadataFilePath("s3://b/t", 123456)), 123456);
}

TEST(TableMetadataTest, MetadataFileVersion) {
  EXPECT_EQ(MetadataFileVersion("00003-0b7e4c6a-1d1f-4b43-9a56-2f8a6c0b1234.metadata.json"), 3);
  EXPECT_EQ(MetadataFileVersion("/w/t/metadata/00003-0b7e4c6a-1d1f-4b43-9a56-2f8a6c0b1234.metadata.json"), 3);
  EXPECT_EQ(MetadataFileVersion("/w/t-1/metadata/00012-u.metadata.json"), 12);
  EXPECT_EQ(MetadataFileVersion("00000-u.metadata.json"), 0);
  EXPECT_EQ(MetadataFileVersion("v3.metadata.json"), -1);
  EXPECT_EQ(MetadataFileVersion("/w/00003-x/v3.metadata.json"), -1);
  EXPECT_EQ(MetadataFileVersion("-u.metadata.json"), -1);
  EXPECT_EQ(MetadataFileVersion("0a003-u.metadata.json"), -1);
  EXPECT_EQ(MetadataFileVersion("00003-u.metadata.json.tmp"), -1);
  EXPECT_EQ(MetadataFileVersion("00003-u.json"), -1);
  EXPECT_EQ(MetadataFileVersion("snap-00003-u.avro"), -1);
  EXPECT_EQ(MetadataFileVersion(""), -1);
  EXPECT_EQ(MetadataFileVersion("99999999999999999999-u.metadata.json"), -1);
}

}  // namespace
}  // namespace cqlite::iceberg
