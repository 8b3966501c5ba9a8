#include "watch/staging.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "source/table_sstables.h"
#include "io/temp_dir_testing.h"
#include "util/strings.h"
#include "watch/generation_scan.h"
#include "test_paths.h"

namespace cqlite::watch {
namespace {

namespace stdfs = std::filesystem;

// Each column as "name type kind", and each dropped column, in order.
std::string Columns(const TableSchema& schema) {
  std::string out;
  for (const ColumnSchema& c : schema.columns) {
    out += StrCat(c.name, " ", c.type->ToCql(), " ", ColumnKindName(c.kind), c.reversed ? " desc" : "", "; ");
  }
  for (const DroppedColumnSchema& d : schema.dropped_columns) out += StrCat("dropped ", d.name, "; ");
  return out;
}

// The table directory of `table` under `keyspace_dir`.
std::string TableDir(const std::string& keyspace_dir, const std::string& table) {
  for (const auto& entry : stdfs::directory_iterator(keyspace_dir)) {
    if (entry.is_directory() && StartsWith(entry.path().filename().string(), table + "-")) {
      return entry.path().string();
    }
  }
  return "";
}

// Stages `table_dir` (of the data directory `data`) as the watcher does, and
// returns the staged table directory.
std::string Stage(const std::string& data, const std::string& table_dir, const std::string& stage_root) {
  FileSystem& fs = LocalFileSystem();
  std::string staged = JoinPath(stage_root, table_dir.substr(data.size() + 1));
  auto scan = ScanTableDirectory(fs, table_dir);
  EXPECT_TRUE(scan.ok()) << scan.status().ToString();
  Status staged_generations = StageGenerations(fs, table_dir, scan->complete, staged);
  EXPECT_TRUE(staged_generations.ok()) << staged_generations.ToString();
  Status staged_schema = StageSchemaSources(fs, table_dir, stage_root);
  EXPECT_TRUE(staged_schema.ok()) << staged_schema.ToString();
  return staged;
}

// The staged table resolves the schema the live one does, from the same
// kind of source.
void ExpectSameSchema(const std::string& live, const std::string& staged, SchemaOrigin origin) {
  auto from_live = OpenTableSSTables(LocalFileSystem(), live, "");
  ASSERT_TRUE(from_live.ok()) << from_live.status().ToString();
  auto from_staged = OpenTableSSTables(LocalFileSystem(), staged, "");
  ASSERT_TRUE(from_staged.ok()) << from_staged.status().ToString();
  EXPECT_EQ(from_live->schema.origin, origin) << from_live->schema.Describe();
  EXPECT_EQ(from_staged->schema.origin, origin) << from_staged->schema.Describe();
  EXPECT_EQ(Columns(from_staged->schema.table), Columns(from_live->schema.table));
}

TEST(StagingTest, AStagedTableResolvesItsKeyspacesSchemaCql) {
  TempDir dir("cqlite-staging-test");
  std::string data = JoinPath(dir.path(), "data");
  stdfs::create_directories(data);
  stdfs::copy(CQLITE_SOURCE_DIR "/examples/data/shop", JoinPath(data, "shop"), stdfs::copy_options::recursive);
  std::string live = TableDir(JoinPath(data, "shop"), "orders");
  std::string stage_root = JoinPath(dir.path(), "stage");
  std::string staged = Stage(data, live, stage_root);
  EXPECT_TRUE(stdfs::exists(JoinPath(stage_root, "shop/schema.cql")));
  ExpectSameSchema(live, staged, SchemaOrigin::kSnapshotSchema);
  auto from_staged = OpenTableSSTables(LocalFileSystem(), staged, "");
  ASSERT_TRUE(from_staged.ok()) << from_staged.status().ToString();
  EXPECT_NE(Columns(from_staged->schema.table).find("customer text partition_key; placed_at timestamp clustering desc; "
                                                    "order_id uuid clustering; "),
            std::string::npos)
      << Columns(from_staged->schema.table);
}

TEST(StagingTest, AStagedTableResolvesItsOwnSchemaCql) {
  TempDir dir("cqlite-staging-test");
  std::string data = JoinPath(dir.path(), "data");
  stdfs::create_directories(data);
  stdfs::copy(CQLITE_SOURCE_DIR "/examples/data/shop", JoinPath(data, "shop"), stdfs::copy_options::recursive);
  std::string live = TableDir(JoinPath(data, "shop"), "price_points");
  // The table's own schema.cql comes first: the keyspace's is moved away
  // and a table-level one written with other names.
  stdfs::remove(JoinPath(data, "shop/schema.cql"));
  ASSERT_TRUE(LocalFileSystem()
                  .WriteStringToFile(JoinPath(live, "schema.cql"),
                                     "CREATE TABLE shop.price_points (sku int, store text, price decimal, "
                                     "in_stock boolean, seen_at timestamp, PRIMARY KEY ((sku, store), price));\n")
                  .ok());
  std::string stage_root = JoinPath(dir.path(), "stage");
  std::string staged = Stage(data, live, stage_root);
  EXPECT_TRUE(stdfs::exists(JoinPath(staged, "schema.cql")));
  EXPECT_FALSE(stdfs::exists(JoinPath(stage_root, "shop/schema.cql")));
  ExpectSameSchema(live, staged, SchemaOrigin::kSnapshotSchema);
}

TEST(StagingTest, AStagedTableResolvesTheDataDirectorysSystemSchema) {
  stdfs::path root = stdfs::path(CQLITE_SHARED_DIR) / "cassandra-fixtures" / "pcass-cassandra-3.0.29" /
                     "cassandra3_data_want";
  if (!stdfs::exists(root)) GTEST_SKIP() << "SKIPPED: shared fixtures not found at " << root;
  TempDir dir("cqlite-staging-test");
  std::string data = JoinPath(dir.path(), "data");
  stdfs::create_directories(data);
  stdfs::copy(root / "system_schema", JoinPath(data, "system_schema"), stdfs::copy_options::recursive);
  stdfs::copy(root / "sina_test", JoinPath(data, "sina_test"), stdfs::copy_options::recursive);
  std::string live = TableDir(JoinPath(data, "sina_test"), "songs");
  std::string stage_root = JoinPath(dir.path(), "stage");
  std::string staged = Stage(data, live, stage_root);
  ExpectSameSchema(live, staged, SchemaOrigin::kSystemSchema);
}

TEST(StagingTest, OnlyTableDirectoriesHaveSchemaSources) {
  TempDir dir("cqlite-staging-test");
  Status s = StageSchemaSources(LocalFileSystem(), dir.path(), JoinPath(dir.path(), "stage"));
  EXPECT_EQ(s.kind(), StatusKind::kInvalidArgument) << s.ToString();
}

}  // namespace
}  // namespace cqlite::watch
