#include "watch/orphans.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "catalog/sql_catalog.h"
#include "io/temp_dir_testing.h"
#include "materialize/materializer.h"
#include "util/strings.h"
#include "test_paths.h"

namespace cqlite::watch {
namespace {

namespace stdfs = std::filesystem;

constexpr char kExampleTable[] = CQLITE_SOURCE_DIR "/examples/data/shop/orders-c85b1a00ebce11f1ba4d733417774d07";

TEST(OrphansTest, RemovesOnlyDataFilesNoSnapshotReferences) {
  TempDir dir("cqlite-orphans-test");
  const std::string& root = dir.path();
  FileSystem& fs = LocalFileSystem();
  // The example table, and its schema.cql, as a table directory of their own.
  std::string table_dir = JoinPath(root, "shop/orders-c85b1a00ebce11f1ba4d733417774d07");
  stdfs::create_directories(table_dir);
  for (const auto& entry : stdfs::directory_iterator(kExampleTable)) {
    if (entry.is_regular_file()) stdfs::copy_file(entry.path(), JoinPath(table_dir, entry.path().filename()));
  }
  stdfs::copy_file(CQLITE_SOURCE_DIR "/examples/data/shop/schema.cql", JoinPath(root, "shop/schema.cql"));
  std::string warehouse = JoinPath(root, "warehouse");
  auto catalog = catalog::SqlCatalog::Open(JoinPath(root, "catalog.db"));
  ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();

  auto none = RemoveUnreferencedDataFiles(fs, **catalog, "shop", "orders");
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_EQ(*none, 0);  // no table yet

  materialize::MaterializeOptions options;
  options.warehouse = warehouse;
  options.now_seconds = 1'800'000'000;
  auto report = materialize::MaterializeTable(fs, **catalog, table_dir, options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_TRUE(report->committed);
  std::string data = JoinPath(warehouse, "shop/orders/data");
  std::vector<std::string> committed;
  for (const auto& entry : stdfs::directory_iterator(data)) committed.push_back(entry.path().string());
  ASSERT_FALSE(committed.empty());
  // What a run killed before its commit leaves.
  for (const char* name : {"killed-0.parquet", "killed-deletes-0-0.parquet"}) {
    ASSERT_TRUE(fs.WriteStringToFile(JoinPath(data, name), "PAR1").ok());
  }
  ASSERT_TRUE(fs.WriteStringToFile(JoinPath(data, "notes.txt"), "not a data file").ok());
  auto removed = RemoveUnreferencedDataFiles(fs, **catalog, "shop", "orders");
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  EXPECT_EQ(*removed, 2);
  for (const std::string& path : committed) EXPECT_TRUE(fs.Exists(path)) << path;
  EXPECT_FALSE(fs.Exists(JoinPath(data, "killed-0.parquet")));
  EXPECT_TRUE(fs.Exists(JoinPath(data, "notes.txt")));
}

}  // namespace
}  // namespace cqlite::watch
