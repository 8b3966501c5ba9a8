#include "iceberg/schema.h"

#include <gtest/gtest.h>

#include <functional>

#include <nlohmann/json.hpp>

namespace cqlite::iceberg {
namespace {

using nlohmann::json;
using Kind = Type::Kind;

NestedField Required(int32_t id, std::string name, TypePtr type) { return {id, std::move(name), true, type}; }
NestedField Optional(int32_t id, std::string name, TypePtr type) { return {id, std::move(name), false, type}; }
TypePtr P(Kind kind) { return Type::Primitive(kind); }

// One field of every primitive type, a decimal, a struct, a list and a map.
Schema EveryTypeSchema() {
  Schema s;
  s.schema_id = 3;
  s.fields = {
      Required(1, "b", P(Kind::kBoolean)),
      Optional(2, "i", P(Kind::kInt)),
      Optional(3, "l", P(Kind::kLong)),
      Optional(4, "f", P(Kind::kFloat)),
      Optional(5, "d", P(Kind::kDouble)),
      Optional(6, "dec", Type::Decimal(38, 18)),
      Optional(7, "day", P(Kind::kDate)),
      Optional(8, "t", P(Kind::kTime)),
      Optional(9, "ts", P(Kind::kTimestamptz)),
      Required(10, "s", P(Kind::kString)),
      Optional(11, "u", P(Kind::kUuid)),
      Optional(12, "bin", P(Kind::kBinary)),
      Optional(13, "st", Type::Struct({Required(16, "x", P(Kind::kInt)), Optional(17, "y", P(Kind::kString))})),
      Optional(14, "tags", Type::List(18, false, P(Kind::kString))),
      Optional(15, "m", Type::Map(19, P(Kind::kString), 20, true, Type::List(21, true, P(Kind::kLong)))),
  };
  s.identifier_field_ids = {1, 10};
  return s;
}

// The JSON the spec's "Schemas" appendix (Appendix C) gives for the schema above.
const char kEveryTypeJson[] = R"json({
  "type": "struct",
  "schema-id": 3,
  "identifier-field-ids": [1, 10],
  "fields": [
    {"id": 1, "name": "b", "required": true, "type": "boolean"},
    {"id": 2, "name": "i", "required": false, "type": "int"},
    {"id": 3, "name": "l", "required": false, "type": "long"},
    {"id": 4, "name": "f", "required": false, "type": "float"},
    {"id": 5, "name": "d", "required": false, "type": "double"},
    {"id": 6, "name": "dec", "required": false, "type": "decimal(38, 18)"},
    {"id": 7, "name": "day", "required": false, "type": "date"},
    {"id": 8, "name": "t", "required": false, "type": "time"},
    {"id": 9, "name": "ts", "required": false, "type": "timestamptz"},
    {"id": 10, "name": "s", "required": true, "type": "string"},
    {"id": 11, "name": "u", "required": false, "type": "uuid"},
    {"id": 12, "name": "bin", "required": false, "type": "binary"},
    {"id": 13, "name": "st", "required": false, "type": {
      "type": "struct",
      "fields": [
        {"id": 16, "name": "x", "required": true, "type": "int"},
        {"id": 17, "name": "y", "required": false, "type": "string"}
      ]}},
    {"id": 14, "name": "tags", "required": false, "type": {
      "type": "list", "element-id": 18, "element-required": false, "element": "string"}},
    {"id": 15, "name": "m", "required": false, "type": {
      "type": "map", "key-id": 19, "key": "string", "value-id": 20, "value-required": true,
      "value": {"type": "list", "element-id": 21, "element-required": true, "element": "long"}}}
  ]
})json";

TEST(IcebergSchemaTest, PrimitiveTypeNames) {
  EXPECT_EQ(P(Kind::kBoolean)->ToString(), "boolean");
  EXPECT_EQ(P(Kind::kInt)->ToString(), "int");
  EXPECT_EQ(P(Kind::kLong)->ToString(), "long");
  EXPECT_EQ(P(Kind::kFloat)->ToString(), "float");
  EXPECT_EQ(P(Kind::kDouble)->ToString(), "double");
  EXPECT_EQ(P(Kind::kDate)->ToString(), "date");
  EXPECT_EQ(P(Kind::kTime)->ToString(), "time");
  EXPECT_EQ(P(Kind::kTimestamptz)->ToString(), "timestamptz");
  EXPECT_EQ(P(Kind::kString)->ToString(), "string");
  EXPECT_EQ(P(Kind::kUuid)->ToString(), "uuid");
  EXPECT_EQ(P(Kind::kBinary)->ToString(), "binary");
  EXPECT_EQ(Type::Decimal(9, 2)->ToString(), "decimal(9, 2)");
  EXPECT_EQ(Type::Decimal(38, 0)->ToString(), "decimal(38, 0)");
  EXPECT_EQ(P(Kind::kTimestamp)->ToString(), "timestamp");
  EXPECT_EQ(Type::Fixed(16)->ToString(), "fixed[16]");
}

