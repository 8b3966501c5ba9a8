// RowBatch and ParquetWriter::WriteBatch: round trips through ParquetReader,
// and the same file bytes as WriteRow of the same rows.
#include "parquet/row_batch.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>

#include "parquet/reader.h"
#include "parquet/writer.h"

namespace cqlite::parquet {
namespace {

constexpr Repetition kReq = Repetition::kRequired;
constexpr Repetition kOpt = Repetition::kOptional;

Value Row(std::vector<Value> fields) { return Value::Struct(std::move(fields)); }
Value Str(std::string s) { return Value::String(std::move(s)); }

std::vector<Value> ReadBack(MemoryFileSystem& fs, const std::string& path) {
  auto reader = ParquetReader::Open(fs, path);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return {};
  auto rows = (*reader)->ReadAll();
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  return rows.ok() ? std::move(*rows) : std::vector<Value>{};
}

void ExpectRows(const std::vector<Value>& got, const std::vector<Value>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i], want[i]) << "row " << i << ": " << got[i].ToString() << " vs " << want[i].ToString();
  }
}

Result<WriteResult> WriteWithRows(MemoryFileSystem& fs, const std::string& path, const Schema& schema,
                                  const std::vector<Value>& rows, const WriterOptions& options) {
  ASSIGN_OR_RETURN(auto writer, ParquetWriter::Open(fs, path, schema, options));
  for (const Value& row : rows) RETURN_IF_ERROR(writer->WriteRow(row));
  return writer->Close();
}

// Rows through AppendRow into batches of `batch_rows`, then WriteBatch.
Result<WriteResult> WriteWithBatches(MemoryFileSystem& fs, const std::string& path, const Schema& schema,
                                     const std::vector<Value>& rows, const WriterOptions& options,
                                     size_t batch_rows) {
  ASSIGN_OR_RETURN(auto writer, ParquetWriter::Open(fs, path, schema, options));
  RowBatch batch(schema);
  for (size_t i = 0; i < rows.size(); ++i) {
    RETURN_IF_ERROR(batch.AppendRow(rows[i]));
    if (batch.num_rows() == static_cast<int64_t>(batch_rows) || i + 1 == rows.size()) {
      RETURN_IF_ERROR(writer->WriteBatch(batch));
      batch.Clear();
    }
  }
  return writer->Close();
}

// Both ways give byte-identical files, equal metrics, and the rows back.
void ExpectSameAsRowPath(const Schema& schema, const std::vector<Value>& rows, const WriterOptions& options,
                         size_t batch_rows) {
  MemoryFileSystem fs;
  auto by_rows = WriteWithRows(fs, "rows.parquet", schema, rows, options);
  ASSERT_TRUE(by_rows.ok()) << by_rows.status().ToString();
  auto by_batches = WriteWithBatches(fs, "batches.parquet", schema, rows, options, batch_rows);
  ASSERT_TRUE(by_batches.ok()) << by_batches.status().ToString();
  EXPECT_EQ(*fs.ReadFileToString("rows.parquet"), *fs.ReadFileToString("batches.parquet"));
  EXPECT_EQ(by_rows->num_rows, by_batches->num_rows);
  EXPECT_EQ(by_rows->num_row_groups, by_batches->num_row_groups);
  ASSERT_EQ(by_rows->columns.size(), by_batches->columns.size());
  for (size_t i = 0; i < by_rows->columns.size(); ++i) {
    const ColumnMetrics& a = by_rows->columns[i];
    const ColumnMetrics& b = by_batches->columns[i];
    EXPECT_EQ(a.value_count, b.value_count) << i;
    EXPECT_EQ(a.null_count, b.null_count) << i;
    EXPECT_EQ(a.nan_count, b.nan_count) << i;
    EXPECT_EQ(a.lower_bound, b.lower_bound) << i;
    EXPECT_EQ(a.upper_bound, b.upper_bound) << i;
  }
  ExpectRows(ReadBack(fs, "batches.parquet"), rows);
}

