#include "mapping/iceberg_rows.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <map>
#include <tuple>

#include "cassandra/cql_schema.h"
#include "mapping/row_hash.h"

namespace cqlite::materialize {
namespace {

std::vector<int32_t> FieldIds(const iceberg::Schema& schema) {
  std::vector<int32_t> ids;
  for (const iceberg::NestedField& field : schema.fields) ids.push_back(field.id);
  return ids;
}

using iceberg::NestedField;
using iceberg::Type;
using iceberg::TypePtr;
using parquet::Value;
using Kind = Type::Kind;
using Int128 = __int128;

// ---------------------------------------------------------------------------
// Native protocol serializations, written out by hand.

std::string Bytes(std::initializer_list<uint8_t> bytes) { return std::string(bytes.begin(), bytes.end()); }

std::string BE16(uint16_t v) { return Bytes({static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v)}); }

std::string BE32(uint32_t v) {
  return Bytes({static_cast<uint8_t>(v >> 24), static_cast<uint8_t>(v >> 16), static_cast<uint8_t>(v >> 8),
                static_cast<uint8_t>(v)});
}

std::string BE64(uint64_t v) { return BE32(static_cast<uint32_t>(v >> 32)) + BE32(static_cast<uint32_t>(v)); }

// [int] length-prefixed value; -1 length for null.
std::string Element(std::string_view bytes) { return BE32(static_cast<uint32_t>(bytes.size())) + std::string(bytes); }
std::string NullElement() { return BE32(0xffffffffu); }

Int128 Pow10(int n) {
  Int128 v = 1;
  while (n-- > 0) v *= 10;
  return v;
}

// Big-endian two's complement of `v` in `width` bytes.
std::string TwosComplement(Int128 v, int width) {
  std::string out(width, '\0');
  auto u = static_cast<unsigned __int128>(v);
  for (int i = width - 1; i >= 0; --i, u >>= 8) out[i] = static_cast<char>(u & 0xff);
  return out;
}

// A varint: the shortest big-endian two's complement.
std::string Varint(Int128 v) {
  std::string full = TwosComplement(v, 16);
  size_t skip = 0;
  while (skip + 1 < full.size()) {
    auto b0 = static_cast<uint8_t>(full[skip]), b1 = static_cast<uint8_t>(full[skip + 1]);
    if ((b0 == 0 && !(b1 & 0x80)) || (b0 == 0xff && (b1 & 0x80))) {
      ++skip;
    } else {
      break;
    }
  }
  return full.substr(skip);
}

// A decimal: [int scale][varint unscaled].
std::string Decimal(int32_t scale, Int128 unscaled) { return BE32(static_cast<uint32_t>(scale)) + Varint(unscaled); }

// The Iceberg decimal value: 16 bytes, big-endian two's complement.
Value Dec(Int128 unscaled) { return Value::Bytes(TwosComplement(unscaled, 16)); }

// ---------------------------------------------------------------------------

TableSchema Table(const std::string& cql, UserTypes* types = nullptr) {
  auto tables = ParseCqlSchema(cql, types);
  EXPECT_TRUE(tables.ok()) << tables.status().ToString();
  EXPECT_EQ(tables->size(), 1u);
  return tables->front();
}

NestedField Req(int32_t id, std::string name, TypePtr type) { return {id, std::move(name), true, type}; }
NestedField Opt(int32_t id, std::string name, TypePtr type) { return {id, std::move(name), false, type}; }
TypePtr P(Kind kind) { return Type::Primitive(kind); }

constexpr char kEveryTypeTable[] = R"(
  CREATE TYPE ks.addr (street text, zip int, tags frozen<list<text>>);
  CREATE TABLE ks.every (
    pk_b text, pk_a int, ck_t timestamp, ck_u uuid,
    s_z int static, s_a text static,
    v_vector vector<float, 3>, v_varint varint, v_udt addr, v_tuple tuple<frozen<list<int>>, int>,
    v_tinyint tinyint, v_timeuuid timeuuid, v_time time, v_text text, v_smallint smallint,
    v_set set<text>, v_map map<text, frozen<list<int>>>, v_list list<int>, v_int int, v_inet inet,
    v_float float, v_duration duration, v_double double, v_decimal decimal, v_date date,
    v_boolean boolean, v_blob blob, v_bigint bigint, v_ascii ascii,
    PRIMARY KEY ((pk_b, pk_a), ck_t, ck_u)
  ) WITH CLUSTERING ORDER BY (ck_t DESC, ck_u ASC);
)";

TEST(MapTableTest, EveryTypeInWildcardOrder) {
  TableSchema table = Table(kEveryTypeTable);
  auto mapping = MapTable(table, MappingOptions{});
  ASSERT_TRUE(mapping.ok()) << mapping.status().ToString();

  iceberg::Schema expected;
  expected.fields = {
      Req(1, "pk_b", P(Kind::kString)),
      Req(2, "pk_a", P(Kind::kInt)),
      Req(3, "ck_t", P(Kind::kTimestamptz)),
      Req(4, "ck_u", P(Kind::kUuid)),
      Opt(5, "s_a", P(Kind::kString)),
      Opt(6, "s_z", P(Kind::kInt)),
      Opt(7, "v_ascii", P(Kind::kString)),
      Opt(8, "v_bigint", P(Kind::kLong)),
      Opt(9, "v_blob", P(Kind::kBinary)),
      Opt(10, "v_boolean", P(Kind::kBoolean)),
      Opt(11, "v_date", P(Kind::kDate)),
      Opt(12, "v_decimal", Type::Decimal(38, 18)),
      Opt(13, "v_double", P(Kind::kDouble)),
      Opt(14, "v_duration",
          Type::Struct({Opt(30, "months", P(Kind::kInt)), Opt(31, "days", P(Kind::kInt)),
                        Opt(32, "nanoseconds", P(Kind::kLong))})),
      Opt(15, "v_float", P(Kind::kFloat)),
      Opt(16, "v_inet", P(Kind::kString)),
      Opt(17, "v_int", P(Kind::kInt)),
      Opt(18, "v_list", Type::List(33, false, P(Kind::kInt))),
      Opt(19, "v_map", Type::Map(34, P(Kind::kString), 35, false, Type::List(36, false, P(Kind::kInt)))),
      Opt(20, "v_set", Type::List(37, false, P(Kind::kString))),
      Opt(21, "v_smallint", P(Kind::kInt)),
      Opt(22, "v_text", P(Kind::kString)),
      Opt(23, "v_time", P(Kind::kTime)),
      Opt(24, "v_timeuuid", P(Kind::kUuid)),
      Opt(25, "v_tinyint", P(Kind::kInt)),
      Opt(26, "v_tuple",
          Type::Struct({Opt(38, "f0", Type::List(40, false, P(Kind::kInt))), Opt(39, "f1", P(Kind::kInt))})),
      Opt(27, "v_udt",
          Type::Struct({Opt(41, "street", P(Kind::kString)), Opt(42, "zip", P(Kind::kInt)),
                        Opt(43, "tags", Type::List(44, false, P(Kind::kString)))})),
      Opt(28, "v_varint", Type::Decimal(38, 0)),
      Opt(29, "v_vector", Type::List(45, false, P(Kind::kFloat))),
  };
  expected.identifier_field_ids = {1, 2, 3, 4};
  EXPECT_TRUE(iceberg::SameStructure(mapping->schema, expected))
      << "got:      " << iceberg::SchemaToJson(mapping->schema).dump() << "\nexpected: "
      << iceberg::SchemaToJson(expected).dump();
  EXPECT_EQ(mapping->schema.HighestFieldId(), 45);
  EXPECT_TRUE(mapping->identifier_warning.empty()) << mapping->identifier_warning;

  // columns[i] is the Cassandra column of Iceberg field i.
  ASSERT_EQ(mapping->columns.size(), 29u);
  for (size_t i = 0; i < mapping->columns.size(); ++i) {
    EXPECT_EQ(table.columns[mapping->columns[i]].name, expected.fields[i].name);
  }
}