// Types CQLite's own tables never use, in schemas other engines commit (the
// Iceberg Java library writes both): timestamp without a zone and fixed[L].
TEST(IcebergSchemaTest, FromJsonReadsTimestampAndFixed) {
  const char* text = R"json({"type":"struct","schema-id":0,"fields":[
      {"id":1,"name":"local_ts","required":false,"type":"timestamp"},
      {"id":2,"name":"digest","required":true,"type":"fixed[16]"}]})json";
  auto parsed = SchemaFromJson(json::parse(text));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->fields[0].type->kind, Kind::kTimestamp);
  EXPECT_EQ(parsed->fields[1].type->kind, Kind::kFixed);
  EXPECT_EQ(parsed->fields[1].type->length, 16);
  EXPECT_EQ(SchemaToJson(*parsed), json::parse(text));
  Schema other = *parsed;
  other.fields[1].type = Type::Fixed(8);
  EXPECT_FALSE(SameStructure(*parsed, other));

  parquet::Schema p = ToParquetSchema(*parsed);
  EXPECT_EQ(p.fields[0].physical_type, parquet::PhysicalType::kInt64);
  EXPECT_EQ(p.fields[0].logical_type.kind, parquet::LogicalType::kTimestamp);
  EXPECT_FALSE(p.fields[0].logical_type.utc_adjusted);
  EXPECT_EQ(p.fields[1].physical_type, parquet::PhysicalType::kFixedLenByteArray);
  EXPECT_EQ(p.fields[1].logical_type.kind, parquet::LogicalType::kNone);
  EXPECT_EQ(p.fields[1].type_length, 16);
  EXPECT_TRUE(parquet::ValidateSchema(p).ok()) << parquet::ValidateSchema(p).ToString();

  for (const char* bad : {"fixed[0]", "fixed[-3]", "fixed[16", "fixed[16]x", "fixed[ 16]", "fixed[016]"}) {
    SCOPED_TRACE(bad);
    json j = json::parse(R"json({"type":"struct","fields":[{"id":1,"name":"a","type":"int"}]})json");
    j["fields"][0]["type"] = bad;
    auto refused = SchemaFromJson(j);
    EXPECT_FALSE(refused.ok());
  }
}

TEST(IcebergSchemaTest, ToJsonIsTheSpecForm) {
  EXPECT_EQ(SchemaToJson(EveryTypeSchema()), json::parse(kEveryTypeJson));
}

TEST(IcebergSchemaTest, ToJsonLeavesOutEmptyIdentifierFields) {
  Schema s;
  s.fields = {Optional(1, "a", P(Kind::kInt))};
  json j = SchemaToJson(s);
  EXPECT_FALSE(j.contains("identifier-field-ids"));
  EXPECT_EQ(j["schema-id"], 0);
  EXPECT_EQ(j["type"], "struct");
}

TEST(IcebergSchemaTest, FromJsonRoundTrip) {
  auto parsed = SchemaFromJson(json::parse(kEveryTypeJson));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->schema_id, 3);
  EXPECT_EQ(parsed->identifier_field_ids, (std::vector<int32_t>{1, 10}));
  EXPECT_TRUE(SameStructure(*parsed, EveryTypeSchema()));
  ASSERT_EQ(parsed->fields.size(), 15u);
  EXPECT_EQ(parsed->fields[5].type->kind, Kind::kDecimal);
  EXPECT_EQ(parsed->fields[5].type->precision, 38);
  EXPECT_EQ(parsed->fields[5].type->scale, 18);
  const Type& map = *parsed->fields[14].type;
  ASSERT_EQ(map.kind, Kind::kMap);
  EXPECT_EQ(map.fields[0].name, "key");
  EXPECT_TRUE(map.fields[0].required);
  EXPECT_EQ(map.fields[1].name, "value");
  EXPECT_EQ(map.fields[1].type->fields[0].name, "element");
  EXPECT_EQ(SchemaToJson(*parsed), json::parse(kEveryTypeJson));
}

