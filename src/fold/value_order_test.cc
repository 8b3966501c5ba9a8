#include "fold/value_order.h"

#include <gtest/gtest.h>

#include <string>

namespace cqlite {
namespace {

CqlTypePtr Type(std::string_view marshal) {
  auto type = ParseMarshalType(marshal);
  EXPECT_TRUE(type.ok()) << type.status().ToString();
  return *type;
}

std::string Bytes(std::initializer_list<int> bytes) {
  std::string out;
  for (int b : bytes) out.push_back(static_cast<char>(b));
  return out;
}

TEST(CompareValuesTest, IntegersCompareSigned) {
  auto type = Type("org.apache.cassandra.db.marshal.Int32Type");
  EXPECT_LT(CompareValues(*type, Bytes({0xff, 0xff, 0xff, 0xff}), Bytes({0, 0, 0, 1})), 0);  // -1 < 1
  EXPECT_GT(CompareValues(*type, Bytes({0, 0, 1, 0}), Bytes({0, 0, 0, 0xff})), 0);         // 256 > 255
  EXPECT_LT(CompareValues(*type, "", Bytes({0x80, 0, 0, 0})), 0);  // empty sorts first
}

// Vectors compare element by element (the order Cassandra writes vector
// clustering columns in), not as bytes: -1.5f is 0xbfc00000.
TEST(CompareValuesTest, VectorsCompareByElement) {
  auto floats = Type("org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType,2)");
  std::string minus = Bytes({0xbf, 0xc0, 0, 0, 0, 0, 0, 0});  // [-1.5, 0]
  std::string one = Bytes({0x3f, 0x80, 0, 0, 0, 0, 0, 0});    // [1.0, 0]
  std::string one_two = Bytes({0x3f, 0x80, 0, 0, 0x40, 0, 0, 0});  // [1.0, 2.0]
  EXPECT_LT(CompareValues(*floats, minus, one), 0);
  EXPECT_LT(CompareValues(*floats, one, one_two), 0);
  EXPECT_EQ(CompareValues(*floats, one, one), 0);
  auto texts = Type("org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.UTF8Type,2)");
  EXPECT_LT(CompareValues(*texts, Bytes({1, 'b', 1, 'a'}), Bytes({2, 'b', 'a', 1, 'a'})), 0);  // "b" < "ba"
}

TEST(CompareValuesTest, VarintsOfDifferentLengths) {
  auto type = Type("org.apache.cassandra.db.marshal.IntegerType");
  EXPECT_LT(CompareValues(*type, Bytes({0xff}), Bytes({0x01, 0x00})), 0);        // -1 < 256
  EXPECT_LT(CompareValues(*type, Bytes({0xfe, 0xff}), Bytes({0xff})), 0);        // -257 < -1
  EXPECT_EQ(CompareValues(*type, Bytes({0x00, 0x05}), Bytes({0x05})), 0);        // 5 == 5
  EXPECT_GT(CompareValues(*type, Bytes({0x7f}), Bytes({0x00, 0x7e})), 0);        // 127 > 126
}

TEST(CompareValuesTest, DecimalsIgnoreScale) {
  auto type = Type("org.apache.cassandra.db.marshal.DecimalType");
  std::string one_point_five = Bytes({0, 0, 0, 1, 15});      // 15e-1
  std::string one_point_fifty = Bytes({0, 0, 0, 2, 150});    // 150 is 0x96: negative as a varint
  std::string one_fifty_pos = Bytes({0, 0, 0, 2, 0, 150});   // 150e-2 = 1.5
  std::string two = Bytes({0, 0, 0, 0, 2});
  std::string minus_three = Bytes({0, 0, 0, 0, 0xfd});
  EXPECT_EQ(CompareValues(*type, one_point_five, one_fifty_pos), 0);
  EXPECT_LT(CompareValues(*type, one_point_fifty, one_point_five), 0);  // -1.06 < 1.5
  EXPECT_LT(CompareValues(*type, one_point_five, two), 0);
  EXPECT_LT(CompareValues(*type, minus_three, one_point_five), 0);
}

TEST(CompareValuesTest, DoublesFollowJavaCompare) {
  auto type = Type("org.apache.cassandra.db.marshal.DoubleType");
  std::string minus_zero = Bytes({0x80, 0, 0, 0, 0, 0, 0, 0});
  std::string zero = Bytes({0, 0, 0, 0, 0, 0, 0, 0});
  std::string nan = Bytes({0x7f, 0xf8, 0, 0, 0, 0, 0, 0});
  std::string infinity = Bytes({0x7f, 0xf0, 0, 0, 0, 0, 0, 0});
  std::string minus_one = Bytes({0xbf, 0xf0, 0, 0, 0, 0, 0, 0});
  EXPECT_LT(CompareValues(*type, minus_zero, zero), 0);
  EXPECT_GT(CompareValues(*type, nan, infinity), 0);
  EXPECT_LT(CompareValues(*type, minus_one, minus_zero), 0);
}

TEST(CompareValuesTest, TimeUuidsByTimestampThenSignedBytes) {
  auto type = Type("org.apache.cassandra.db.marshal.TimeUUIDType");
  // time_low differs in the first four bytes but time_hi dominates the order.
  std::string earlier = Bytes({0xff, 0xff, 0xff, 0xff, 0, 0, 0x11, 0xe0, 0, 0, 0, 0, 0, 0, 0, 0});
  std::string later = Bytes({0, 0, 0, 0, 0, 0, 0x11, 0xe1, 0, 0, 0, 0, 0, 0, 0, 0});
  EXPECT_LT(CompareValues(*type, earlier, later), 0);
  std::string low_negative = Bytes({0, 0, 0, 1, 0, 0, 0x11, 0xe1, 0x80, 0, 0, 0, 0, 0, 0, 0});
  std::string low_positive = Bytes({0, 0, 0, 1, 0, 0, 0x11, 0xe1, 0x7f, 0, 0, 0, 0, 0, 0, 0});
  EXPECT_LT(CompareValues(*type, low_negative, low_positive), 0);
  // UUIDType compares the low half unsigned instead.
  auto uuid = Type("org.apache.cassandra.db.marshal.UUIDType");
  EXPECT_GT(CompareValues(*uuid, low_negative, low_positive), 0);
}

TEST(CompareValuesTest, FrozenCollectionsElementByElement) {
  auto type = Type("org.apache.cassandra.db.marshal.ListType(org.apache.cassandra.db.marshal.Int32Type)");
  std::string list_2 = Bytes({0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 2});
  std::string list_10 = Bytes({0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 10});
  std::string list_2_1 = Bytes({0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 1});
  EXPECT_LT(CompareValues(*type, list_2, list_10), 0);
  EXPECT_LT(CompareValues(*type, list_2, list_2_1), 0);  // a prefix sorts first
}

TEST(CompareValuesTest, TuplesWithNullFields) {
  auto type = Type(
      "org.apache.cassandra.db.marshal.TupleType(org.apache.cassandra.db.marshal.Int32Type,"
      "org.apache.cassandra.db.marshal.Int32Type)");
  std::string null_first = Bytes({0xff, 0xff, 0xff, 0xff, 0, 0, 0, 4, 0, 0, 0, 1});
  std::string one_first = Bytes({0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 0});
  EXPECT_LT(CompareValues(*type, null_first, one_first), 0);
  std::string short_form = Bytes({0, 0, 0, 4, 0, 0, 0, 1});
  std::string trailing_null = Bytes({0, 0, 0, 4, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff});
  EXPECT_EQ(CompareValues(*type, short_form, trailing_null), 0);
}

FoldClustering Of(std::initializer_list<std::string> values) {
  FoldClustering c;
  c.values = values;
  c.present.assign(c.values.size(), true);
  return c;
}

TEST(ClusteringOrderTest, BoundsAroundTheClusteringsTheyPrefix) {
  auto text = Type("org.apache.cassandra.db.marshal.UTF8Type");
  ClusteringOrder order({text, text});
  FoldClustering a_x = Of({"a", "x"});
  FoldClustering prefix_a = Of({"a"});
  // An inclusive start at prefix (a) comes before (a, x); an inclusive end after it.
  EXPECT_LT(order.Compare(prefix_a, ClusteringKind::kInclStartBound, a_x, ClusteringKind::kClustering), 0);
  EXPECT_GT(order.Compare(prefix_a, ClusteringKind::kInclEndBound, a_x, ClusteringKind::kClustering), 0);
  EXPECT_GT(order.Compare(prefix_a, ClusteringKind::kExclStartBound, a_x, ClusteringKind::kClustering), 0);
  EXPECT_LT(order.Compare(prefix_a, ClusteringKind::kExclEndBound, a_x, ClusteringKind::kClustering), 0);
  // At full length: an exclusive start sorts after the clustering it names, an inclusive one before.
  EXPECT_GT(order.Compare(a_x, ClusteringKind::kExclStartBound, a_x, ClusteringKind::kClustering), 0);
  EXPECT_LT(order.Compare(a_x, ClusteringKind::kInclStartBound, a_x, ClusteringKind::kClustering), 0);
  // The empty bound of an open range.
  EXPECT_LT(order.Compare(FoldClustering{}, ClusteringKind::kInclStartBound, a_x, ClusteringKind::kClustering), 0);
  EXPECT_GT(order.Compare(FoldClustering{}, ClusteringKind::kInclEndBound, a_x, ClusteringKind::kClustering), 0);
}

TEST(ClusteringOrderTest, DescendingColumnsReverse) {
  auto reversed = Type(
      "org.apache.cassandra.db.marshal.ReversedType(org.apache.cassandra.db.marshal.Int32Type)");
  ASSERT_TRUE(reversed->reversed);
  ClusteringOrder order({reversed});
  EXPECT_GT(order.CompareRows(Of({Bytes({0, 0, 0, 1})}), Of({Bytes({0, 0, 0, 2})})), 0);
}

}  // namespace
}  // namespace cqlite