TEST(MapTableTest, DecimalScaleOptionAndCounters) {
  TableSchema table = Table("CREATE TABLE ks.c (k int PRIMARY KEY, hits counter, d decimal)");
  MappingOptions options;
  options.decimal_scale = 4;
  auto mapping = MapTable(table, options);
  ASSERT_TRUE(mapping.ok()) << mapping.status().ToString();
  iceberg::Schema expected;
  expected.fields = {Req(1, "k", P(Kind::kInt)), Opt(2, "d", Type::Decimal(38, 4)), Opt(3, "hits", P(Kind::kLong))};
  expected.identifier_field_ids = {1};
  EXPECT_TRUE(iceberg::SameStructure(mapping->schema, expected)) << iceberg::SchemaToJson(mapping->schema).dump();
}

TEST(MapTableTest, TimeAsMapsEveryTimeAlike) {
  TableSchema table = Table(R"(
    CREATE TYPE ks.shift (name text, starts time);
    CREATE TABLE ks.t (k time, c time, v time, l list<time>, m map<time, time>, tp tuple<time, int>,
                       u frozen<shift>, PRIMARY KEY (k, c)))");
  for (auto [time_as, kind] : {std::pair{TimeAs::kTime, Kind::kTime}, std::pair{TimeAs::kLong, Kind::kLong},
                               std::pair{TimeAs::kString, Kind::kString}}) {
    SCOPED_TRACE(TimeAsName(time_as));
    MappingOptions options;
    options.time_as = time_as;
    auto mapping = MapTable(table, options);
    ASSERT_TRUE(mapping.ok()) << mapping.status().ToString();
    iceberg::Schema expected;
    expected.fields = {
        Req(1, "k", P(kind)),
        Req(2, "c", P(kind)),
        Opt(3, "l", Type::List(8, false, P(kind))),
        Opt(4, "m", Type::Map(9, P(kind), 10, false, P(kind))),
        Opt(5, "tp", Type::Struct({Opt(11, "f0", P(kind)), Opt(12, "f1", P(Kind::kInt))})),
        Opt(6, "u", Type::Struct({Opt(13, "name", P(Kind::kString)), Opt(14, "starts", P(kind))})),
        Opt(7, "v", P(kind)),
    };
    expected.identifier_field_ids = {1, 2};
    EXPECT_TRUE(iceberg::SameStructure(mapping->schema, expected))
        << "got:      " << iceberg::SchemaToJson(mapping->schema).dump() << "\nexpected: "
        << iceberg::SchemaToJson(expected).dump();
  }
}

TEST(TimeAsTest, NamesRoundTrip) {
  for (TimeAs time_as : {TimeAs::kTime, TimeAs::kLong, TimeAs::kString}) {
    EXPECT_EQ(ParseTimeAs(TimeAsName(time_as)), time_as);
  }
  EXPECT_EQ(TimeAsName(TimeAs::kLong), "long");
  EXPECT_FALSE(ParseTimeAs("int").has_value());
  EXPECT_FALSE(ParseTimeAs("").has_value());
}

TEST(TimeAsTest, ATableKeepsItsRecordedChoice) {
  const std::map<std::string, std::string> made_long = {{kTimeAsProperty, "long"}, {"other", "x"}};
  const std::map<std::string, std::string> made_before = {{"cqlite.source.table", "t"}};  // an earlier CQLite's
  auto resolve = [](const std::map<std::string, std::string>* properties, TimeAs asked, bool given) {
    MappingOptions options;
    options.time_as = asked;
    options.time_as_given = given;
    Status status = ResolveTimeAs(properties, "ks.t", &options);
    return std::pair{status, options.time_as};
  };
  // No table yet: what the run asks, given or not.
  EXPECT_EQ(resolve(nullptr, TimeAs::kString, true).second, TimeAs::kString);
  EXPECT_EQ(resolve(nullptr, TimeAs::kTime, false).second, TimeAs::kTime);
  // A run without the option takes the table's choice; without the property, time.
  auto [status, time_as] = resolve(&made_long, TimeAs::kTime, false);
  EXPECT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(time_as, TimeAs::kLong);
  std::tie(status, time_as) = resolve(&made_before, TimeAs::kTime, false);
  EXPECT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(time_as, TimeAs::kTime);
  // Asking for the recorded choice is fine.
  EXPECT_TRUE(resolve(&made_long, TimeAs::kLong, true).first.ok());
  EXPECT_TRUE(resolve(&made_before, TimeAs::kTime, true).first.ok());
  // Asking otherwise is an error naming the table, both choices and what to do.
  status = resolve(&made_long, TimeAs::kString, true).first;
  EXPECT_EQ(status.kind(), StatusKind::kInvalidArgument);
  for (const char* says : {"ks.t", "published as long", "--time-as string", "run without --time-as"}) {
    EXPECT_NE(status.message().find(says), std::string::npos) << says << ": " << status.ToString();
  }
  EXPECT_EQ(status.message().find('\n'), std::string::npos);
  status = resolve(&made_before, TimeAs::kLong, true).first;
  EXPECT_EQ(status.kind(), StatusKind::kInvalidArgument);
  EXPECT_NE(status.message().find("earlier CQLite"), std::string::npos) << status.ToString();
  // A recorded value this CQLite does not know.
  const std::map<std::string, std::string> unknown = {{kTimeAsProperty, "nanos"}};
  status = resolve(&unknown, TimeAs::kTime, false).first;
  EXPECT_EQ(status.kind(), StatusKind::kInvalidArgument);
  EXPECT_NE(status.message().find("nanos"), std::string::npos) << status.ToString();
}

TEST(MapTableTest, KeysThatCannotBeIdentifierFields) {
  const char* keys[] = {
      "CREATE TABLE ks.t (k float, c int, v int, PRIMARY KEY (k, c))",
      "CREATE TABLE ks.t (k int, c double, v int, PRIMARY KEY (k, c))",
      "CREATE TABLE ks.t (k int, c frozen<list<int>>, v int, PRIMARY KEY (k, c))",
      "CREATE TABLE ks.t (k frozen<map<int, text>>, v int, PRIMARY KEY (k))",
      "CREATE TABLE ks.t (k int, c tuple<int, text>, v int, PRIMARY KEY (k, c))",
      "CREATE TYPE ks.u (a int); CREATE TABLE ks.t (k int, c frozen<u>, v int, PRIMARY KEY (k, c))",
  };
  const char* unfit[] = {"k", "c", "c", "k", "c", "c"};
  for (size_t i = 0; i < std::size(keys); ++i) {
    SCOPED_TRACE(keys[i]);
    auto mapping = MapTable(Table(keys[i]), MappingOptions{});
    ASSERT_TRUE(mapping.ok()) << mapping.status().ToString();
    EXPECT_TRUE(mapping->schema.identifier_field_ids.empty());
    EXPECT_NE(mapping->identifier_warning.find(std::string(unfit[i]) + " ("), std::string::npos)
        << mapping->identifier_warning;
    // The key columns stay required all the same.
    EXPECT_TRUE(mapping->schema.fields[0].required);
  }
}