TEST(IcebergSchemaTest, FromJsonAcceptsDecimalWithoutSpaceAndMissingRequired) {
  // The spec writes decimals as "decimal(P,S)"; Java writes "decimal(P, S)".
  auto parsed = SchemaFromJson(json::parse(R"json({"type":"struct","fields":[
      {"id":1,"name":"a","type":"decimal(9,2)"}]})json"));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->schema_id, 0);
  EXPECT_EQ(parsed->fields[0].type->precision, 9);
  EXPECT_EQ(parsed->fields[0].type->scale, 2);
  EXPECT_FALSE(parsed->fields[0].required);
}

TEST(IcebergSchemaTest, FromJsonErrors) {
  struct Case {
    const char* json;
    StatusKind kind;
  };
  const Case cases[] = {
      {R"([1, 2])", StatusKind::kCorruption},
      {R"({"type":"struct"})", StatusKind::kCorruption},
      {R"({"type":"struct","fields":{}})", StatusKind::kCorruption},
      {R"({"type":"struct","fields":[{"name":"a","type":"int"}]})", StatusKind::kCorruption},
      {R"({"type":"struct","fields":[{"id":1,"type":"int"}]})", StatusKind::kCorruption},
      {R"({"type":"struct","fields":[{"id":1,"name":"a"}]})", StatusKind::kCorruption},
      {R"({"type":"struct","fields":[7]})", StatusKind::kCorruption},
      {R"({"type":"struct","fields":[{"id":1,"name":"a","type":"varchar"}]})", StatusKind::kNotSupported},
      {R"({"type":"struct","fields":[{"id":1,"name":"a","type":{"type":"variant"}}]})", StatusKind::kNotSupported},
      {R"({"type":"struct","fields":[{"id":1,"name":"a","type":{"fields":[]}}]})", StatusKind::kCorruption},
      {R"({"type":"struct","fields":[{"id":1,"name":"a","type":{"type":"list","element":"int"}}]})",
       StatusKind::kCorruption},
      {R"({"type":"struct","fields":[{"id":1,"name":"a","type":{"type":"map","key":"int","value":"int",
          "key-id":2,"value-id":3}}]})",
       StatusKind::kCorruption},
      {R"({"type":"struct","fields":[{"id":1,"name":"a","type":{"type":"struct"}}]})", StatusKind::kCorruption},
      // Members of the wrong JSON type.
      {R"({"type":"struct","fields":[{"id":"one","name":"a","type":"int"}]})", StatusKind::kCorruption},
      {R"({"type":"struct","fields":[{"id":1,"name":2,"type":"int"}]})", StatusKind::kCorruption},
      {R"({"type":"struct","fields":[{"id":1,"name":"a","required":"yes","type":"int"}]})",
       StatusKind::kCorruption},
      {R"({"type":"struct","fields":[{"id":1,"name":"a","type":5}]})", StatusKind::kCorruption},
      {R"({"type":"struct","fields":[{"id":1,"name":"a","type":{"type":3}}]})", StatusKind::kCorruption},
      {R"({"type":"struct","schema-id":"zero","fields":[]})", StatusKind::kCorruption},
      {R"({"type":"struct","fields":[],"identifier-field-ids":"1"})", StatusKind::kCorruption},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.json);
    Result<Schema> parsed = Status::Corruption("not run");
    ASSERT_NO_THROW(parsed = SchemaFromJson(json::parse(c.json)));
    ASSERT_FALSE(parsed.ok());
    EXPECT_EQ(parsed.status().kind(), c.kind) << parsed.status().ToString();
  }
}

TEST(IcebergSchemaTest, HighestFieldId) {
  EXPECT_EQ(Schema{}.HighestFieldId(), 0);
  EXPECT_EQ(EveryTypeSchema().HighestFieldId(), 21);
  Schema s;
  // The largest id is nested, not last.
  s.fields = {Optional(1, "a", Type::Struct({Optional(40, "x", P(Kind::kInt))})), Optional(2, "b", P(Kind::kInt))};
  EXPECT_EQ(s.HighestFieldId(), 40);
}

