// Writes Parquet sample files with known contents, for the independent-reader
// tests in tests/integration/test_parquet_pyarrow.py (pyarrow and DuckDB read
// them and compare with values written out by hand in the test).
//
//   parquet_write_sample <output-directory>
//
// Files: all_types_{snappy,zstd,plain}.parquet (every physical and logical
// type, nulls), nested.parquet (lists, maps, structs, empty and null
// collections, null elements), multi.parquet (many pages and row groups,
// dictionary fallback), delta.parquet (every DELTA encoding, over many pages
// and row groups). Each <name>.parquet gets a <name>.metrics.tsv with the
// writer's per-column metrics: path, field id, value count, null count, NaN
// count, lower and upper bound in hex.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "io/file_system.h"
#include "parquet/writer.h"
#include "util/strings.h"

namespace cqlite::parquet {
namespace {

constexpr Repetition kReq = Repetition::kRequired;
constexpr Repetition kOpt = Repetition::kOptional;

Value Row(std::vector<Value> v) { return Value::Struct(std::move(v)); }
Value List(std::vector<Value> v) { return Value::List(std::move(v)); }
Value Map(std::vector<std::pair<Value, Value>> v) { return Value::Map(std::move(v)); }
Value Str(std::string s) { return Value::String(std::move(s)); }
Value I32(int32_t v) { return Value::Int32(v); }
Value I64(int64_t v) { return Value::Int64(v); }
const Value kNull;

// Big-endian two's complement, `size` bytes.
std::string BigEndian(__int128 v, int size) {
  std::string out(size, '\0');
  for (int i = size - 1; i >= 0; --i) {
    out[i] = static_cast<char>(v & 0xff);
    v >>= 8;
  }
  return out;
}

Status Write(const std::string& dir, const std::string& name, const Schema& schema,
             const std::vector<Value>& rows, WriterOptions options) {
  options.key_value_metadata.push_back({"cqlite.sample", name});
  std::string path = JoinPath(dir, name + ".parquet");
  ASSIGN_OR_RETURN(auto writer, ParquetWriter::Open(LocalFileSystem(), path, schema, options));
  for (const Value& row : rows) RETURN_IF_ERROR(writer->WriteRow(row));
  ASSIGN_OR_RETURN(WriteResult result, writer->Close());
  std::ofstream metrics(JoinPath(dir, name + ".metrics.tsv"));
  for (const ColumnMetrics& m : result.columns) {
    std::string path_text;
    for (const std::string& p : m.path) path_text += (path_text.empty() ? "" : ".") + p;
    metrics << path_text << '\t' << m.field_id.value_or(-1) << '\t' << m.value_count << '\t' << m.null_count
            << '\t' << m.nan_count << '\t' << (m.lower_bound ? ToHex(*m.lower_bound) : "-") << '\t'
            << (m.upper_bound ? ToHex(*m.upper_bound) : "-") << '\n';
  }
  std::cout << path << ": " << result.file_size << " bytes, " << result.num_rows << " rows, "
            << result.num_row_groups << " row groups\n";
  return Status::OK();
}

Schema AllTypesSchema() {
  Schema s;
  s.fields = {
      Field::Boolean("b", kOpt, 1),
      Field::Int32("i32", kReq, 2),
      Field::Int64("i64", kOpt, 3),
      Field::Float("f", kOpt, 4),
      Field::Double("d", kOpt, 5),
      Field::String("s", kOpt, 6),
      Field::Binary("bin", kOpt, 7),
      Field::Primitive("fixed", PhysicalType::kFixedLenByteArray, kOpt, 8, {}, 3),
      Field::Primitive("uuid", PhysicalType::kFixedLenByteArray, kOpt, 9, LogicalType::Uuid(), 16),
      Field::Primitive("dec", PhysicalType::kFixedLenByteArray, kOpt, 10, LogicalType::Decimal(38, 2), 16),
      Field::Primitive("dec64", PhysicalType::kInt64, kOpt, 11, LogicalType::Decimal(18, 3)),
      Field::Primitive("date", PhysicalType::kInt32, kOpt, 12, LogicalType::Date()),
      Field::Primitive("time", PhysicalType::kInt64, kOpt, 13, LogicalType::TimeMicros()),
      Field::Primitive("ts", PhysicalType::kInt64, kOpt, 14, LogicalType::TimestampMicros(true)),
      Field::Primitive("ts_local", PhysicalType::kInt64, kOpt, 15, LogicalType::TimestampMicros(false)),
      Field::Primitive("i8", PhysicalType::kInt32, kOpt, 16, LogicalType::Integer(8, true)),
      Field::Primitive("u16", PhysicalType::kInt32, kOpt, 17, LogicalType::Integer(16, false)),
  };
  return s;
}

std::vector<Value> AllTypesRows() {
  std::string uuid0, uuid1(16, '\xff');
  for (int i = 0; i < 16; ++i) uuid0.push_back(static_cast<char>(i));
  __int128 big = 1;
  for (int i = 0; i < 37; ++i) big *= 10;
  std::vector<Value> rows;
  rows.push_back(
      Row({Value::Bool(true), I32(1), I64(-5000000000LL), Value::Float(1.5f), Value::Double(-2.25),
           Str("hello"), Value::Bytes(std::string("\x00\x01", 2)), Value::Bytes("abc"), Value::Bytes(uuid0),
           Value::Bytes(BigEndian(12345, 16)), I64(-1500), I32(19000), I64(3600000000LL),
           I64(1700000000000000LL), I64(1700000000000000LL), I32(-128), I32(65535)}));
  rows.push_back(
      Row({Value::Bool(false), I32(std::numeric_limits<int32_t>::min()),
           I64(std::numeric_limits<int64_t>::max()), Value::Float(std::numeric_limits<float>::quiet_NaN()),
           Value::Double(std::numeric_limits<double>::infinity()), Str("\xc3\xa9"), Value::Bytes(""),
           Value::Bytes("xyz"), Value::Bytes(uuid1), Value::Bytes(BigEndian(-1, 16)), I64(0), I32(0), I64(0),
           I64(0), I64(-1), I32(127), I32(0)}));
  std::vector<Value> nulls(17);
  nulls[1] = I32(std::numeric_limits<int32_t>::max());
  rows.push_back(Row(nulls));
  rows.push_back(
      Row({Value::Bool(true), I32(0), I64(0), Value::Float(-0.0f), Value::Double(0.0), Str(""),
           Value::Bytes("\xff"), Value::Bytes(std::string(3, '\0')), Value::Bytes(uuid0),
           Value::Bytes(BigEndian(big, 16)), I64(999999999999999999LL), I32(-719162), I64(86399999999LL),
           I64(-62135596800000000LL), I64(253402300799999999LL), I32(0), I32(1)}));
  return rows;
}

Schema NestedSchema() {
  Schema s;
  s.fields = {
      Field::Int32("id", kReq, 1),
      Field::List("tags", kOpt, 2, Field::String("element", kOpt, 3)),
      Field::List("matrix", kOpt, 4, Field::List("element", kOpt, 5, Field::Int32("element", kOpt, 6))),
      Field::Map("attrs", kOpt, 7, Field::String("key", kReq, 8), Field::Int64("value", kOpt, 9)),
      Field::Struct("point", kOpt, 10,
                    {Field::Double("x", kReq, 11), Field::Double("y", kOpt, 12),
                     Field::List("labels", kOpt, 13, Field::String("element", kReq, 14))}),
      Field::List(
          "people", kOpt, 15,
          Field::Struct("element", kOpt, 16,
                        {Field::String("name", kReq, 17),
                         Field::Map("phones", kOpt, 18, Field::String("key", kReq, 19),
                                    Field::List("value", kOpt, 20, Field::String("element", kOpt, 21)))})),
  };
  return s;
}

std::vector<Value> NestedRows() {
  auto D = [](double v) { return Value::Double(v); };
  return {
      Row({I32(1), List({Str("a"), kNull, Str("b")}),
           List({List({I32(1), I32(2)}), List({}), kNull, List({kNull})}),
           Map({{Str("x"), I64(1)}, {Str("y"), kNull}}), Row({D(1.0), D(2.0), List({Str("p")})}),
           List({Row({Str("ann"), Map({{Str("home"), List({Str("1"), kNull})}, {Str("work"), kNull}})}),
                 kNull})}),
      Row({I32(2), List({}), List({}), Map({}), Row({D(-1.0), kNull, List({})}), List({})}),
      Row({I32(3), kNull, kNull, kNull, kNull, kNull}),
      Row({I32(4), List({kNull}), List({List({kNull, I32(7)})}), Map({{Str("z"), I64(-5)}}),
           Row({D(0.5), kNull, kNull}), List({Row({Str("bob"), kNull}), Row({Str("cy"), Map({})})})}),
  };
}

Schema MultiSchema() {
  Schema s;
  s.fields = {Field::Int64("n", kReq, 1), Field::String("s", kOpt, 2),
              Field::List("xs", kOpt, 3, Field::Int32("element", kReq, 4))};
  return s;
}

std::vector<Value> MultiRows() {
  // Expected in the test as: n = i; s = None if i % 7 == 0 else f"v{i % 2000}";
  // xs = None if i % 10 == 9 else [i + k for k in range(i % 3)].
  std::vector<Value> rows;
  for (int i = 0; i < 30000; ++i) {
    std::vector<Value> xs;
    for (int k = 0; k < i % 3; ++k) xs.push_back(I32(i + k));
    rows.push_back(Row({I64(i), i % 7 == 0 ? kNull : Str(StrCat("v", i % 2000)),
                        i % 10 == 9 ? kNull : List(std::move(xs))}));
  }
  return rows;
}

Schema DeltaSchema() {
  Schema s;
  s.fields = {Field::Int64("n", kReq, 1), Field::Int32("i", kOpt, 2), Field::String("s", kOpt, 3),
              Field::Binary("raw", kReq, 4)};
  return s;
}

std::vector<Value> DeltaRows() {
  // Expected in the test as delta_expected(k).
  std::vector<Value> rows;
  for (int k = 0; k < 5000; ++k) {
    const int64_t n = k == 0   ? std::numeric_limits<int64_t>::min()
                      : k == 1 ? std::numeric_limits<int64_t>::max()
                               : (k % 2 ? 1 : -1) * int64_t{k} * k;
    Value i = k % 5 == 0   ? kNull
              : k % 7 == 3 ? I32(std::numeric_limits<int32_t>::min())
              : k % 7 == 4 ? I32(std::numeric_limits<int32_t>::max())
                           : I32(k * 1000 - 2000000);
    char suffix[32];
    std::snprintf(suffix, sizeof suffix, "sensor-%07d/%d", 100000 + k / 3, k % 4);
    rows.push_back(Row({I64(n), std::move(i), k % 9 == 0 ? kNull : Str(suffix),
                        Value::Bytes(std::string(static_cast<size_t>(k % 17), static_cast<char>(k % 256)))}));
  }
  return rows;
}

Status Main(const std::string& dir) {
  RETURN_IF_ERROR(LocalFileSystem().CreateDirectories(dir));
  WriterOptions snappy;
  snappy.compression = CompressionCodec::kSnappy;
  RETURN_IF_ERROR(Write(dir, "all_types_snappy", AllTypesSchema(), AllTypesRows(), snappy));
  WriterOptions zstd;
  zstd.compression = CompressionCodec::kZstd;
  RETURN_IF_ERROR(Write(dir, "all_types_zstd", AllTypesSchema(), AllTypesRows(), zstd));
  WriterOptions plain;
  plain.compression = CompressionCodec::kUncompressed;
  plain.enable_dictionary = false;
  RETURN_IF_ERROR(Write(dir, "all_types_plain", AllTypesSchema(), AllTypesRows(), plain));
  RETURN_IF_ERROR(Write(dir, "nested", NestedSchema(), NestedRows(), snappy));
  WriterOptions multi;
  multi.compression = CompressionCodec::kZstd;
  multi.page_size = 8 * 1024;
  multi.row_group_rows = 10000;
  multi.dictionary_page_size_limit = 4 * 1024;
  RETURN_IF_ERROR(Write(dir, "multi", MultiSchema(), MultiRows(), multi));
  WriterOptions delta;
  delta.compression = CompressionCodec::kZstd;
  delta.page_size = 4096;
  delta.row_group_rows = 2000;
  delta.column_encodings = {{"n", Encoding::kDeltaBinaryPacked},
                            {"i", Encoding::kDeltaBinaryPacked},
                            {"s", Encoding::kDeltaByteArray},
                            {"raw", Encoding::kDeltaLengthByteArray}};
  RETURN_IF_ERROR(Write(dir, "delta", DeltaSchema(), DeltaRows(), delta));
  return Status::OK();
}

}  // namespace
}  // namespace cqlite::parquet

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: parquet_write_sample <output-directory>\n";
    return 2;
  }
  cqlite::Status st = cqlite::parquet::Main(argv[1]);
  if (!st.ok()) {
    std::cerr << st.ToString() << "\n";
    return 1;
  }
  return 0;
}