TEST(MapTableTest, CompactStorageClusteringPrefixes) {
  // A COMPACT STORAGE row may set only a prefix of its clustering columns.
  auto mapping = MapTable(Table("CREATE TABLE ks.t (k int, c1 int, c2 int, v int, PRIMARY KEY (k, c1, c2)) "
                                "WITH COMPACT STORAGE"),
                          MappingOptions{});
  ASSERT_TRUE(mapping.ok()) << mapping.status().ToString();
  EXPECT_TRUE(mapping->schema.fields[0].required);
  EXPECT_TRUE(mapping->schema.fields[1].required);
  EXPECT_FALSE(mapping->schema.fields[2].required);
  EXPECT_TRUE(mapping->schema.identifier_field_ids.empty());
  EXPECT_NE(mapping->identifier_warning.find("c2 ("), std::string::npos) << mapping->identifier_warning;
  // With one clustering column, or without COMPACT STORAGE, the key is the identifier.
  for (const char* cql : {"CREATE TABLE ks.t (k int, c1 int, v int, PRIMARY KEY (k, c1)) WITH COMPACT STORAGE",
                          "CREATE TABLE ks.t (k int, c1 int, c2 int, v int, PRIMARY KEY (k, c1, c2))"}) {
    SCOPED_TRACE(cql);
    auto plain = MapTable(Table(cql), MappingOptions{});
    ASSERT_TRUE(plain.ok());
    EXPECT_FALSE(plain->schema.identifier_field_ids.empty());
    EXPECT_TRUE(plain->identifier_warning.empty());
  }
}

TEST(MapTableTest, NullableKeysAreOptionalAndLeaveNoIdentifierFields) {
  MappingOptions options;
  options.nullable_keys = {"c2"};
  auto mapping = MapTable(Table("CREATE TABLE ks.t (k int, c1 int, c2 uuid, v int, PRIMARY KEY (k, c1, c2))"),
                          options);
  ASSERT_TRUE(mapping.ok()) << mapping.status().ToString();
  EXPECT_TRUE(mapping->schema.fields[0].required);
  EXPECT_TRUE(mapping->schema.fields[1].required);
  EXPECT_FALSE(mapping->schema.fields[2].required);
  EXPECT_TRUE(mapping->schema.identifier_field_ids.empty());
  EXPECT_NE(mapping->identifier_warning.find("c2 (it holds an empty value"), std::string::npos)
      << mapping->identifier_warning;
}

TEST(EmptyKeyValueErrorTest, NamesItsColumnThroughAddedContext) {
  Status status = EmptyKeyValueError("my col").WithContext("range 2 of 4").WithContext("ks.t");
  std::optional<std::string> column = EmptyKeyColumn(status);
  ASSERT_TRUE(column.has_value()) << status.ToString();
  EXPECT_EQ(*column, "my col");
  EXPECT_FALSE(EmptyKeyColumn(Status::InvalidArgument("column c: is null, but the Iceberg field is required")));
  EXPECT_FALSE(EmptyKeyColumn(Status::OK()));
}

TEST(MapTableTest, UnsupportedTypesNameTheColumn) {
  for (const char* type : {"'com.example.CustomType'", "'org.apache.cassandra.db.marshal.EmptyType'"}) {
    SCOPED_TRACE(type);
    auto tables = ParseCqlSchema(std::string("CREATE TABLE ks.t (k int PRIMARY KEY, odd_col ") + type + ")");
    ASSERT_TRUE(tables.ok()) << tables.status().ToString();
    auto mapping = MapTable(tables->front(), MappingOptions{});
    ASSERT_FALSE(mapping.ok());
    EXPECT_EQ(mapping.status().kind(), StatusKind::kNotSupported);
    EXPECT_NE(mapping.status().message().find("odd_col"), std::string::npos) << mapping.status().ToString();
  }
  // Nested too.
  auto tables = ParseCqlSchema("CREATE TABLE ks.t (k int PRIMARY KEY, deep list<frozen<map<int, 'com.x.Y'>>>)");
  ASSERT_TRUE(tables.ok()) << tables.status().ToString();
  auto mapping = MapTable(tables->front(), MappingOptions{});
  ASSERT_FALSE(mapping.ok());
  EXPECT_EQ(mapping.status().kind(), StatusKind::kNotSupported);
  EXPECT_NE(mapping.status().message().find("deep"), std::string::npos) << mapping.status().ToString();
}

// ---------------------------------------------------------------------------
// ToIcebergValue, one column `v` of the given type at a time.

class ValueTest : public ::testing::Test {
 protected:
  Result<Value> Convert(const std::string& cql_type, std::string_view bytes, MappingOptions options = {},
                        const std::string& preamble = "") {
    table_ = Table(preamble + "CREATE TABLE ks.t (k int PRIMARY KEY, v " + cql_type + ")");
    auto mapping = MapTable(table_, options);
    if (!mapping.ok()) return mapping.status();
    mapping_ = *mapping;
    EXPECT_EQ(mapping_.schema.fields[1].name, "v");
    return ToIcebergValue(*table_.FindColumn("v")->type, *mapping_.schema.fields[1].type, bytes, options);
  }

  void ExpectValue(const std::string& cql_type, std::string_view bytes, const Value& expected,
                   MappingOptions options = {}, const std::string& preamble = "") {
    SCOPED_TRACE(cql_type);
    auto value = Convert(cql_type, bytes, options, preamble);
    ASSERT_TRUE(value.ok()) << value.status().ToString();
    EXPECT_EQ(*value, expected) << value->ToString() << " vs " << expected.ToString();
  }

  void ExpectError(const std::string& cql_type, std::string_view bytes, const std::string& says = "",
                   MappingOptions options = {}) {
    SCOPED_TRACE(cql_type);
    auto value = Convert(cql_type, bytes, options);
    ASSERT_FALSE(value.ok()) << value->ToString();
    EXPECT_NE(value.status().message().find(says), std::string::npos) << value.status().ToString();
  }

  TableSchema table_;
  TableMapping mapping_;
};

TEST_F(ValueTest, Integers) {
  ExpectValue("tinyint", Bytes({0xff}), Value::Int32(-1));
  ExpectValue("tinyint", Bytes({0x7f}), Value::Int32(127));
  ExpectValue("smallint", Bytes({0x80, 0x00}), Value::Int32(-32768));
  ExpectValue("smallint", Bytes({0x01, 0x02}), Value::Int32(258));
  ExpectValue("int", Bytes({0x00, 0x00, 0x01, 0x00}), Value::Int32(256));
  ExpectValue("int", Bytes({0xff, 0xff, 0xff, 0xfe}), Value::Int32(-2));
  ExpectValue("int", Bytes({0x80, 0, 0, 0}), Value::Int32(INT32_MIN));
  ExpectValue("bigint", BE64(static_cast<uint64_t>(-2)), Value::Int64(-2));
  ExpectValue("bigint", Bytes({0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}), Value::Int64(INT64_MAX));
  ExpectValue("counter", BE64(12345), Value::Int64(12345));
  ExpectError("tinyint", Bytes({1, 2}));
  ExpectError("smallint", Bytes({1}));
  ExpectError("int", Bytes({0, 0, 1}));
  ExpectError("bigint", Bytes({0, 0, 0, 0, 0, 0, 0, 0, 1}));
}