TEST(IcebergSchemaTest, SameStructure) {
  Schema a = EveryTypeSchema();
  Schema b = EveryTypeSchema();
  b.schema_id = 9;
  EXPECT_TRUE(SameStructure(a, b));

  auto differs = [&a](const std::function<void(Schema*)>& change) {
    Schema c = EveryTypeSchema();
    change(&c);
    return !SameStructure(a, c) && !SameStructure(c, a);
  };
  EXPECT_TRUE(differs([](Schema* s) { s->fields[1].id = 99; }));
  EXPECT_TRUE(differs([](Schema* s) { s->fields[1].name = "j"; }));
  EXPECT_TRUE(differs([](Schema* s) { s->fields[1].required = true; }));
  EXPECT_TRUE(differs([](Schema* s) { s->fields[1].type = P(Kind::kLong); }));
  EXPECT_TRUE(differs([](Schema* s) { s->fields[5].type = Type::Decimal(38, 17); }));
  EXPECT_TRUE(differs([](Schema* s) { s->fields[5].type = Type::Decimal(37, 18); }));
  EXPECT_TRUE(differs([](Schema* s) { s->fields.pop_back(); }));
  EXPECT_TRUE(differs([](Schema* s) { s->identifier_field_ids = {1}; }));
  EXPECT_TRUE(differs([](Schema* s) {
    s->fields[12].type = Type::Struct({Required(16, "x", P(Kind::kInt)), Optional(17, "y", P(Kind::kBinary))});
  }));
  EXPECT_TRUE(differs([](Schema* s) { s->fields[13].type = Type::List(18, true, P(Kind::kString)); }));
  EXPECT_TRUE(differs([](Schema* s) { s->fields[13].type = Type::List(22, false, P(Kind::kString)); }));
  EXPECT_TRUE(differs([](Schema* s) {
    s->fields[14].type = Type::Map(19, P(Kind::kString), 20, false, Type::List(21, true, P(Kind::kLong)));
  }));
}

using parquet::Field;
using parquet::LogicalType;
using parquet::PhysicalType;
using parquet::Repetition;

TEST(IcebergSchemaTest, ToParquetSchemaPrimitives) {
  parquet::Schema p = ToParquetSchema(EveryTypeSchema());
  ASSERT_EQ(p.fields.size(), 15u);
  for (size_t i = 0; i < p.fields.size(); ++i) {
    EXPECT_EQ(p.fields[i].field_id, static_cast<int32_t>(i + 1));
    EXPECT_EQ(p.fields[i].name, EveryTypeSchema().fields[i].name);
  }
  auto expect_leaf = [](const Field& f, PhysicalType physical, LogicalType::Kind logical, Repetition r) {
    SCOPED_TRACE(f.name);
    EXPECT_EQ(f.kind, Field::Kind::kPrimitive);
    EXPECT_EQ(f.physical_type, physical);
    EXPECT_EQ(f.logical_type.kind, logical);
    EXPECT_EQ(f.repetition, r);
  };
  expect_leaf(p.fields[0], PhysicalType::kBoolean, LogicalType::kNone, Repetition::kRequired);
  expect_leaf(p.fields[1], PhysicalType::kInt32, LogicalType::kNone, Repetition::kOptional);
  expect_leaf(p.fields[2], PhysicalType::kInt64, LogicalType::kNone, Repetition::kOptional);
  expect_leaf(p.fields[3], PhysicalType::kFloat, LogicalType::kNone, Repetition::kOptional);
  expect_leaf(p.fields[4], PhysicalType::kDouble, LogicalType::kNone, Repetition::kOptional);

  // decimal(38, 18): the minimum bytes for precision 38 is 16.
  expect_leaf(p.fields[5], PhysicalType::kFixedLenByteArray, LogicalType::kDecimal, Repetition::kOptional);
  EXPECT_EQ(p.fields[5].type_length, 16);
  EXPECT_EQ(p.fields[5].logical_type.precision, 38);
  EXPECT_EQ(p.fields[5].logical_type.scale, 18);

  expect_leaf(p.fields[6], PhysicalType::kInt32, LogicalType::kDate, Repetition::kOptional);
  // time: TIME(MICROS, isAdjustedToUTC = false); timestamptz: TIMESTAMP(MICROS, true).
  expect_leaf(p.fields[7], PhysicalType::kInt64, LogicalType::kTime, Repetition::kOptional);
  EXPECT_EQ(p.fields[7].logical_type.unit, parquet::TimeUnit::kMicros);
  EXPECT_FALSE(p.fields[7].logical_type.utc_adjusted);
  expect_leaf(p.fields[8], PhysicalType::kInt64, LogicalType::kTimestamp, Repetition::kOptional);
  EXPECT_EQ(p.fields[8].logical_type.unit, parquet::TimeUnit::kMicros);
  EXPECT_TRUE(p.fields[8].logical_type.utc_adjusted);

  expect_leaf(p.fields[9], PhysicalType::kByteArray, LogicalType::kString, Repetition::kRequired);
  expect_leaf(p.fields[10], PhysicalType::kFixedLenByteArray, LogicalType::kUuid, Repetition::kOptional);
  EXPECT_EQ(p.fields[10].type_length, 16);
  expect_leaf(p.fields[11], PhysicalType::kByteArray, LogicalType::kNone, Repetition::kOptional);
  EXPECT_TRUE(parquet::ValidateSchema(p).ok()) << parquet::ValidateSchema(p).ToString();
}

