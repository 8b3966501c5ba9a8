#include "iceberg/data_files.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "parquet/reader.h"

namespace cqlite::iceberg {
namespace {

using Kind = Type::Kind;
using parquet::Value;

NestedField Optional(int32_t id, std::string name, TypePtr type) { return {id, std::move(name), false, type}; }
TypePtr P(Kind kind) { return Type::Primitive(kind); }

// Single-value serialization (spec Appendix D), written out byte by byte.
std::string Bytes(std::initializer_list<uint8_t> bytes) { return std::string(bytes.begin(), bytes.end()); }

std::string Fixed16(uint8_t fill, uint8_t last) {
  std::string out(16, static_cast<char>(fill));
  out[15] = static_cast<char>(last);
  return out;
}

// Writes `rows` of `schema` with our Parquet writer and describes the file.
DataFile WriteAndDescribe(MemoryFileSystem& fs, const Schema& schema, const std::vector<Value>& rows,
                          int64_t* file_size = nullptr) {
  const std::string path = "/warehouse/t/data/00000-0.parquet";
  auto writer = parquet::ParquetWriter::Open(fs, path, ToParquetSchema(schema));
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  for (const Value& row : rows) {
    Status st = (*writer)->WriteRow(row);
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  auto written = (*writer)->Close();
  EXPECT_TRUE(written.ok()) << written.status().ToString();
  if (file_size) *file_size = static_cast<int64_t>(fs.ReadFileToString(path)->size());
  return DescribeDataFile(path, *written, schema);
}

Schema EveryPrimitiveSchema() {
  Schema s;
  s.fields = {
      Optional(1, "b", P(Kind::kBoolean)),
      Optional(2, "i", P(Kind::kInt)),
      Optional(3, "l", P(Kind::kLong)),
      Optional(4, "f", P(Kind::kFloat)),
      Optional(5, "d", P(Kind::kDouble)),
      Optional(6, "dec", Type::Decimal(38, 18)),
      Optional(7, "day", P(Kind::kDate)),
      Optional(8, "t", P(Kind::kTime)),
      Optional(9, "ts", P(Kind::kTimestamptz)),
      Optional(10, "s", P(Kind::kString)),
      Optional(11, "u", P(Kind::kUuid)),
      Optional(12, "bin", P(Kind::kBinary)),
      Optional(13, "long_s", P(Kind::kString)),
      Optional(14, "st", Type::Struct({Optional(15, "x", P(Kind::kInt))})),
      Optional(16, "tags", Type::List(17, false, P(Kind::kInt))),
  };
  return s;
}

TEST(DescribeDataFileTest, CountsAndBoundsOfEveryPrimitive) {
  MemoryFileSystem fs;
  const float nan_f = std::numeric_limits<float>::quiet_NaN();
  const double nan_d = std::numeric_limits<double>::quiet_NaN();
  std::vector<Value> rows = {
      Value::Struct({Value::Bool(true), Value::Int32(-5), Value::Int64(int64_t{1} << 40), Value::Float(1.5f),
                     Value::Double(nan_d), Value::Bytes(Fixed16(0, 1)), Value::Int32(19000), Value::Int64(1000),
                     Value::Int64(-1000), Value::String("banana"), Value::Bytes(Fixed16(0x11, 0x11)),
                     Value::Bytes("\x01\x02"), Value::String("short"), Value::Struct({Value::Int32(1)}),
                     Value::List({Value::Int32(1), Value::Int32(2)})}),
      Value::Struct({Value::Bool(false), Value::Int32(7), Value::Int64(-3), Value::Float(nan_f), Value::Double(2.25),
                     Value::Bytes(Fixed16(0xff, 0xff)), Value::Int32(-1), Value::Int64(5), Value::Int64(10),
                     Value::String("apple"), Value::Bytes(Fixed16(0x22, 0x22)), Value::Bytes(""),
                     Value::String("this string is longer than sixteen bytes"), Value::Null(), Value::Null()}),
      Value::Struct(std::vector<Value>(15)),  // all null
  };
  int64_t size = 0;
  DataFile file = WriteAndDescribe(fs, EveryPrimitiveSchema(), rows, &size);

  EXPECT_EQ(file.content, FileContent::kData);
  EXPECT_EQ(file.file_path, "/warehouse/t/data/00000-0.parquet");
  EXPECT_EQ(file.file_format, "parquet");
  EXPECT_EQ(file.record_count, 3);
  EXPECT_EQ(file.file_size_in_bytes, size);
  EXPECT_EQ(file.sort_order_id, 0);  // the unsorted order
  EXPECT_FALSE(file.referenced_data_file.has_value());

  for (int32_t id = 1; id <= 13; ++id) {
    SCOPED_TRACE(id);
    EXPECT_EQ(file.value_counts.at(id), 3);  // nulls included
    EXPECT_EQ(file.null_value_counts.at(id), 1);
  }
  // NaN counts for float and double columns only.
  EXPECT_EQ(file.nan_value_counts, (std::map<int32_t, int64_t>{{4, 1}, {5, 1}}));
  // Metrics are keyed by primitive fields only.
  for (int32_t id : {14, 16}) {
    EXPECT_EQ(file.value_counts.count(id), 0u);
    EXPECT_EQ(file.lower_bounds.count(id), 0u);
  }

  std::map<int32_t, std::string> lower = {
      {1, Bytes({0x00})},
      {2, Bytes({0xfb, 0xff, 0xff, 0xff})},                          // -5
      {3, Bytes({0xfd, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})},  // -3
      {4, Bytes({0x00, 0x00, 0xc0, 0x3f})},                          // 1.5f, NaN left out
      {5, Bytes({0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x40})},  // 2.25, NaN left out
      {7, Bytes({0xff, 0xff, 0xff, 0xff})},                          // 1969-12-31
      {8, Bytes({0x05, 0, 0, 0, 0, 0, 0, 0})},
      {9, Bytes({0x18, 0xfc, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})},  // -1000 µs
      {10, "apple"},
      {12, ""},
      {13, "short"},
  };
  std::map<int32_t, std::string> upper = {
      {1, Bytes({0x01})},
      {2, Bytes({0x07, 0x00, 0x00, 0x00})},
      {3, Bytes({0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00})},  // 2^40
      {4, Bytes({0x00, 0x00, 0xc0, 0x3f})},
      {5, Bytes({0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x40})},
      {7, Bytes({0x38, 0x4a, 0x00, 0x00})},  // 19000
      {8, Bytes({0xe8, 0x03, 0, 0, 0, 0, 0, 0})},
      {9, Bytes({0x0a, 0, 0, 0, 0, 0, 0, 0})},
      {10, "banana"},
      {12, Bytes({0x01, 0x02})},
      // 13: the upper bound is longer than 16 bytes, so left out.
  };
  // Decimal (6) and uuid (11) bounds are left out: Parquet orders them otherwise.
  EXPECT_EQ(file.lower_bounds, lower);
  EXPECT_EQ(file.upper_bounds, upper);
}

TEST(DescribeDataFileTest, VariableLengthBoundsUpToSixteenBytes) {
  Schema s;
  s.fields = {Optional(1, "s", P(Kind::kString)), Optional(2, "bin", P(Kind::kBinary))};
  MemoryFileSystem fs;
  DataFile file = WriteAndDescribe(
      fs, s,
      {Value::Struct({Value::String(std::string(16, 'a')), Value::Bytes(std::string(17, '\x01'))}),
       Value::Struct({Value::String(std::string(17, 'b')), Value::Bytes(std::string(16, '\x02'))})});
  EXPECT_EQ(file.lower_bounds, (std::map<int32_t, std::string>{{1, std::string(16, 'a')}}));
  EXPECT_EQ(file.upper_bounds, (std::map<int32_t, std::string>{{2, std::string(16, '\x02')}}));
}

TEST(DescribeDataFileTest, NoBoundsWithoutANonNullNonNanValue) {
  Schema s;
  s.fields = {Optional(1, "f", P(Kind::kFloat)), Optional(2, "d", P(Kind::kDouble)), Optional(3, "i", P(Kind::kInt))};
  MemoryFileSystem fs;
  const double nan = std::nan("");
  DataFile file = WriteAndDescribe(
      fs, s,
      {Value::Struct({Value::Float(static_cast<float>(nan)), Value::Double(nan), Value::Null()}),
       Value::Struct({Value::Null(), Value::Double(nan), Value::Null()})});
  EXPECT_EQ(file.record_count, 2);
  EXPECT_EQ(file.value_counts, (std::map<int32_t, int64_t>{{1, 2}, {2, 2}, {3, 2}}));
  EXPECT_EQ(file.null_value_counts, (std::map<int32_t, int64_t>{{1, 1}, {2, 0}, {3, 2}}));
  EXPECT_EQ(file.nan_value_counts, (std::map<int32_t, int64_t>{{1, 1}, {2, 2}}));
  EXPECT_TRUE(file.lower_bounds.empty());
  EXPECT_TRUE(file.upper_bounds.empty());
}

TEST(WritePositionDeleteFileTest, WritesTheSpecSchemaAndRows) {
  MemoryFileSystem fs;
  const std::string data_file = "s3://bucket/t/data/00000-0.parquet";
  const std::string path = "/warehouse/t/data/delete-0.parquet";
  auto deletes = WritePositionDeleteFile(fs, path, data_file, {0, 5, 7, 100000}, parquet::CompressionCodec::kZstd);
  ASSERT_TRUE(deletes.ok()) << deletes.status().ToString();
  EXPECT_EQ(deletes->content, FileContent::kPositionDeletes);
  EXPECT_EQ(deletes->file_path, path);
  EXPECT_EQ(deletes->file_format, "parquet");
  EXPECT_EQ(deletes->record_count, 4);
  EXPECT_EQ(deletes->file_size_in_bytes, static_cast<int64_t>(fs.ReadFileToString(path)->size()));
  EXPECT_EQ(deletes->referenced_data_file, data_file);
  // Position deletes are sorted by file and position, not by a table order.
  EXPECT_FALSE(deletes->sort_order_id.has_value());
  EXPECT_TRUE(deletes->equality_ids.empty());

  auto reader = parquet::ParquetReader::Open(fs, path);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const parquet::Schema& schema = (*reader)->schema();
  ASSERT_EQ(schema.fields.size(), 2u);
  EXPECT_EQ(schema.fields[0].name, "file_path");
  EXPECT_EQ(schema.fields[0].field_id, 2147483546);
  EXPECT_EQ(schema.fields[0].repetition, parquet::Repetition::kRequired);
  EXPECT_EQ(schema.fields[0].physical_type, parquet::PhysicalType::kByteArray);
  EXPECT_EQ(schema.fields[0].logical_type.kind, parquet::LogicalType::kString);
  EXPECT_EQ(schema.fields[1].name, "pos");
  EXPECT_EQ(schema.fields[1].field_id, 2147483545);
  EXPECT_EQ(schema.fields[1].repetition, parquet::Repetition::kRequired);
  EXPECT_EQ(schema.fields[1].physical_type, parquet::PhysicalType::kInt64);
  EXPECT_EQ((*reader)->num_rows(), 4);
  auto rows = (*reader)->ReadAll();
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  std::vector<Value> expected;
  for (int64_t pos : {0, 5, 7, 100000}) expected.push_back(Value::Struct({Value::String(data_file), Value::Int64(pos)}));
  EXPECT_EQ(*rows, expected);
}

TEST(WritePositionDeleteFileTest, Uncompressed) {
  MemoryFileSystem fs;
  auto deletes = WritePositionDeleteFile(fs, "d.parquet", "data.parquet", {3}, parquet::CompressionCodec::kUncompressed);
  ASSERT_TRUE(deletes.ok()) << deletes.status().ToString();
  EXPECT_EQ(deletes->record_count, 1);
  auto reader = parquet::ParquetReader::Open(fs, "d.parquet");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto rows = (*reader)->ReadAll();
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (std::vector<Value>{Value::Struct({Value::String("data.parquet"), Value::Int64(3)})}));
}

DataFile File(FileContent content, int64_t records, int64_t size) {
  DataFile f;
  f.content = content;
  f.record_count = records;
  f.file_size_in_bytes = size;
  return f;
}

TEST(SummaryMetricsTest, FirstSnapshot) {
  auto s = SummaryMetrics({File(FileContent::kData, 10, 100), File(FileContent::kData, 5, 50)}, {});
  EXPECT_EQ(s.at("added-data-files"), "2");
  EXPECT_EQ(s.at("added-records"), "15");
  EXPECT_EQ(s.at("added-files-size"), "150");
  EXPECT_EQ(s.count("added-delete-files"), 0u);
  EXPECT_EQ(s.count("added-position-deletes"), 0u);
  EXPECT_EQ(s.at("total-data-files"), "2");
  EXPECT_EQ(s.at("total-delete-files"), "0");
  EXPECT_EQ(s.at("total-records"), "15");
  EXPECT_EQ(s.at("total-files-size"), "150");
  EXPECT_EQ(s.at("total-position-deletes"), "0");
  EXPECT_EQ(s.at("total-equality-deletes"), "0");
}

TEST(SummaryMetricsTest, TotalsAccumulateOverThePreviousSummary) {
  const std::map<std::string, std::string> previous = {
      {"operation", "append"},          {"added-data-files", "9"},   {"total-data-files", "4"},
      {"total-delete-files", "1"},      {"total-records", "100"},    {"total-files-size", "1000"},
      {"total-position-deletes", "2"},  {"total-equality-deletes", "6"}};
  auto s = SummaryMetrics(
      {File(FileContent::kData, 10, 100), File(FileContent::kData, 5, 50), File(FileContent::kPositionDeletes, 3, 20)},
      previous);
  EXPECT_EQ(s.at("added-data-files"), "2");
  EXPECT_EQ(s.at("added-records"), "15");
  EXPECT_EQ(s.at("added-delete-files"), "1");
  EXPECT_EQ(s.at("added-position-delete-files"), "1");
  EXPECT_EQ(s.at("added-position-deletes"), "3");
  EXPECT_EQ(s.at("added-files-size"), "170");
  EXPECT_EQ(s.at("total-data-files"), "6");
  EXPECT_EQ(s.at("total-delete-files"), "2");
  EXPECT_EQ(s.at("total-records"), "115");
  EXPECT_EQ(s.at("total-files-size"), "1170");
  EXPECT_EQ(s.at("total-position-deletes"), "5");
  EXPECT_EQ(s.at("total-equality-deletes"), "6");
  EXPECT_EQ(s.count("operation"), 0u);  // the caller's to set

  // A second round on top of that one.
  auto s2 = SummaryMetrics({File(FileContent::kPositionDeletes, 4, 30)}, s);
  EXPECT_EQ(s2.count("added-data-files"), 0u);
  EXPECT_EQ(s2.count("added-records"), 0u);
  EXPECT_EQ(s2.at("added-position-deletes"), "4");
  EXPECT_EQ(s2.at("total-data-files"), "6");
  EXPECT_EQ(s2.at("total-delete-files"), "3");
  EXPECT_EQ(s2.at("total-records"), "115");
  EXPECT_EQ(s2.at("total-files-size"), "1200");
  EXPECT_EQ(s2.at("total-position-deletes"), "9");
}

TEST(SummaryMetricsTest, NothingAddedKeepsTheTotals) {
  auto s = SummaryMetrics({}, {{"total-data-files", "3"}, {"total-records", "30"}, {"total-files-size", "300"}});
  EXPECT_EQ(s.count("added-data-files"), 0u);
  EXPECT_EQ(s.count("added-files-size"), 0u);
  EXPECT_EQ(s.at("total-data-files"), "3");
  EXPECT_EQ(s.at("total-records"), "30");
  EXPECT_EQ(s.at("total-files-size"), "300");
  EXPECT_EQ(s.at("total-delete-files"), "0");
}

TEST(SummaryMetricsTest, ARewriteCountsWhatItRemoves) {
  auto s = SummaryMetrics({File(FileContent::kData, 12, 120)},
                          {{"total-data-files", "3"}, {"total-delete-files", "2"}, {"total-records", "30"},
                           {"total-files-size", "400"}, {"total-position-deletes", "8"}},
                          {File(FileContent::kData, 10, 100), File(FileContent::kData, 10, 100),
                           File(FileContent::kPositionDeletes, 8, 50)});
  EXPECT_EQ(s.at("added-data-files"), "1");
  EXPECT_EQ(s.at("deleted-data-files"), "2");
  EXPECT_EQ(s.at("deleted-records"), "20");
  EXPECT_EQ(s.at("removed-delete-files"), "1");
  EXPECT_EQ(s.at("removed-position-deletes"), "8");
  EXPECT_EQ(s.at("removed-files-size"), "250");
  EXPECT_EQ(s.at("total-data-files"), "2");
  EXPECT_EQ(s.at("total-delete-files"), "1");
  EXPECT_EQ(s.at("total-records"), "22");
  EXPECT_EQ(s.at("total-files-size"), "270");
  EXPECT_EQ(s.at("total-position-deletes"), "0");
}

}  // namespace
}  // namespace cqlite::iceberg