TEST_F(ValueTest, BooleanAndFloats) {
  ExpectValue("boolean", Bytes({0x01}), Value::Bool(true));
  ExpectValue("boolean", Bytes({0x00}), Value::Bool(false));
  ExpectValue("float", Bytes({0x3f, 0xc0, 0x00, 0x00}), Value::Float(1.5f));
  ExpectValue("float", Bytes({0xc0, 0x20, 0x00, 0x00}), Value::Float(-2.5f));
  ExpectValue("double", Bytes({0x40, 0x02, 0, 0, 0, 0, 0, 0}), Value::Double(2.25));
  ExpectValue("double", Bytes({0x80, 0, 0, 0, 0, 0, 0, 0}), Value::Double(-0.0));
  ExpectError("boolean", Bytes({1, 0}));
  ExpectError("float", Bytes({0x3f, 0xc0}));
  ExpectError("double", Bytes({0x3f, 0xc0, 0, 0}));
}

TEST_F(ValueTest, TimestampsDatesTimes) {
  // timestamp: milliseconds since the epoch -> timestamptz microseconds.
  ExpectValue("timestamp", BE64(1700000000123), Value::Int64(1700000000123000));
  ExpectValue("timestamp", BE64(static_cast<uint64_t>(-1)), Value::Int64(-1000));
  ExpectValue("timestamp", BE64(0), Value::Int64(0));
  ExpectError("timestamp", BE64(static_cast<uint64_t>(INT64_MAX / 1000 + 1)));
  ExpectError("timestamp", BE64(static_cast<uint64_t>(INT64_MIN / 1000 - 1)));
  ExpectError("timestamp", BE32(1));

  // date: unsigned days with the epoch at 2^31 -> days since the epoch.
  ExpectValue("date", BE32(0x80000000u), Value::Int32(0));
  ExpectValue("date", BE32(0x80000000u + 19000), Value::Int32(19000));
  ExpectValue("date", BE32(0x7fffffffu), Value::Int32(-1));
  ExpectValue("date", BE32(0), Value::Int32(INT32_MIN));
  ExpectValue("date", BE32(0xffffffffu), Value::Int32(INT32_MAX));
  ExpectError("date", BE64(0));

  // time: nanoseconds since midnight -> microseconds.
  ExpectValue("time", BE64(45296789012000), Value::Int64(45296789012));  // 12:34:56.789012
  ExpectValue("time", BE64(0), Value::Int64(0));
  ExpectError("time", BE64(45296789012345), "sub-microsecond");
  ExpectError("time", BE64(1500), "sub-microsecond");
  MappingOptions truncate;
  truncate.truncate_time = true;
  ExpectValue("time", BE64(45296789012345), Value::Int64(45296789012), truncate);
  ExpectValue("time", BE64(1500), Value::Int64(1), truncate);
  ExpectError("time", BE32(0));
}

TEST_F(ValueTest, TimesAsLongsAndStrings) {
  MappingOptions as_long, as_string;
  as_long.time_as = TimeAs::kLong;
  as_string.time_as = TimeAs::kString;
  // Every nanosecond is kept, without --truncate-time.
  ExpectValue("time", BE64(45296789012345), Value::Int64(45296789012345), as_long);
  ExpectValue("time", BE64(0), Value::Int64(0), as_long);
  ExpectValue("time", BE64(86399999999999), Value::Int64(86399999999999), as_long);
  // As SELECT JSON prints a time (TimeSerializer.toString).
  ExpectValue("time", BE64(45296789012345), Value::String("12:34:56.789012345"), as_string);
  ExpectValue("time", BE64(29574123456789), Value::String("08:12:54.123456789"), as_string);
  ExpectValue("time", BE64(0), Value::String("00:00:00.000000000"), as_string);
  ExpectValue("time", BE64(86399999999999), Value::String("23:59:59.999999999"), as_string);
  // Nested times map alike.
  ExpectValue("list<time>", BE32(2) + Element(BE64(1)) + Element(BE64(2000)),
              Value::List({Value::Int64(1), Value::Int64(2000)}), as_long);
  ExpectValue("tuple<time, int>", Element(BE64(1500)) + Element(BE32(3)),
              Value::Struct({Value::String("00:00:00.000001500"), Value::Int32(3)}), as_string);
  ExpectValue("map<time, time>", BE32(1) + Element(BE64(1)) + Element(BE64(2)),
              Value::Map({{Value::String("00:00:00.000000001"), Value::String("00:00:00.000000002")}}), as_string);
  // An empty value is null; a value of the wrong width or outside one day is an error.
  ExpectValue("time", std::string_view(), Value::Null(), as_string);
  ExpectValue("time", std::string_view(), Value::Null(), as_long);
  for (const MappingOptions& options : {MappingOptions{}, as_long, as_string}) {
    ExpectError("time", BE32(0), "bytes", options);
    ExpectError("time", BE64(86400000000000), "outside one day", options);
    ExpectError("time", BE64(static_cast<uint64_t>(-1000)), "outside one day", options);
  }
}

TEST_F(ValueTest, Decimals) {
  // 123.45 at the default scale 18.
  ExpectValue("decimal", Decimal(2, 12345), Dec(Int128{12345} * Pow10(16)));
  ExpectValue("decimal", Bytes({0, 0, 0, 2, 0x30, 0x39}), Dec(Int128{12345} * Pow10(16)));
  // -1.5
  ExpectValue("decimal", Bytes({0, 0, 0, 1, 0xf1}), Dec(Int128{-15} * Pow10(17)));
  ExpectValue("decimal", Decimal(0, 0), Dec(0));
  // A negative scale: 5E+2.
  ExpectValue("decimal", Decimal(-2, 5), Dec(Int128{5} * Pow10(20)));
  // More fractional digits than the table's, all zeros: exact.
  ExpectValue("decimal", Decimal(19, 10), Dec(1));
  ExpectValue("decimal", Decimal(20, -1200), Dec(-12));
  // A longer form with redundant sign bytes.
  ExpectValue("decimal", BE32(0) + std::string(19, '\0') + "\x05", Dec(Int128{5} * Pow10(18)));
  ExpectValue("decimal", BE32(0) + std::string(19, '\xff') + "\xfb", Dec(Int128{-5} * Pow10(18)));
  // 20 integer digits and 18 fractional ones: 38 digits, the most there is room for.
  ExpectValue("decimal", Decimal(0, Pow10(20) - 1), Dec((Pow10(20) - 1) * Pow10(18)));
  ExpectValue("decimal", Decimal(18, -(Pow10(38) - 1)), Dec(-(Pow10(38) - 1)));

  ExpectError("decimal", Decimal(19, 1), "fractional digits");
  ExpectError("decimal", Decimal(19, -11), "fractional digits");
  ExpectError("decimal", Decimal(60, 1), "fractional digits");
  ExpectError("decimal", Decimal(0, Pow10(20)));             // 39 digits at scale 18
  ExpectError("decimal", Decimal(18, Pow10(38)), "38 digits");  // 39 digits
  ExpectError("decimal", BE32(0) + "\x01" + std::string(16, '\0'), "38 digits");  // 2^128
  ExpectError("decimal", Bytes({0, 0, 0, 2}));                                    // no unscaled value

  MappingOptions scale4;
  scale4.decimal_scale = 4;
  ExpectValue("decimal", Decimal(2, 12345), Dec(1234500), scale4);
  ExpectValue("decimal", Decimal(6, 1234500), Dec(12345), scale4);
  ExpectError("decimal", Decimal(6, 1234501), "4 fractional digits", scale4);
  MappingOptions scale0;
  scale0.decimal_scale = 0;
  ExpectValue("decimal", Decimal(0, Pow10(38) - 1), Dec(Pow10(38) - 1), scale0);
  ExpectValue("decimal", Decimal(3, -7000), Dec(-7), scale0);
}