Schema AllTypesSchema() {
  Schema s;
  s.fields = {
      Field::Boolean("b", kOpt, 1),
      Field::Int32("i", kReq, 2),
      Field::Int64("l", kOpt, 3),
      Field::Float("f", kOpt, 4),
      Field::Double("d", kOpt, 5),
      Field::String("s", kOpt, 6),
      Field::Primitive("u", PhysicalType::kFixedLenByteArray, kOpt, 7, LogicalType::Uuid(), 16),
      Field::Primitive("u8", PhysicalType::kInt32, kOpt, 8, LogicalType::Integer(8, false)),
  };
  return s;
}

TEST(RowBatchTest, TypedAppendersRoundTripEveryPhysicalTypeWithNulls) {
  const Schema schema = AllTypesSchema();
  RowBatch batch(schema);
  ASSERT_EQ(batch.num_columns(), 8);
  std::vector<Value> want;
  for (int i = 0; i < 300; ++i) {
    const bool null = i % 7 == 3;
    const std::string uuid(16, static_cast<char>(i % 5));
    const float f = i == 11 ? std::numeric_limits<float>::quiet_NaN() : i * 0.25f;
    if (null) {
      for (int c : {0, 2, 3, 4, 5, 6, 7}) batch.column(c).AppendNull(0);
    } else {
      batch.column(0).AppendBool(i % 3 == 0);
      batch.column(2).AppendInt64(int64_t{i} << 40);
      batch.column(3).AppendFloat(f);
      batch.column(4).AppendDouble(-1.5 * i);
      batch.column(5).AppendBytes("text " + std::to_string(i % 17));
      batch.column(6).AppendBytes(uuid);
      batch.column(7).AppendInt32(i % 256);
    }
    batch.column(1).AppendInt32(i - 100);
    batch.EndRows();
    auto maybe = [&](Value v) { return null ? Value::Null() : std::move(v); };
    want.push_back(Row({maybe(Value::Bool(i % 3 == 0)), Value::Int32(i - 100),
                        maybe(Value::Int64(int64_t{i} << 40)), maybe(Value::Float(f)),
                        maybe(Value::Double(-1.5 * i)), maybe(Str("text " + std::to_string(i % 17))),
                        maybe(Value::Bytes(uuid)), maybe(Value::Int32(i % 256))}));
  }
  for (CompressionCodec codec :
       {CompressionCodec::kUncompressed, CompressionCodec::kSnappy, CompressionCodec::kZstd}) {
    MemoryFileSystem fs;
    WriterOptions options;
    options.compression = codec;
    options.page_size = 256;  // several pages per chunk
    auto writer = ParquetWriter::Open(fs, "t.parquet", schema, options);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->WriteBatch(batch).ok());
    auto result = (*writer)->Close();
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    EXPECT_EQ(result->num_rows, 300);
    ExpectRows(ReadBack(fs, "t.parquet"), want);
    EXPECT_EQ(result->columns[3].nan_count, 1);
    EXPECT_EQ(result->columns[2].null_count, 300 / 7 + 1);
  }
  // The same rows through WriteRow give the same file.
  for (bool dictionary : {true, false}) {
    WriterOptions options;
    options.enable_dictionary = dictionary;
    options.page_size = 256;
    options.row_group_rows = 128;
    ExpectSameAsRowPath(schema, want, options, 50);
  }
}