TEST(IcebergSchemaTest, ToParquetSchemaNested) {
  parquet::Schema p = ToParquetSchema(EveryTypeSchema());

  const Field& st = p.fields[12];
  EXPECT_EQ(st.kind, Field::Kind::kStruct);
  ASSERT_EQ(st.children.size(), 2u);
  EXPECT_EQ(st.children[0].name, "x");
  EXPECT_EQ(st.children[0].field_id, 16);
  EXPECT_EQ(st.children[0].repetition, Repetition::kRequired);
  EXPECT_EQ(st.children[1].name, "y");
  EXPECT_EQ(st.children[1].field_id, 17);
  EXPECT_EQ(st.children[1].repetition, Repetition::kOptional);

  const Field& tags = p.fields[13];
  EXPECT_EQ(tags.kind, Field::Kind::kList);
  EXPECT_EQ(tags.field_id, 14);
  ASSERT_EQ(tags.children.size(), 1u);
  EXPECT_EQ(tags.children[0].name, "element");
  EXPECT_EQ(tags.children[0].field_id, 18);
  EXPECT_EQ(tags.children[0].repetition, Repetition::kOptional);
  EXPECT_EQ(tags.children[0].logical_type.kind, LogicalType::kString);

  const Field& m = p.fields[14];
  EXPECT_EQ(m.kind, Field::Kind::kMap);
  EXPECT_EQ(m.field_id, 15);
  ASSERT_EQ(m.children.size(), 2u);
  EXPECT_EQ(m.children[0].name, "key");
  EXPECT_EQ(m.children[0].field_id, 19);
  EXPECT_EQ(m.children[0].repetition, Repetition::kRequired);
  EXPECT_EQ(m.children[1].name, "value");
  EXPECT_EQ(m.children[1].field_id, 20);
  EXPECT_EQ(m.children[1].repetition, Repetition::kRequired);
  EXPECT_EQ(m.children[1].kind, Field::Kind::kList);
  ASSERT_EQ(m.children[1].children.size(), 1u);
  EXPECT_EQ(m.children[1].children[0].field_id, 21);
  EXPECT_EQ(m.children[1].children[0].repetition, Repetition::kRequired);
  EXPECT_EQ(m.children[1].children[0].physical_type, PhysicalType::kInt64);

  // The footer's flattened form: the 3-level list and key_value map groups
  // between the field and its leaves, and a field id on every non-synthetic node.
  parquet::LevelPlan plan = parquet::BuildLevelPlan(p);
  std::vector<std::vector<std::string>> paths;
  std::vector<std::optional<int32_t>> ids;
  for (const parquet::ColumnDescriptor& c : plan.columns) {
    paths.push_back(c.path);
    ids.push_back(c.field->field_id);
  }
  EXPECT_EQ(paths.size(), 17u);  // 12 primitives, 2 struct leaves, 1 list leaf, map key and value element
  EXPECT_EQ(paths[14], (std::vector<std::string>{"tags", "list", "element"}));
  EXPECT_EQ(paths[15], (std::vector<std::string>{"m", "key_value", "key"}));
  EXPECT_EQ(paths[16], (std::vector<std::string>{"m", "key_value", "value", "list", "element"}));
  EXPECT_EQ(ids[12], 16);
  EXPECT_EQ(ids[13], 17);
  EXPECT_EQ(ids[14], 18);
  EXPECT_EQ(ids[15], 19);
  EXPECT_EQ(ids[16], 21);
}

}  // namespace
}  // namespace cqlite::iceberg
