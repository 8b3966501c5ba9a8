#include "source/table_sstables.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_paths.h"

namespace cqlite {
namespace {

constexpr const char* kSchema =
    "CREATE TABLE shop.orders (customer text, placed_at timestamp, total int, "
    "PRIMARY KEY (customer, placed_at));\n";

TEST(TableSSTablesTest, ATableDirectoryWithoutSSTablesIsAnEmptyTable) {
  MemoryFileSystem fs;
  fs.AddFile("/data/shop/schema.cql", kSchema);
  ASSERT_TRUE(fs.CreateDirectories("/data/shop/orders-c85b1a00ebce11f1ba4d733417774d07").ok());
  auto table = OpenTableSSTables(fs, "/data/shop/orders-c85b1a00ebce11f1ba4d733417774d07", "");
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_TRUE(table->sstables.empty());
  EXPECT_EQ(table->schema.table.table, "orders");
  EXPECT_EQ(table->schema.table.columns.size(), 3u);
  EXPECT_EQ(table->schema.origin, SchemaOrigin::kSnapshotSchema);
}

TEST(TableSSTablesTest, AnEmptyTableNeedsASchema) {
  MemoryFileSystem fs;
  ASSERT_TRUE(fs.CreateDirectories("/data/shop/orders-c85b1a00ebce11f1ba4d733417774d07").ok());
  auto table = OpenTableSSTables(fs, "/data/shop/orders-c85b1a00ebce11f1ba4d733417774d07", "");
  ASSERT_FALSE(table.ok());
  EXPECT_EQ(table.status().kind(), StatusKind::kNotFound);
  EXPECT_NE(table.status().ToString().find("no schema for shop.orders"), std::string::npos)
      << table.status().ToString();
}

TEST(TableSSTablesTest, AnyOtherDirectoryWithoutSSTablesIsRefused) {
  MemoryFileSystem fs;
  fs.AddFile("/data/shop/schema.cql", kSchema);
  ASSERT_TRUE(fs.CreateDirectories("/data/shop/orders").ok());
  auto table = OpenTableSSTables(fs, "/data/shop/orders", "");
  ASSERT_FALSE(table.ok());
  EXPECT_NE(table.status().ToString().find("no SSTable"), std::string::npos) << table.status().ToString();
}

// A table directory of a live node, with a snapshot of an earlier state: the
// example table's two generations (written by Cassandra 5.0, with its
// schema.cql) in the table
// directory, the first of them also in snapshots/before/.
TEST(TableSSTablesTest, ATableDirectoryIsItsOwnSSTablesNotItsSnapshots) {
  const std::string source = std::string(CQLITE_SOURCE_DIR) + "/examples/data/shop/orders-c85b1a00ebce11f1ba4d733417774d07";
  const std::string table_dir = "/data/shop/orders-c85b1a00ebce11f1ba4d733417774d07";
  auto read = [](const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
  };
  MemoryFileSystem fs;
  fs.AddFile("/data/shop/schema.cql", read(std::filesystem::path(source).parent_path() / "schema.cql"));
  for (const auto& entry : std::filesystem::directory_iterator(source)) {
    std::string name = entry.path().filename().string();
    std::string bytes = read(entry.path());
    fs.AddFile(table_dir + "/" + name, bytes);
    if (name.rfind("oa-1-", 0) == 0) fs.AddFile(table_dir + "/snapshots/before/" + name, bytes);
  }
  auto table = OpenTableSSTables(fs, table_dir, "");
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  ASSERT_EQ(table->sstables.size(), 2u);
  for (const auto& sstable : table->sstables) EXPECT_EQ(sstable->location().directory, table_dir);
  auto snapshot = OpenTableSSTables(fs, table_dir + "/snapshots/before", "");
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  EXPECT_EQ(snapshot->sstables.size(), 1u);
  // A path ending in '/' (as a shell completes it) is the same table, not
  // a table directory without SSTables of its own.
  auto slashed = OpenTableSSTables(fs, table_dir + "/", "");
  ASSERT_TRUE(slashed.ok()) << slashed.status().ToString();
  ASSERT_EQ(slashed->sstables.size(), 2u);
  for (const auto& sstable : slashed->sstables) EXPECT_EQ(sstable->location().directory, table_dir);
}

}  // namespace
}  // namespace cqlite
