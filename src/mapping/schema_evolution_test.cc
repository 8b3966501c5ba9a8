#include "mapping/schema_evolution.h"

#include <gtest/gtest.h>

#include "cassandra/cql_schema.h"

namespace cqlite::materialize {
namespace {

TableSchema Table(const std::string& cql) {
  auto tables = ParseCqlSchema(cql);
  EXPECT_TRUE(tables.ok()) << tables.status().ToString();
  return tables->back();
}

TableMapping Mapped(const TableSchema& table) {
  auto mapping = MapTable(table, MappingOptions{});
  EXPECT_TRUE(mapping.ok()) << mapping.status().ToString();
  return *mapping;
}

const iceberg::NestedField* Field(const iceberg::Schema& schema, const std::string& name) {
  for (const iceberg::NestedField& f : schema.fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

Result<SchemaEvolution> Evolve(const iceberg::Schema& current, int32_t last, const std::string& cql,
                               std::optional<ColumnDrops> seen = ColumnDrops{}) {
  TableSchema table = Table(cql);
  return EvolveMapping(Mapped(table), table, current, last, seen, "ks.t");
}

constexpr char kCreate[] =
    "CREATE TYPE ks.addr (street text, city text);"
    "CREATE TABLE ks.t (k int, c int, v text, home frozen<addr>, tags list<int>, PRIMARY KEY (k, c));";

TEST(EvolveMappingTest, AnUnchangedTableKeepsItsSchema) {
  TableMapping first = Mapped(Table(kCreate));
  auto evolved = Evolve(first.schema, first.schema.HighestFieldId(), kCreate);
  ASSERT_TRUE(evolved.ok()) << evolved.status().ToString();
  EXPECT_TRUE(iceberg::SameStructure(evolved->mapping.schema, first.schema));
  EXPECT_TRUE(evolved->changes.empty());
  EXPECT_TRUE(evolved->dropped.empty());
}

TEST(EvolveMappingTest, AddedColumnsGetNewIdsAndOldFieldsKeepTheirs) {
  TableMapping first = Mapped(Table(kCreate));
  const int32_t last = first.schema.HighestFieldId();
  auto evolved = Evolve(first.schema, last,
                        std::string(kCreate) + "ALTER TABLE ks.t ADD a_note text; ALTER TABLE ks.t ADD m map<text, int>;");
  ASSERT_TRUE(evolved.ok()) << evolved.status().ToString();
  const iceberg::Schema& schema = evolved->mapping.schema;
  for (const iceberg::NestedField& old : first.schema.fields) {
    const iceberg::NestedField* now = Field(schema, old.name);
    ASSERT_NE(now, nullptr) << old.name;
    EXPECT_EQ(now->id, old.id) << old.name;
    EXPECT_TRUE(iceberg::SameStructure(iceberg::Schema{0, {*now}, {}}, iceberg::Schema{0, {old}, {}})) << old.name;
  }
  // a_note sorts before the old columns: its place changes, not their ids.
  const iceberg::NestedField* note = Field(schema, "a_note");
  const iceberg::NestedField* map = Field(schema, "m");
  ASSERT_TRUE(note && map);
  EXPECT_GT(note->id, last);
  EXPECT_GT(map->type->fields[0].id, last);
  EXPECT_GT(map->type->fields[1].id, last);
  EXPECT_EQ(evolved->last_column_id, schema.HighestFieldId());
  EXPECT_EQ(schema.identifier_field_ids, first.schema.identifier_field_ids);
  EXPECT_EQ(evolved->changes.size(), 2u);
  EXPECT_TRUE(evolved->dropped.empty());
}

TEST(EvolveMappingTest, ADroppedColumnLeavesAndComesBackAsANewField) {
  TableMapping first = Mapped(Table(kCreate));
  const int32_t last = first.schema.HighestFieldId();
  const std::string dropped = std::string(kCreate) + "ALTER TABLE ks.t DROP v USING TIMESTAMP 1000;";
  auto after_drop = Evolve(first.schema, last, dropped);
  ASSERT_TRUE(after_drop.ok()) << after_drop.status().ToString();
  EXPECT_EQ(Field(after_drop->mapping.schema, "v"), nullptr);
  EXPECT_EQ(after_drop->dropped, std::vector<std::string>{"v"});

  // Added again after a drop the table has not taken in: a new field.
  const std::string again = dropped + "ALTER TABLE ks.t ADD v text;";
  auto readded = Evolve(first.schema, last, again, ColumnDrops{});
  ASSERT_TRUE(readded.ok()) << readded.status().ToString();
  EXPECT_GT(Field(readded->mapping.schema, "v")->id, last);
  EXPECT_EQ(readded->dropped, std::vector<std::string>{"v"});

  // The same schema once the drop was taken in (or never recorded): the same field.
  for (const std::optional<ColumnDrops>& seen : {std::optional<ColumnDrops>(ColumnDrops{{"v", 1000}}),
                                                 std::optional<ColumnDrops>()}) {
    auto same = Evolve(first.schema, last, again, seen);
    ASSERT_TRUE(same.ok()) << same.status().ToString();
    EXPECT_EQ(Field(same->mapping.schema, "v")->id, Field(first.schema, "v")->id);
    EXPECT_TRUE(same->dropped.empty());
  }
}

TEST(EvolveMappingTest, RenamedKeyColumnsAndUserTypeFieldsKeepTheirIds) {
  TableMapping first = Mapped(Table(kCreate));
  const int32_t last = first.schema.HighestFieldId();
  auto evolved = Evolve(first.schema, last,
                        "CREATE TYPE ks.addr (street text, town text, zip int);"
                        "CREATE TABLE ks.t (k int, cc int, v text, home frozen<addr>, tags list<int>, "
                        "PRIMARY KEY (k, cc));");
  ASSERT_TRUE(evolved.ok()) << evolved.status().ToString();
  const iceberg::Schema& schema = evolved->mapping.schema;
  EXPECT_EQ(Field(schema, "cc")->id, Field(first.schema, "c")->id);
  const iceberg::NestedField* home = Field(schema, "home");
  const iceberg::NestedField* was = Field(first.schema, "home");
  ASSERT_EQ(home->type->fields.size(), 3u);
  EXPECT_EQ(home->type->fields[0].id, was->type->fields[0].id);
  EXPECT_EQ(home->type->fields[1].name, "town");
  EXPECT_EQ(home->type->fields[1].id, was->type->fields[1].id);
  EXPECT_GT(home->type->fields[2].id, last);
  EXPECT_EQ(schema.identifier_field_ids, first.schema.identifier_field_ids);
  EXPECT_EQ(evolved->changes.size(), 3u);  // c renamed, city renamed, zip added
}

TEST(EvolveMappingTest, ATypeIcebergCannotChangeIsAnErrorNamingTheColumn) {
  TableMapping first = Mapped(Table(kCreate));
  auto evolved = Evolve(first.schema, first.schema.HighestFieldId(),
                        "CREATE TYPE ks.addr (street text, city text);"
                        "CREATE TABLE ks.t (k int, c int, v int, home frozen<addr>, tags list<int>, "
                        "PRIMARY KEY (k, c));");
  ASSERT_FALSE(evolved.ok());
  EXPECT_EQ(evolved.status().kind(), StatusKind::kNotSupported);
  EXPECT_NE(evolved.status().message().find("ks.t: column v was string and is now int"), std::string::npos)
      << evolved.status().message();
}

TEST(ColumnDropsTest, RoundTripsAndRejectsWhatItDoesNotWrite) {
  ColumnDrops drops = {{"a", 5}, {"b@x", -7}};
  auto back = ColumnDropsFromString(ColumnDropsToString(drops), "here");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, drops);
  EXPECT_TRUE(ColumnDropsFromString("", "here")->empty());
  auto bad = ColumnDropsFromString("a@", "here");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("here"), std::string::npos);
}

}  // namespace
}  // namespace cqlite::materialize