TEST_F(ValueTest, Varints) {
  ExpectValue("varint", Bytes({0x00, 0xff}), Dec(255));
  ExpectValue("varint", Bytes({0xff}), Dec(-1));
  ExpectValue("varint", Bytes({0x80}), Dec(-128));
  ExpectValue("varint", Bytes({0x7f}), Dec(127));
  ExpectValue("varint", Varint(Pow10(38) - 1), Dec(Pow10(38) - 1));
  ExpectValue("varint", Varint(-(Pow10(38) - 1)), Dec(-(Pow10(38) - 1)));
  ExpectError("varint", Varint(Pow10(38)), "38 digits");
  ExpectError("varint", Varint(-Pow10(38)), "38 digits");
  ExpectError("varint", std::string("\x01") + std::string(16, '\0'), "38 digits");
}

TEST_F(ValueTest, UuidsBlobsAndText) {
  const std::string uuid = Bytes({0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3, 0xa4, 0x56, 0x42, 0x66, 0x14,
                                  0x17, 0x40, 0x00});
  ExpectValue("uuid", uuid, Value::Bytes(uuid));
  ExpectValue("timeuuid", uuid, Value::Bytes(uuid));
  ExpectError("uuid", uuid.substr(0, 15));
  ExpectError("timeuuid", uuid + "x");
  ExpectValue("blob", Bytes({0x00, 0x01, 0xff}), Value::Bytes(Bytes({0x00, 0x01, 0xff})));
  ExpectValue("text", "h\xc3\xa9llo", Value::String("h\xc3\xa9llo"));
  ExpectValue("varchar", "abc", Value::String("abc"));
  ExpectValue("ascii", "abc", Value::String("abc"));
  ExpectError("text", "\xff\xfe", "UTF-8");
}

TEST_F(ValueTest, Inet) {
  ExpectValue("inet", Bytes({127, 0, 0, 1}), Value::String("127.0.0.1"));
  ExpectValue("inet", Bytes({192, 168, 200, 255}), Value::String("192.168.200.255"));
  // Java's InetAddress.getHostAddress: eight full hex groups.
  ExpectValue("inet", Bytes({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}), Value::String("0:0:0:0:0:0:0:1"));
  ExpectValue("inet", Bytes({0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x12, 0x34}),
              Value::String("2001:db8:0:0:0:0:0:1234"));
  ExpectError("inet", Bytes({1, 2, 3}));
}

TEST_F(ValueTest, Durations) {
  // Three zig-zag vints: months 1, days -1, nanoseconds 10^9 (a 5-byte vint).
  ExpectValue("duration", Bytes({0x02, 0x01, 0xf0, 0x77, 0x35, 0x94, 0x00}),
              Value::Struct({Value::Int32(1), Value::Int32(-1), Value::Int64(1000000000)}));
  // months 200: zig-zag 400 = 0x190, a 2-byte vint; days 0; nanoseconds -3.
  ExpectValue("duration", Bytes({0x81, 0x90, 0x00, 0x05}),
              Value::Struct({Value::Int32(200), Value::Int32(0), Value::Int64(-3)}));
  // nanoseconds INT64_MIN: zig-zag 2^64-1, a 9-byte vint.
  ExpectValue("duration", Bytes({0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}),
              Value::Struct({Value::Int32(0), Value::Int32(0), Value::Int64(INT64_MIN)}));
  ExpectError("duration", Bytes({0x02, 0x01}), "duration");
  ExpectError("duration", Bytes({0x02, 0x01, 0xf0, 0x77}), "duration");
  ExpectError("duration", Bytes({0x02, 0x01, 0x00, 0x00}), "duration");
}

TEST_F(ValueTest, Collections) {
  ExpectValue("list<int>", BE32(3) + Element(BE32(1)) + NullElement() + Element(BE32(3)),
              Value::List({Value::Int32(1), Value::Null(), Value::Int32(3)}));
  ExpectValue("frozen<list<int>>", BE32(0), Value::List({}));
  ExpectValue("set<text>", BE32(2) + Element("a") + Element("b"), Value::List({Value::String("a"), Value::String("b")}));
  ExpectValue("map<text, frozen<list<int>>>",
              BE32(2) + Element("k") + Element(BE32(1) + Element(BE32(7))) + Element("z") + NullElement(),
              Value::Map({{Value::String("k"), Value::List({Value::Int32(7)})}, {Value::String("z"), Value::Null()}}));
  ExpectValue("map<timestamp, decimal>", BE32(1) + Element(BE64(2)) + Element(Decimal(1, 5)),
              Value::Map({{Value::Int64(2000), Dec(Int128{5} * Pow10(17))}}));
  // Element values are checked as columns are.
  ExpectError("list<int>", BE32(1) + Element(BE32(1).substr(1)));
  ExpectError("list<time>", BE32(1) + Element(BE64(1)), "sub-microsecond");
  ExpectError("map<int, int>", BE32(1) + NullElement() + Element(BE32(1)), "null key");
  ExpectError("list<int>", BE32(2) + Element(BE32(1)));                       // truncated
  ExpectError("list<int>", BE32(1) + Element(BE32(1)) + "x");                 // trailing bytes
  ExpectError("list<int>", BE32(0x7fffffff));                                 // absurd count
  ExpectError("list<int>", Bytes({0, 0, 1}));
  ExpectError("set<text>", BE32(1) + BE32(10) + "abc");
}

TEST_F(ValueTest, TuplesAndUserTypes) {
  ExpectValue("tuple<frozen<list<int>>, int>", Element(BE32(1) + Element(BE32(9))) + NullElement(),
              Value::Struct({Value::List({Value::Int32(9)}), Value::Null()}));
  ExpectValue("tuple<int, text>", Element(BE32(4)) + Element(""), Value::Struct({Value::Int32(4), Value::String("")}));
  ExpectError("tuple<int, text>", Element(BE32(4)) + Element("a") + "x");
  ExpectError("tuple<int, text>", Element(BE32(4)) + Element("a") + Element("b"));  // more fields than the type
  // Fields the value stops before are null, as TupleType.split gives them
  // (and as `select` prints them: both converters split with the value layer).
  ExpectValue("tuple<int, text>", Element(BE32(4)), Value::Struct({Value::Int32(4), Value::Null()}));

  const std::string addr = "CREATE TYPE ks.addr (street text, zip int, tags frozen<list<text>>);";
  ExpectValue("frozen<addr>", Element("Main St") + Element(BE32(12345)) + Element(BE32(1) + Element("x")),
              Value::Struct({Value::String("Main St"), Value::Int32(12345), Value::List({Value::String("x")})}), {},
              addr);
  // Fields added to the type after the value was written are missing: null.
  ExpectValue("frozen<addr>", Element("Main St"), Value::Struct({Value::String("Main St"), Value::Null(), Value::Null()}),
              {}, addr);
  ExpectValue("addr", Element("Main St") + NullElement(),
              Value::Struct({Value::String("Main St"), Value::Null(), Value::Null()}), {}, addr);
  ExpectValue("addr", std::string_view(), Value::Null(), {}, addr);
}

