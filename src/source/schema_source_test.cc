#include "source/schema_source.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "test_paths.h"

namespace cqlite {
namespace {

CqlTypePtr T(const char* marshal) { return *ParseMarshalType(marshal); }

SerializationHeader OrdersHeader() {
  SerializationHeader h;
  h.partition_key_type = T("org.apache.cassandra.db.marshal.UTF8Type");
  h.clustering_types = {T("org.apache.cassandra.db.marshal.ReversedType(org.apache.cassandra.db.marshal.TimestampType)")};
  h.static_columns = {{"note", T("org.apache.cassandra.db.marshal.UTF8Type")}};
  h.regular_columns = {{"total", T("org.apache.cassandra.db.marshal.DecimalType")},
                       {"tags", T("org.apache.cassandra.db.marshal.SetType(org.apache.cassandra.db.marshal.UTF8Type)")}};
  return h;
}

TableSchema Orders(const char* total_type) {
  TableSchema s;
  s.keyspace = "shop";
  s.table = "orders";
  auto parse = [](const char* cql) { return *ParseMarshalType(cql); };
  s.columns = {{"customer", parse("org.apache.cassandra.db.marshal.UTF8Type"), ColumnKind::kPartitionKey, 0, false},
               {"placed_at", parse("org.apache.cassandra.db.marshal.TimestampType"), ColumnKind::kClustering, 0, true},
               {"note", parse("org.apache.cassandra.db.marshal.UTF8Type"), ColumnKind::kStatic, -1, false},
               {"total", parse(total_type), ColumnKind::kRegular, -1, false},
               {"tags", parse("org.apache.cassandra.db.marshal.SetType(org.apache.cassandra.db.marshal.UTF8Type)"),
                ColumnKind::kRegular, -1, false}};
  return s;
}

TEST(SchemaSourceTest, AMatchingSchemaPasses) {
  EXPECT_TRUE(CheckSchemaAgainstHeader(Orders("org.apache.cassandra.db.marshal.DecimalType"), OrdersHeader(),
                                       "x-Statistics.db")
                  .ok());
}

TEST(SchemaSourceTest, AContradictingTypeIsNamed) {
  Status s = CheckSchemaAgainstHeader(Orders("org.apache.cassandra.db.marshal.Int32Type"), OrdersHeader(),
                                      "x-Statistics.db");
  EXPECT_EQ(s.kind(), StatusKind::kInvalidArgument);
  EXPECT_NE(s.message().find("x-Statistics.db"), std::string::npos);
  EXPECT_NE(s.message().find("column total"), std::string::npos) << s.message();
}

TEST(SchemaSourceTest, ClusteringOrderMustAgree) {
  TableSchema schema = Orders("org.apache.cassandra.db.marshal.DecimalType");
  schema.columns[1].reversed = false;
  Status s = CheckSchemaAgainstHeader(schema, OrdersHeader(), "x-Statistics.db");
  EXPECT_NE(s.message().find("placed_at"), std::string::npos) << s.message();
}

TEST(SchemaSourceTest, AnUnknownColumnNeedsADrop) {
  TableSchema schema = Orders("org.apache.cassandra.db.marshal.DecimalType");
  schema.columns.pop_back();  // no "tags"
  EXPECT_FALSE(CheckSchemaAgainstHeader(schema, OrdersHeader(), "x").ok());
  schema.dropped_columns.push_back({"tags", nullptr, false, 1000});
  EXPECT_TRUE(CheckSchemaAgainstHeader(schema, OrdersHeader(), "x").ok());
}

TEST(SchemaSourceTest, HeaderSchemaNamesKeysLikeCassandra) {
  TableSchema s = SchemaFromHeader(OrdersHeader(), "shop", "orders");
  ASSERT_EQ(s.columns.size(), 5u);
  EXPECT_EQ(s.columns[0].name, "key");
  EXPECT_EQ(s.columns[1].name, "column1");
  EXPECT_TRUE(s.columns[1].reversed);
  EXPECT_TRUE(CheckSchemaAgainstHeader(s, OrdersHeader(), "x").ok());
}

TEST(SchemaSourceTest, ReadsSystemSchemaOfACassandra3DataDirectory) {
  std::filesystem::path root = std::filesystem::path(CQLITE_SHARED_DIR) / "cassandra-fixtures" /
                               "pcass-cassandra-3.0.29" / "cassandra3_data_want";
  if (!std::filesystem::exists(root)) GTEST_SKIP() << "SKIPPED: shared fixtures not found at " << root;
  auto found = FindSSTables(LocalFileSystem(), (root / "sina_test").string());
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  const SSTableLocation* songs = nullptr;
  for (const auto& l : *found) {
    if (l.table == "songs") songs = &l;
  }
  ASSERT_NE(songs, nullptr);
  auto sstable = SSTable::Open(LocalFileSystem(), *songs);
  ASSERT_TRUE(sstable.ok()) << sstable.status().ToString();
  auto schema = ResolveTableSchema(LocalFileSystem(), *songs, {sstable->get()}, "");
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  EXPECT_EQ(schema->origin, SchemaOrigin::kSystemSchema);
  // The README of the fixture: info frozen<band_info_type>, tags frozen<tags>.
  const ColumnSchema* info = schema->table.FindColumn("info");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->type->kind, CqlKind::kUdt);
  EXPECT_TRUE(info->type->frozen);
  EXPECT_EQ(info->type->udt_name, "band_info_type");
  const ColumnSchema* tags = schema->table.FindColumn("tags");
  ASSERT_NE(tags, nullptr);
  EXPECT_TRUE(tags->type->frozen);
  EXPECT_EQ(schema->table.PartitionKeyColumns().size(), 1u);
}

TEST(SchemaSourceTest, CandidatesOfASnapshotReachItsKeyspaceAndDataDirectory) {
  auto location = TableDirectoryLocation("/d/shop/orders-c85b1a00ebce11f1ba4d733417774d07");
  ASSERT_TRUE(location.has_value());
  location->directory += "/snapshots/tag";
  std::vector<SchemaCandidate> candidates = SchemaCandidates(*location, "");
  std::vector<std::string> paths;
  for (const SchemaCandidate& c : candidates) paths.push_back(c.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"/d/shop/orders-c85b1a00ebce11f1ba4d733417774d07/snapshots/tag/schema.cql",
                                             "/d/shop/orders-c85b1a00ebce11f1ba4d733417774d07/schema.cql",
                                             "/d/shop/schema.cql", "/d"}));
  EXPECT_EQ(candidates.back().origin, SchemaOrigin::kSystemSchema);
  // --schema is the one place then.
  candidates = SchemaCandidates(*location, "/elsewhere/orders.cql");
  ASSERT_EQ(candidates.size(), 1u);
  EXPECT_EQ(candidates[0].origin, SchemaOrigin::kSchemaFile);
}

