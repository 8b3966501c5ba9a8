#include "source/schema_change.h"

#include <gtest/gtest.h>

#include "cassandra/cql_schema.h"
#include "source/schema_source.h"

namespace cqlite {
namespace {

constexpr const char* kAddress = "CREATE TYPE shop.address (street text, city text);\n";
constexpr const char* kOrders =
    "CREATE TABLE shop.orders (customer text, placed_at timestamp, total decimal, ship_to frozen<address>, "
    "PRIMARY KEY (customer, placed_at)) WITH CLUSTERING ORDER BY (placed_at DESC);\n";

TableSchema Parse(const std::string& cql) {
  auto tables = ParseCqlSchema(cql);
  EXPECT_TRUE(tables.ok()) << tables.status().ToString();
  EXPECT_EQ(tables->size(), 1u);
  return tables->front();
}

TEST(SchemaChangeTest, TheSameSchemaIsNoChange) {
  EXPECT_EQ(DescribeSchemaChange(Parse(std::string(kAddress) + kOrders), Parse(std::string(kAddress) + kOrders)), "");
}

TEST(SchemaChangeTest, ColumnsAddedDroppedAndRetyped) {
  TableSchema before = Parse(std::string(kAddress) + kOrders);
  TableSchema after = Parse(std::string(kAddress) +
                            "CREATE TABLE shop.orders (customer text, placed_at timestamp, total varint, "
                            "note text, PRIMARY KEY (customer, placed_at)) WITH CLUSTERING ORDER BY (placed_at DESC);");
  EXPECT_EQ(DescribeSchemaChange(before, after),
            "column total type decimal now varint, column note (text) added, column ship_to (frozen<address>) dropped");
}

TEST(SchemaChangeTest, KeyColumnsRenamed) {
  TableSchema before = Parse(std::string(kAddress) + kOrders);
  TableSchema after = Parse(std::string(kAddress) +
                            "CREATE TABLE shop.orders (buyer text, placed_at timestamp, total decimal, "
                            "ship_to frozen<address>, PRIMARY KEY (buyer, placed_at)) "
                            "WITH CLUSTERING ORDER BY (placed_at DESC);");
  EXPECT_EQ(DescribeSchemaChange(before, after), "column customer renamed to buyer");
}

TEST(SchemaChangeTest, AHeaderSchemaReplacedByADeclaredOne) {
  TableSchema declared = Parse(std::string(kAddress) + kOrders);
  SerializationHeader header;
  header.partition_key_type = *ParseMarshalType("org.apache.cassandra.db.marshal.UTF8Type");
  header.clustering_types = {*ParseMarshalType(
      "org.apache.cassandra.db.marshal.ReversedType(org.apache.cassandra.db.marshal.TimestampType)")};
  header.regular_columns = {{"total", *ParseMarshalType("org.apache.cassandra.db.marshal.DecimalType")}};
  TableSchema from_header = SchemaFromHeader(header, "shop", "orders");
  EXPECT_EQ(DescribeSchemaChange(from_header, declared),
            "column key renamed to customer, column column1 renamed to placed_at, column ship_to (frozen<address>) "
            "added");
}

TEST(SchemaChangeTest, UserTypeFieldsAddedAndRenamed) {
  TableSchema before = Parse(std::string(kAddress) + kOrders);
  TableSchema after = Parse(std::string("CREATE TYPE shop.address (street text, town text, zone int);\n") + kOrders);
  EXPECT_EQ(DescribeSchemaChange(before, after),
            "user type shop.address: field city renamed to town, field zone (int) added");
}

}  // namespace
}  // namespace cqlite