TEST_F(ValueTest, Vectors) {
  // Fixed-length elements are not length-prefixed.
  ExpectValue("vector<float, 3>", Bytes({0x3f, 0x80, 0, 0, 0x40, 0, 0, 0, 0x40, 0x40, 0, 0}),
              Value::List({Value::Float(1.0f), Value::Float(2.0f), Value::Float(3.0f)}));
  ExpectValue("vector<bigint, 1>", BE64(5), Value::List({Value::Int64(5)}));
  // Variable-length ones are prefixed by an unsigned vint.
  ExpectValue("vector<text, 2>", Bytes({0x01, 'a', 0x02, 'b', 'c'}), Value::List({Value::String("a"), Value::String("bc")}));
  ExpectError("vector<float, 3>", Bytes({0x3f, 0x80, 0, 0, 0x40, 0, 0, 0}));
  ExpectError("vector<float, 3>", Bytes({0x3f, 0x80, 0, 0, 0x40, 0, 0, 0, 0x40, 0x40, 0, 0, 0}));
  ExpectError("vector<text, 2>", Bytes({0x01, 'a', 0x05, 'b'}));
}

TEST_F(ValueTest, EmptyValues) {
  // An empty value is null, except for text, ascii and blob, where it is a value.
  for (const char* type : {"tinyint", "smallint", "int", "bigint", "counter", "boolean", "float", "double", "decimal",
                           "varint", "timestamp", "date", "time", "uuid", "timeuuid", "inet", "duration", "list<int>",
                           "set<int>", "map<int, int>", "tuple<int, int>", "vector<float, 2>"}) {
    ExpectValue(type, std::string_view(), Value::Null());
  }
  ExpectValue("text", std::string_view(), Value::String(""));
  ExpectValue("ascii", std::string_view(), Value::String(""));
  ExpectValue("blob", std::string_view(), Value::Bytes(""));
  // An empty element inside a collection too.
  ExpectValue("list<int>", BE32(1) + Element(""), Value::List({Value::Null()}));
  ExpectValue("list<text>", BE32(1) + Element(""), Value::List({Value::String("")}));
}

// ---------------------------------------------------------------------------
// RowConverter

FoldColumn Simple(const TableSchema& table, const std::string& name, std::string value) {
  FoldColumn column;
  column.column = static_cast<int>(table.FindColumn(name) - table.columns.data());
  FoldCell cell;
  cell.timestamp = 1;
  cell.value = std::move(value);
  column.cells.push_back(std::move(cell));
  return column;
}

// CompositeType: per component a 2-byte length, the bytes and an end-of-component byte.
std::string Component(std::string_view bytes) { return BE16(static_cast<uint16_t>(bytes.size())) + std::string(bytes) + '\0'; }

class RowConverterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    table_ = Table(
        "CREATE TABLE ks.r (a int, b text, c int, st int static, v text, w int, l list<int>, "
        "PRIMARY KEY ((a, b), c))");
    auto mapping = MapTable(table_, MappingOptions{});
    ASSERT_TRUE(mapping.ok()) << mapping.status().ToString();
    mapping_ = *mapping;
    key_ = Component(BE32(7)) + Component("x");
  }

  FoldRow Row() {
    FoldRow row;
    row.clustering.values = {BE32(3)};
    row.liveness.timestamp = 1;
    FoldColumn l;
    l.column = static_cast<int>(table_.FindColumn("l") - table_.columns.data());
    l.is_complex = true;
    for (int i : {10, 20}) {
      FoldCell cell;
      cell.timestamp = 1;
      cell.path = std::string(16, static_cast<char>(i));  // a timeuuid cell path
      cell.value = BE32(i);
      l.cells.push_back(cell);
    }
    // In increasing column order: v, w absent, l.
    row.columns = {Simple(table_, "v", "hello"), l};
    std::sort(row.columns.begin(), row.columns.end(), [](auto& x, auto& y) { return x.column < y.column; });
    return row;
  }

  TableSchema table_;
  TableMapping mapping_;
  std::string key_;
};

TEST_F(RowConverterTest, ConvertsInFieldOrderWithTheStaticRow) {
  // Fields: a, b, c, st, l, v, w.
  ASSERT_EQ(mapping_.schema.fields.size(), 7u);
  EXPECT_EQ(mapping_.schema.fields[4].name, "l");
  RowConverter converter(table_, mapping_, MappingOptions{});
  FoldRow static_row;
  static_row.columns = {Simple(table_, "st", BE32(42))};

  auto value = converter.Convert(key_, &static_row, Row());
  ASSERT_TRUE(value.ok()) << value.status().ToString();
  Value expected = Value::Struct({Value::Int32(7), Value::String("x"), Value::Int32(3), Value::Int32(42),
                                  Value::List({Value::Int32(10), Value::Int32(20)}), Value::String("hello"),
                                  Value::Null()});
  EXPECT_EQ(*value, expected) << value->ToString();

  // Without a static row the static column is null.
  value = converter.Convert(key_, nullptr, Row());
  ASSERT_TRUE(value.ok()) << value.status().ToString();
  EXPECT_EQ(value->fields()[3], Value::Null());
  EXPECT_EQ(value->fields()[5], Value::String("hello"));
}

TEST_F(RowConverterTest, AbsentClusteringComponentIsNull) {
  RowConverter converter(table_, mapping_, MappingOptions{});
  FoldRow row = Row();
  row.clustering.values = {""};
  row.clustering.present = {false};
  auto value = converter.Convert(key_, nullptr, row);
  ASSERT_TRUE(value.ok()) << value.status().ToString();
  EXPECT_EQ(value->fields()[2], Value::Null());
  EXPECT_EQ(value->fields()[0], Value::Int32(7));
}

TEST_F(RowConverterTest, ErrorsNameTheColumn) {
  RowConverter converter(table_, mapping_, MappingOptions{});
  FoldRow row = Row();
  row.columns.push_back(Simple(table_, "w", Bytes({1, 2, 3})));
  std::sort(row.columns.begin(), row.columns.end(), [](auto& x, auto& y) { return x.column < y.column; });
  auto value = converter.Convert(key_, nullptr, row);
  ASSERT_FALSE(value.ok());
  EXPECT_EQ(value.status().kind(), StatusKind::kInvalidArgument);
  EXPECT_NE(value.status().message().find("column w"), std::string::npos) << value.status().ToString();

  FoldRow static_row;
  static_row.columns = {Simple(table_, "st", Bytes({1}))};
  value = converter.Convert(key_, &static_row, Row());
  ASSERT_FALSE(value.ok());
  EXPECT_NE(value.status().message().find("column st"), std::string::npos) << value.status().ToString();

  // A partition key without the table's two components.
  value = converter.Convert(Component(BE32(7)), nullptr, Row());
  EXPECT_FALSE(value.ok());
}