TEST(RowBatchTest, NestedListsAndMapsByHand) {
  Schema s;
  s.fields = {
      Field::String("key", kReq, 1),
      Field::List("tags", kOpt, 2, Field::String("element", kOpt, 3)),
      Field::Map("counts", kOpt, 4, Field::String("key", kReq, 5), Field::Int32("value", kOpt, 6)),
  };
  RowBatch batch(s);
  ASSERT_EQ(batch.num_columns(), 4);
  ColumnBatch& key = batch.column(0);
  ColumnBatch& tags = batch.column(1);
  ColumnBatch& map_keys = batch.column(2);
  ColumnBatch& map_values = batch.column(3);
  EXPECT_EQ(tags.max_def_level(), 3);
  EXPECT_EQ(tags.max_rep_level(), 1);
  EXPECT_EQ(map_keys.max_def_level(), 2);
  EXPECT_EQ(map_values.max_def_level(), 3);
  // Row 1: tags ["a", null, "b"], counts {x: 1, y: null}.
  key.AppendBytes("k1");
  tags.AppendBytes("a");
  tags.AppendNull(2, 1);
  tags.AppendBytes("b", 1);
  map_keys.AppendBytes("x");
  map_values.AppendInt32(1);
  map_keys.AppendBytes("y", 1);
  map_values.AppendNull(2, 1);
  batch.EndRows();
  // Row 2: tags null, counts {} (empty).
  key.AppendBytes("k2");
  tags.AppendNull(0);
  map_keys.AppendNull(1);
  map_values.AppendNull(1);
  batch.EndRows();
  // Row 3: tags [] (empty), counts null.
  key.AppendBytes("k3");
  tags.AppendNull(1);
  map_keys.AppendNull(0);
  map_values.AppendNull(0);
  batch.EndRows();

  auto list = [](std::vector<Value> v) { return Value::List(std::move(v)); };
  auto map = [](std::vector<std::pair<Value, Value>> v) { return Value::Map(std::move(v)); };
  const std::vector<Value> want = {
      Row({Str("k1"), list({Str("a"), Value::Null(), Str("b")}),
           map({{Str("x"), Value::Int32(1)}, {Str("y"), Value::Null()}})}),
      Row({Str("k2"), Value::Null(), map({})}),
      Row({Str("k3"), list({}), Value::Null()}),
  };
  MemoryFileSystem fs;
  auto writer = ParquetWriter::Open(fs, "t.parquet", s);
  ASSERT_TRUE(writer.ok());
  Status st = (*writer)->WriteBatch(batch);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_TRUE((*writer)->Close().ok());
  ExpectRows(ReadBack(fs, "t.parquet"), want);

  // AppendRow shreds the same rows into the same levels and values.
  RowBatch shredded(s);
  for (const Value& row : want) ASSERT_TRUE(shredded.AppendRow(row).ok());
  ASSERT_EQ(shredded.num_rows(), 3);
  for (int c = 0; c < batch.num_columns(); ++c) {
    const ColumnBatch& a = batch.column(c);
    const ColumnBatch& b = shredded.column(c);
    EXPECT_EQ(std::vector<int16_t>(a.def_levels().begin(), a.def_levels().end()),
              std::vector<int16_t>(b.def_levels().begin(), b.def_levels().end()))
        << c;
    EXPECT_EQ(std::vector<int16_t>(a.rep_levels().begin(), a.rep_levels().end()),
              std::vector<int16_t>(b.rep_levels().begin(), b.rep_levels().end()))
        << c;
    EXPECT_EQ(a.bytes(), b.bytes()) << c;
    EXPECT_EQ(a.num_values(), b.num_values()) << c;
  }
}

// Lists, maps, structs and lists of lists, optional at every level.
Schema NestedSchema() {
  Schema s;
  s.fields = {
      Field::Int64("id", kReq, 1),
      Field::Double("x", kOpt, 2),
      Field::List("tags", kOpt, 3, Field::String("element", kOpt, 4)),
      Field::Map("attrs", kOpt, 5, Field::String("key", kReq, 6), Field::Int32("value", kOpt, 7)),
      Field::Struct(
          "point", kOpt, 8,
          {Field::Float("a", kReq, 9), Field::List("xs", kOpt, 10, Field::Int64("element", kReq, 11))}),
      Field::List("matrix", kOpt, 12, Field::List("element", kOpt, 13, Field::Int32("element", kOpt, 14))),
      Field::Boolean("flag", kOpt, 15),
  };
  return s;
}

// Random rows of NestedSchema(), `n` of them.
std::vector<Value> RandomNestedRows(int n, unsigned seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  auto text = [&] { return Str("t" + std::to_string(pick(3) == 0 ? pick(100000) : pick(20))); };
  std::vector<Value> rows;
  for (int i = 0; i < n; ++i) {
    std::vector<Value> tags;
    for (int j = pick(4); j > 0; --j) tags.push_back(pick(5) == 0 ? Value::Null() : text());
    std::vector<std::pair<Value, Value>> attrs;
    for (int j = pick(3); j > 0; --j) {
      attrs.emplace_back(text(), pick(4) == 0 ? Value::Null() : Value::Int32(pick(50)));
    }
    std::vector<Value> xs;
    for (int j = pick(3); j > 0; --j) xs.push_back(Value::Int64(pick(1000) - 500));
    std::vector<Value> matrix;
    for (int j = pick(3); j > 0; --j) {
      std::vector<Value> inner;
      for (int k = pick(3); k > 0; --k) inner.push_back(pick(4) == 0 ? Value::Null() : Value::Int32(pick(9)));
      matrix.push_back(pick(5) == 0 ? Value::Null() : Value::List(std::move(inner)));
    }
    rows.push_back(
        Row({Value::Int64(i), pick(6) == 0 ? Value::Null() : Value::Double(pick(1000) * 0.5),
             pick(6) == 0 ? Value::Null() : Value::List(std::move(tags)),
             pick(6) == 0 ? Value::Null() : Value::Map(std::move(attrs)),
             pick(6) == 0 ? Value::Null()
                          : Row({Value::Float(static_cast<float>(pick(7))), Value::List(std::move(xs))}),
             pick(6) == 0 ? Value::Null() : Value::List(std::move(matrix)),
             pick(3) == 0 ? Value::Null() : Value::Bool(pick(2) == 0)}));
  }
  return rows;
}