TEST(SchemaSourceTest, ATableOfTheExampleKeyspaceIsDeclaredByTheKeyspacesSchemaCql) {
  auto found = FindSSTables(LocalFileSystem(), CQLITE_SOURCE_DIR "/examples/data/shop");
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  std::vector<std::unique_ptr<SSTable>> orders;
  std::vector<const SSTable*> generations;
  for (const SSTableLocation& l : *found) {
    if (l.table != "orders") continue;
    auto sstable = SSTable::Open(LocalFileSystem(), l);
    ASSERT_TRUE(sstable.ok()) << sstable.status().ToString();
    generations.push_back(sstable->get());
    orders.push_back(std::move(*sstable));
  }
  ASSERT_EQ(generations.size(), 2u);
  auto schema = ResolveTableSchema(LocalFileSystem(), generations[0]->location(), generations, "");
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  EXPECT_EQ(schema->origin, SchemaOrigin::kSnapshotSchema);
  EXPECT_EQ(schema->origin_path, CQLITE_SOURCE_DIR "/examples/data/shop/schema.cql");
  ASSERT_EQ(schema->table.PartitionKeyColumns().size(), 1u);
  EXPECT_EQ(schema->table.PartitionKeyColumns()[0]->name, "customer");
  // Without any declared schema, every generation's header adds its columns.
  auto without = ResolveTableSchema(LocalFileSystem(), *TableDirectoryLocation("/nowhere/shop/orders-c85b1a00ebce11f1ba4d733417774d07"), generations, "");
  ASSERT_TRUE(without.ok()) << without.status().ToString();
  EXPECT_EQ(without->origin, SchemaOrigin::kSerializationHeader);
  EXPECT_EQ(without->table.PartitionKeyColumns()[0]->name, "key");
  for (const SSTable* g : generations) EXPECT_TRUE(CheckSchemaAgainstHeader(without->table, g->header(), "x").ok());
  // No SSTable and no schema: nothing to tell.
  auto none = ResolveTableSchema(LocalFileSystem(), *TableDirectoryLocation("/nowhere/shop/orders-c85b1a00ebce11f1ba4d733417774d07"), {}, "");
  EXPECT_EQ(none.status().kind(), StatusKind::kNotFound);
}

}  // namespace
}  // namespace cqlite