// RowBatchConverter must fill a batch exactly as shredding RowConverter's
// value tree does, and hash each row as HashRow hashes that tree.
void ExpectSameBatches(const parquet::RowBatch& a, const parquet::RowBatch& b) {
  ASSERT_EQ(a.num_rows(), b.num_rows());
  ASSERT_EQ(a.num_columns(), b.num_columns());
  for (int leaf = 0; leaf < a.num_columns(); ++leaf) {
    SCOPED_TRACE(leaf);
    const parquet::ColumnBatch& x = a.column(leaf);
    const parquet::ColumnBatch& y = b.column(leaf);
    EXPECT_EQ(x.num_levels(), y.num_levels());
    EXPECT_TRUE(std::ranges::equal(x.def_levels(), y.def_levels()));
    EXPECT_TRUE(std::ranges::equal(x.rep_levels(), y.rep_levels()));
    EXPECT_TRUE(std::ranges::equal(x.bools(), y.bools()));
    EXPECT_TRUE(std::ranges::equal(x.int32s(), y.int32s()));
    EXPECT_TRUE(std::ranges::equal(x.int64s(), y.int64s()));
    EXPECT_TRUE(std::ranges::equal(x.floats(), y.floats()));
    EXPECT_TRUE(std::ranges::equal(x.doubles(), y.doubles()));
    EXPECT_EQ(x.bytes(), y.bytes());
    EXPECT_TRUE(std::ranges::equal(x.offsets(), y.offsets()));
  }
}

TEST_F(RowConverterTest, BatchConverterFillsColumnsAsTheValueTreeShreds) {
  RowConverter converter(table_, mapping_, MappingOptions{});
  RowBatchConverter batch_converter(table_, mapping_, MappingOptions{});
  parquet::Schema parquet_schema = iceberg::ToParquetSchema(mapping_.schema);
  parquet::RowBatch expected(parquet_schema), got(parquet_schema);

  FoldRow static_row;
  static_row.columns = {Simple(table_, "st", BE32(42))};
  FoldRow absent_clustering = Row();
  absent_clustering.clustering.values = {""};
  absent_clustering.clustering.present = {false};
  FoldRow no_columns = Row();
  no_columns.columns.clear();
  FoldRow empty_list = Row();
  empty_list.columns.back().cells.clear();
  FoldRow empty_text = Row();
  empty_text.columns.front().cells.front().value = "";
  const std::string other_key = Component(BE32(-8)) + Component("");
  struct Case {
    const std::string* key;
    const FoldRow* static_row;
    FoldRow row;
  };
  std::vector<Case> cases = {{&key_, &static_row, Row()},        {&key_, nullptr, Row()},
                             {&other_key, nullptr, no_columns},      {&other_key, &static_row, empty_list},
                             {&key_, nullptr, empty_text}};
  for (const Case& c : cases) {
    auto value = converter.Convert(*c.key, c.static_row, c.row);
    ASSERT_TRUE(value.ok()) << value.status().ToString();
    ASSERT_TRUE(expected.AppendRow(*value).ok());
    auto hash = batch_converter.Append(*c.key, c.static_row, c.row, &got);
    ASSERT_TRUE(hash.ok()) << hash.status().ToString();
    EXPECT_EQ(*hash, HashRow(*value, FieldIds(mapping_.schema))) << value->ToString();
    // Hashing alone appends nothing and gives the same hash.
    auto hash_only = batch_converter.Append(*c.key, c.static_row, c.row, nullptr);
    ASSERT_TRUE(hash_only.ok());
    EXPECT_EQ(*hash_only, *hash);
  }
  ExpectSameBatches(got, expected);

  // A null where the Iceberg field is required (a primary key column) fits
  // neither.
  auto value = converter.Convert(key_, &static_row, absent_clustering);
  ASSERT_TRUE(value.ok());
  EXPECT_FALSE(expected.AppendRow(*value).ok());
  auto hash = batch_converter.Append(key_, &static_row, absent_clustering, &got);
  ASSERT_FALSE(hash.ok());
  EXPECT_NE(hash.status().message().find("column c"), std::string::npos) << hash.status().ToString();
}

TEST(RowBatchConverterTest, CollectionsFromTheirCellsAsFromTheirPackedValues) {
  TableSchema table = Table(
      "CREATE TABLE ks.c (k int, c int, tags set<text>, counts map<text, int>, l list<int>, "
      "fl frozen<list<int>>, s map<int, text> static, PRIMARY KEY (k, c))");
  auto mapping = MapTable(table, MappingOptions{});
  ASSERT_TRUE(mapping.ok()) << mapping.status().ToString();
  auto index = [&](const char* name) { return static_cast<int>(table.FindColumn(name) - table.columns.data()); };
  auto complex = [&](const char* name, std::vector<std::pair<std::string, std::string>> cells) {
    FoldColumn column;
    column.column = index(name);
    column.is_complex = true;
    for (auto& [path, value] : cells) {
      FoldCell cell;
      cell.timestamp = 1;
      cell.path = path;
      cell.value = value;
      column.cells.push_back(cell);
    }
    return column;
  };
  auto sorted = [](std::vector<FoldColumn> columns) {
    std::sort(columns.begin(), columns.end(), [](auto& x, auto& y) { return x.column < y.column; });
    return columns;
  };
  FoldRow full;
  full.clustering.values = {BE32(1)};
  full.columns = sorted({complex("tags", {{"a", ""}, {"", ""}, {"zz", ""}}),
                         complex("counts", {{"x", BE32(1)}, {"y", ""}, {"", BE32(3)}}),
                         complex("l", {{std::string(16, '\1'), BE32(5)}, {std::string(16, '\2'), ""}}),
                         Simple(table, "fl", BE32(2) + BE32(4) + BE32(7) + BE32(0xffffffff))});
  FoldRow sparse;
  sparse.clustering.values = {BE32(2)};
  sparse.columns = sorted({complex("counts", {{"only", BE32(-1)}}), complex("l", {})});
  FoldRow static_row;
  static_row.columns = {complex("s", {{BE32(9), "nine"}, {BE32(10), ""}})};

  RowConverter converter(table, *mapping, MappingOptions{});
  RowBatchConverter batch_converter(table, *mapping, MappingOptions{});
  parquet::Schema parquet_schema = iceberg::ToParquetSchema(mapping->schema);
  parquet::RowBatch expected(parquet_schema), got(parquet_schema);
  const std::string key = BE32(7);
  for (const FoldRow* row : {&full, &sparse, &full}) {
    for (const FoldRow* with_static : {static_cast<const FoldRow*>(&static_row), static_cast<const FoldRow*>(nullptr)}) {
      auto value = converter.Convert(key, with_static, *row);
      ASSERT_TRUE(value.ok()) << value.status().ToString();
      ASSERT_TRUE(expected.AppendRow(*value).ok()) << value->ToString();
      auto hash = batch_converter.Append(key, with_static, *row, &got);
      ASSERT_TRUE(hash.ok()) << hash.status().ToString();
      EXPECT_EQ(*hash, HashRow(*value, FieldIds(mapping->schema))) << value->ToString();
    }
  }
  ExpectSameBatches(got, expected);

  // A map key that is null (an empty int) is refused by both.
  FoldRow null_key = sparse;
  null_key.columns = {complex("s", {{"", "x"}})};
  EXPECT_FALSE(batch_converter.Append(key, &null_key, sparse, &got).ok());
  auto value = converter.Convert(key, &null_key, sparse);
  EXPECT_TRUE(!value.ok() || !expected.AppendRow(*value).ok());
}

