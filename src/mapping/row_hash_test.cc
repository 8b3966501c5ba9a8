#include "mapping/row_hash.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace cqlite::materialize {
namespace {

using parquet::Value;

// ---------------------------------------------------------------------------
// HashValue and RowHasher

Value SampleRow() {
  return Value::Struct({
      Value::Int32(7),
      Value::String("hello"),
      Value::Null(),
      Value::Int64(1700000000000000),
      Value::Double(2.5),
      Value::Float(1.5f),
      Value::Bool(true),
      Value::List({Value::Int32(1), Value::Int32(2)}),
      Value::Map({{Value::String("k"), Value::List({Value::Struct({Value::Int32(1), Value::String("deep")})})}}),
      Value::Bytes(std::string(20, 'x')),
  });
}

TEST(HashValueTest, EqualValuesHashEqually) {
  EXPECT_EQ(HashValue(SampleRow()), HashValue(SampleRow()));
  Value copy = SampleRow();
  EXPECT_EQ(HashValue(copy), HashValue(SampleRow()));
  EXPECT_EQ(HashValue(Value::Null()), HashValue(Value::Null()));
  EXPECT_EQ(HashValue(Value::Double(std::nan(""))), HashValue(Value::Double(std::nan(""))));
}

TEST(HashValueTest, AnyChangeChangesTheHash) {
  const uint64_t base = HashValue(SampleRow());
  auto with = [](size_t field, Value v) {
    std::vector<Value> fields = SampleRow().fields();
    fields[field] = std::move(v);
    return HashValue(Value::Struct(std::move(fields)));
  };
  std::vector<std::pair<const char*, uint64_t>> changed = {
      {"int", with(0, Value::Int32(8))},
      {"int as long", with(0, Value::Int64(7))},
      {"string", with(1, Value::String("hellp"))},
      {"string longer", with(1, Value::String(std::string("hello\0", 6)))},
      {"null to empty string", with(2, Value::String(""))},
      {"null to empty list", with(2, Value::List({}))},
      {"null to empty struct", with(2, Value::Struct({}))},
      {"null to false", with(2, Value::Bool(false))},
      {"null to zero", with(2, Value::Int32(0))},
      {"long", with(3, Value::Int64(1700000000000001))},
      {"double", with(4, Value::Double(std::nextafter(2.5, 3.0)))},
      {"double as float", with(4, Value::Float(2.5f))},
      {"float", with(5, Value::Float(std::nextafter(1.5f, 2.0f)))},
      {"bool", with(6, Value::Bool(false))},
      {"list element", with(7, Value::List({Value::Int32(1), Value::Int32(3)}))},
      {"list order", with(7, Value::List({Value::Int32(2), Value::Int32(1)}))},
      {"list longer", with(7, Value::List({Value::Int32(1), Value::Int32(2), Value::Null()}))},
      {"list as struct", with(7, Value::Struct({Value::Int32(1), Value::Int32(2)}))},
      {"nested deep", with(8, Value::Map({{Value::String("k"), Value::List({Value::Struct(
                                                                   {Value::Int32(1), Value::String("deeq")})})}}))},
      {"nested null", with(8, Value::Map({{Value::String("k"), Value::List({Value::Struct(
                                                                   {Value::Int32(1), Value::Null()})})}}))},
      {"map key", with(8, Value::Map({{Value::String("j"), Value::List({Value::Struct(
                                                                {Value::Int32(1), Value::String("deep")})})}}))},
      {"map empty", with(8, Value::Map({}))},
      {"bytes last", with(9, Value::Bytes(std::string(19, 'x') + "y"))},
      {"bytes shorter", with(9, Value::Bytes(std::string(19, 'x')))},
  };
  for (const auto& [what, hash] : changed) EXPECT_NE(hash, base) << what;

  // Float bits: -0.0 and 0.0 compare equal but are different values.
  EXPECT_NE(HashValue(Value::Double(0.0)), HashValue(Value::Double(-0.0)));
  EXPECT_NE(HashValue(Value::Float(0.0f)), HashValue(Value::Float(-0.0f)));
  double nan1 = std::numeric_limits<double>::quiet_NaN();
  uint64_t bits;
  std::memcpy(&bits, &nan1, 8);
  bits ^= 1;
  double nan2;
  std::memcpy(&nan2, &bits, 8);
  EXPECT_NE(HashValue(Value::Double(nan1)), HashValue(Value::Double(nan2)));

  // Moving a value between neighbouring fields changes the hash.
  EXPECT_NE(HashValue(Value::Struct({Value::String("ab"), Value::String("")})),
            HashValue(Value::Struct({Value::String("a"), Value::String("b")})));
  EXPECT_NE(HashValue(Value::List({Value::List({}), Value::List({Value::Null()})})),
            HashValue(Value::List({Value::List({Value::Null()}), Value::List({})})));
  // Bytes differing only past a multiple of eight, or in a zero tail.
  EXPECT_NE(HashValue(Value::Bytes("12345678a")), HashValue(Value::Bytes("12345678b")));
  EXPECT_NE(HashValue(Value::Bytes(std::string("abc", 3))), HashValue(Value::Bytes(std::string("abc\0", 4))));
}

TEST(HashValueTest, TrivialValuesDiffer) {
  EXPECT_NE(HashValue(SampleRow()), HashValue(Value::Null()));
  EXPECT_NE(HashValue(Value::Struct({})), HashValue(Value::List({})));
  EXPECT_NE(HashValue(Value::Map({})), HashValue(Value::List({})));
  EXPECT_NE(HashValue(Value::Bytes("")), HashValue(Value::Null()));
  EXPECT_NE(HashValue(Value::Int32(0)), HashValue(Value::Int64(0)));
}

// Row indexes written before RowHasher existed hold these hashes: a change
// here would make every run after an upgrade rewrite the whole table.
TEST(HashValueTest, HashesAsEarlierVersionsDid) {
  EXPECT_EQ(HashValue(SampleRow()), 10239923557862913821ULL);
  EXPECT_EQ(HashValue(Value::Bytes("")), 1379635666965069564ULL);
}

// A row hashed a value at a time hashes as its value tree.
TEST(RowHasherTest, ValuesOneAtATimeHashAsTheTree) {
  const Value row = SampleRow();
  RowHasher hasher;
  hasher.Struct(row.fields().size());
  hasher.Int32(7);
  hasher.Bytes("hello");
  hasher.Null();
  hasher.Int64(1700000000000000);
  hasher.Double(2.5);
  hasher.Float(1.5f);
  hasher.Bool(true);
  for (size_t i = 7; i < row.fields().size(); ++i) hasher.Add(row.fields()[i]);
  EXPECT_EQ(hasher.hash(), HashValue(row));

  RowHasher other;
  other.Struct(row.fields().size());
  other.Int32(8);
  EXPECT_NE(other.hash(), HashValue(row));
}

}  // namespace
}  // namespace cqlite::materialize

namespace cqlite::materialize {
namespace {

TEST(HashRowTest, NullFieldsDoNotChangeARowsHash) {
  using parquet::Value;
  const uint64_t row = HashRow(Value::Struct({Value::Int32(1), Value::String("a")}), {1, 2});
  // A column added since (null in the row), wherever it sorts.
  EXPECT_EQ(HashRow(Value::Struct({Value::Null(), Value::Int32(1), Value::String("a")}), {7, 1, 2}), row);
  // A value under another field (a column dropped and added again) is another row.
  EXPECT_NE(HashRow(Value::Struct({Value::Int32(1), Value::String("a")}), {1, 3}), row);
  EXPECT_NE(HashRow(Value::Struct({Value::Int32(1), Value::Null()}), {1, 2}), row);
}

}  // namespace
}  // namespace cqlite::materialize
