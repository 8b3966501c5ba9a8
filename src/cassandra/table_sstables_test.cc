#include "cassandra/table_sstables.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace cqlite