// Random nested rows: WriteBatch gives the file WriteRow gives, with pages,
// dictionary fallbacks and row groups cut at the same places.
TEST(RowBatchTest, RandomNestedRowsMatchTheRowPath) {
  const Schema s = NestedSchema();
  const std::vector<Value> rows = RandomNestedRows(3000, 7);
  for (bool dictionary : {true, false}) {
    WriterOptions options;
    options.enable_dictionary = dictionary;
    options.compression = CompressionCodec::kSnappy;
    options.page_size = 700;
    options.dictionary_page_size_limit = 300;
    options.row_group_rows = 1100;
    ExpectSameAsRowPath(s, rows, options, 333);
    ExpectSameAsRowPath(s, rows, options, 5000);
  }
}

// Rows taken back (RowBatch::TruncateTo) leave the batch as if they had
// never been appended: the file is WriteRow's of the rows kept.
TEST(RowBatchTest, RowsTakenBackLeaveNoTrace) {
  const Schema s = NestedSchema();
  const std::vector<Value> rows = RandomNestedRows(2000, 11);
  std::mt19937 rng(3);
  WriterOptions options;
  options.page_size = 700;
  options.row_group_rows = 600;
  MemoryFileSystem fs;
  auto writer = ParquetWriter::Open(fs, "batches.parquet", s, options);
  ASSERT_TRUE(writer.ok());
  RowBatch batch(s);
  RowBatch::Mark mark;
  std::vector<Value> kept;
  int taken_back = 0;
  for (const Value& row : rows) {
    batch.MarkTo(&mark);
    ASSERT_TRUE(batch.AppendRow(row).ok());
    if (rng() % 3 == 0) {
      batch.TruncateTo(mark);
      ++taken_back;
    } else {
      kept.push_back(row);
    }
    if (batch.num_rows() == 250) {
      ASSERT_TRUE((*writer)->WriteBatch(batch).ok());
      batch.Clear();
    }
  }
  ASSERT_TRUE((*writer)->WriteBatch(batch).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_GT(taken_back, 500);
  ASSERT_TRUE(WriteWithRows(fs, "rows.parquet", s, kept, options).ok());
  EXPECT_EQ(*fs.ReadFileToString("rows.parquet"), *fs.ReadFileToString("batches.parquet"));
  ExpectRows(ReadBack(fs, "batches.parquet"), kept);
}

TEST(RowBatchTest, WriteRowAndWriteBatchMix) {
  Schema s;
  s.fields = {Field::Int32("n", kReq, 1), Field::String("s", kOpt, 2)};
  MemoryFileSystem fs;
  auto writer = ParquetWriter::Open(fs, "t.parquet", s);
  ASSERT_TRUE(writer.ok());
  std::vector<Value> want;
  RowBatch batch(s);
  for (int i = 0; i < 10; ++i) {
    Value row = Row({Value::Int32(i), i % 2 ? Value::Null() : Str(std::to_string(i))});
    want.push_back(row);
    if (i < 4) {
      ASSERT_TRUE((*writer)->WriteRow(row).ok());
    } else {
      ASSERT_TRUE(batch.AppendRow(row).ok());
    }
  }
  ASSERT_TRUE((*writer)->WriteBatch(batch).ok());
  ASSERT_TRUE((*writer)->WriteBatch(RowBatch(s)).ok());  // empty
  EXPECT_EQ((*writer)->num_rows(), 10);
  ASSERT_TRUE((*writer)->Close().ok());
  ExpectRows(ReadBack(fs, "t.parquet"), want);
}

TEST(RowBatchTest, BadBatchesAreRejectedWithNothingWritten) {
  Schema s;
  s.fields = {Field::Int32("n", kReq, 1), Field::String("s", kOpt, 2),
              Field::List("xs", kOpt, 3, Field::Int64("element", kReq, 4)),
              Field::Primitive("u", PhysicalType::kFixedLenByteArray, kOpt, 5, LogicalType::Uuid(), 16)};
  auto good_row = [](RowBatch* b) {
    b->column(0).AppendInt32(1);
    b->column(1).AppendBytes("x");
    b->column(2).AppendInt64(5);
    b->column(3).AppendBytes(std::string(16, 'u'));
    b->EndRows();
  };
  std::vector<std::pair<std::string, std::function<void(RowBatch*)>>> cases = {
      {"too few rows declared", [](RowBatch* b) { b->EndRows(); }},
      {"missing a value", [](RowBatch* b) { b->column(0).AppendNull(0); }},
      {"definition level too high", [](RowBatch* b) { b->column(1).AppendNull(5); }},
      {"repetition level too high", [](RowBatch* b) { b->column(2).AppendInt64(1, 3); }},
      {"negative level", [](RowBatch* b) { b->column(1).AppendNull(-1); }},
      {"wrong fixed length", [](RowBatch* b) { b->column(3).AppendBytes("short"); }},
      {"first repetition level not 0",
       [](RowBatch* b) {
         b->Clear();
         b->column(0).AppendInt32(1);
         b->column(1).AppendBytes("x");
         b->column(2).AppendInt64(5, 1);
         b->column(3).AppendBytes(std::string(16, 'u'));
         b->EndRows();
       }},
  };
  for (const auto& [name, spoil] : cases) {
    MemoryFileSystem fs;
    auto writer = ParquetWriter::Open(fs, "t.parquet", s);
    ASSERT_TRUE(writer.ok());
    RowBatch batch(s);
    good_row(&batch);
    spoil(&batch);
    Status st = (*writer)->WriteBatch(batch);
    EXPECT_EQ(st.kind(), StatusKind::kInvalidArgument) << name << ": " << st.ToString();
    // Nothing was written: the writer goes on with good rows.
    RowBatch good(s);
    good_row(&good);
    ASSERT_TRUE((*writer)->WriteBatch(good).ok()) << name;
    auto result = (*writer)->Close();
    ASSERT_TRUE(result.ok()) << name;
    EXPECT_EQ(result->num_rows, 1) << name;
    EXPECT_EQ(ReadBack(fs, "t.parquet").size(), 1u) << name;
  }
  // A batch of another schema.
  Schema other;
  other.fields = {Field::Int64("n", kReq, 1)};
  MemoryFileSystem fs;
  auto writer = ParquetWriter::Open(fs, "t.parquet", s);
  ASSERT_TRUE(writer.ok());
  RowBatch wrong(other);
  wrong.column(0).AppendInt64(1);
  wrong.EndRows();
  EXPECT_EQ((*writer)->WriteBatch(wrong).kind(), StatusKind::kInvalidArgument);
}

TEST(RowBatchTest, AppendRowRejectsRowsThatDoNotFit) {
  Schema s;
  s.fields = {Field::Int32("n", kReq, 1), Field::String("s", kOpt, 2)};
  RowBatch batch(s);
  EXPECT_FALSE(batch.AppendRow(Row({Value::Null(), Str("a")})).ok());
  EXPECT_FALSE(batch.AppendRow(Row({Value::Int64(1), Str("a")})).ok());
  EXPECT_FALSE(batch.AppendRow(Row({Value::Int32(1)})).ok());
  EXPECT_FALSE(batch.AppendRow(Value::Int32(1)).ok());
  EXPECT_EQ(batch.num_rows(), 0);
  EXPECT_EQ(batch.column(0).num_levels(), 0u);
  EXPECT_TRUE(batch.AppendRow(Row({Value::Int32(1), Value::Null()})).ok());
  EXPECT_EQ(batch.num_rows(), 1);
}

}  // namespace
}  // namespace cqlite::parquet