TEST(RowBatchConverterTest, TimesAsLongsAndStringsAsTheValueTreeHasThem) {
  TableSchema table = Table(R"(
    CREATE TYPE ks.shift (name text, starts time);
    CREATE TABLE ks.t (k time, c time, v time, st time static, s set<time>, m map<time, time>,
                       l list<frozen<tuple<time, int>>>, u frozen<shift>, PRIMARY KEY (k, c)))");
  auto index = [&](const char* name) { return static_cast<int>(table.FindColumn(name) - table.columns.data()); };
  auto complex = [&](const char* name, std::vector<std::pair<std::string, std::string>> cells) {
    FoldColumn column;
    column.column = index(name);
    column.is_complex = true;
    for (auto& [path, value] : cells) {
      FoldCell cell;
      cell.timestamp = 1;
      cell.path = path;
      cell.value = value;
      column.cells.push_back(cell);
    }
    return column;
  };
  auto sorted = [](std::vector<FoldColumn> columns) {
    std::sort(columns.begin(), columns.end(), [](auto& x, auto& y) { return x.column < y.column; });
    return columns;
  };
  FoldRow full;
  full.clustering.values = {BE64(29574123456789)};
  full.columns = sorted({Simple(table, "v", BE64(1)),
                         complex("s", {{BE64(5), ""}, {BE64(86399999999999), ""}}),
                         complex("m", {{BE64(7), BE64(8)}, {BE64(9), ""}}),
                         complex("l", {{std::string(16, '\1'), Element(BE64(1500)) + Element(BE32(2))}}),
                         Simple(table, "u", Element("early") + Element(BE64(3600000000000)))});
  FoldRow sparse;
  sparse.clustering.values = {BE64(0)};
  sparse.columns = sorted({Simple(table, "v", ""), complex("m", {{BE64(1), BE64(2)}})});
  FoldRow static_row;
  static_row.columns = {Simple(table, "st", BE64(45296789012345))};
  const std::string key = BE64(12345);

  for (TimeAs time_as : {TimeAs::kLong, TimeAs::kString}) {
    SCOPED_TRACE(TimeAsName(time_as));
    MappingOptions options;
    options.time_as = time_as;
    auto mapping = MapTable(table, options);
    ASSERT_TRUE(mapping.ok()) << mapping.status().ToString();
    RowConverter converter(table, *mapping, options);
    RowBatchConverter batch_converter(table, *mapping, options);
    parquet::Schema parquet_schema = iceberg::ToParquetSchema(mapping->schema);
    parquet::RowBatch expected(parquet_schema), got(parquet_schema);
    const FoldRow* static_rows[] = {&static_row, nullptr};
    for (const FoldRow* row : {&full, &sparse}) {
      for (const FoldRow* with_static : static_rows) {
        auto value = converter.Convert(key, with_static, *row);
        ASSERT_TRUE(value.ok()) << value.status().ToString();
        ASSERT_TRUE(expected.AppendRow(*value).ok()) << value->ToString();
        auto hash = batch_converter.Append(key, with_static, *row, &got);
        ASSERT_TRUE(hash.ok()) << hash.status().ToString();
        EXPECT_EQ(*hash, HashRow(*value, FieldIds(mapping->schema))) << value->ToString();
      }
    }
    ExpectSameBatches(got, expected);

    // Fields: k, c, st, l, m, s, u, v.
    auto value = converter.Convert(key, &static_row, full);
    ASSERT_TRUE(value.ok()) << value.status().ToString();
    const std::vector<Value>& f = value->fields();
    ASSERT_EQ(f.size(), 8u);
    if (time_as == TimeAs::kLong) {
      EXPECT_EQ(f[0], Value::Int64(12345));
      EXPECT_EQ(f[1], Value::Int64(29574123456789));
      EXPECT_EQ(f[2], Value::Int64(45296789012345));
      EXPECT_EQ(f[3], Value::List({Value::Struct({Value::Int64(1500), Value::Int32(2)})}));
      EXPECT_EQ(f[4], Value::Map({{Value::Int64(7), Value::Int64(8)}, {Value::Int64(9), Value::Null()}}));
      EXPECT_EQ(f[5], Value::List({Value::Int64(5), Value::Int64(86399999999999)}));
      EXPECT_EQ(f[6], Value::Struct({Value::String("early"), Value::Int64(3600000000000)}));
      EXPECT_EQ(f[7], Value::Int64(1));
    } else {
      EXPECT_EQ(f[0], Value::String("00:00:00.000012345"));
      EXPECT_EQ(f[1], Value::String("08:12:54.123456789"));
      EXPECT_EQ(f[2], Value::String("12:34:56.789012345"));
      EXPECT_EQ(f[3], Value::List({Value::Struct({Value::String("00:00:00.000001500"), Value::Int32(2)})}));
      EXPECT_EQ(f[5], Value::List({Value::String("00:00:00.000000005"), Value::String("23:59:59.999999999")}));
      EXPECT_EQ(f[6], Value::Struct({Value::String("early"), Value::String("01:00:00.000000000")}));
      EXPECT_EQ(f[7], Value::String("00:00:00.000000001"));
    }
    // A time outside one day names its column in both converters.
    FoldRow bad = sparse;
    bad.columns = sorted({complex("s", {{BE64(86400000000000), ""}})});
    auto hash = batch_converter.Append(key, nullptr, bad, &got);
    ASSERT_FALSE(hash.ok());
    EXPECT_NE(hash.status().message().find("column s"), std::string::npos) << hash.status().ToString();
    auto converted = converter.Convert(key, nullptr, bad);
    ASSERT_FALSE(converted.ok());
    EXPECT_NE(converted.status().message().find("column s"), std::string::npos) << converted.status().ToString();
  }
}

TEST_F(RowConverterTest, BatchConverterErrorsNameTheColumn) {
  RowBatchConverter converter(table_, mapping_, MappingOptions{});
  parquet::RowBatch batch(iceberg::ToParquetSchema(mapping_.schema));
  FoldRow row = Row();
  row.columns.push_back(Simple(table_, "w", Bytes({1, 2, 3})));
  std::sort(row.columns.begin(), row.columns.end(), [](auto& x, auto& y) { return x.column < y.column; });
  auto hash = converter.Append(key_, nullptr, row, &batch);
  ASSERT_FALSE(hash.ok());
  EXPECT_EQ(hash.status().kind(), StatusKind::kInvalidArgument);
  EXPECT_NE(hash.status().message().find("column w"), std::string::npos) << hash.status().ToString();

  // A list element of the wrong width, in a nested field.
  FoldRow bad_list = Row();
  bad_list.columns.back().cells.front().value = Bytes({1});
  hash = converter.Append(key_, nullptr, bad_list, &batch);
  ASSERT_FALSE(hash.ok());
  EXPECT_NE(hash.status().message().find("column l"), std::string::npos) << hash.status().ToString();

  // A partition key without the table's two components.
  EXPECT_FALSE(converter.Append(Component(BE32(7)), nullptr, Row(), &batch).ok());
}

TEST(RowConverterSingleKeyTest, TimestampKeyAndEmptyValues) {
  TableSchema table = Table("CREATE TABLE ks.s (k timestamp, c text, v int, PRIMARY KEY (k, c))");
  auto mapping = MapTable(table, MappingOptions{});
  ASSERT_TRUE(mapping.ok()) << mapping.status().ToString();
  RowConverter converter(table, *mapping, MappingOptions{});
  FoldRow row;
  row.clustering.values = {""};
  row.columns = {Simple(table, "v", "")};
  auto value = converter.Convert(BE64(1500), nullptr, row);
  ASSERT_TRUE(value.ok()) << value.status().ToString();
  EXPECT_EQ(*value, Value::Struct({Value::Int64(1500000), Value::String(""), Value::Null()}));
}

}  // namespace
}  // namespace cqlite::materialize
