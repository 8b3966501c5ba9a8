#include "parquet/writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <cstring>
#include <limits>
#include <random>

#include "parquet/reader.h"

namespace cqlite::parquet {
namespace {

constexpr Repetition kReq = Repetition::kRequired;
constexpr Repetition kOpt = Repetition::kOptional;

Value I32(int32_t v) { return Value::Int32(v); }
Value I64(int64_t v) { return Value::Int64(v); }
Value Str(std::string s) { return Value::String(std::move(s)); }
Value Row(std::vector<Value> fields) { return Value::Struct(std::move(fields)); }

template <typename T>
std::string Le(T v) {
  std::string out(sizeof(T), '\0');
  std::memcpy(out.data(), &v, sizeof(T));
  return out;
}

struct Written {
  WriteResult result;
  std::unique_ptr<ParquetReader> reader;
  std::vector<Value> rows;
};

// Writes rows, reads them back, and checks they are equal.
Written RoundTrip(MemoryFileSystem& fs, const Schema& schema, const std::vector<Value>& rows,
                  WriterOptions options = {}) {
  Written w;
  auto writer = ParquetWriter::Open(fs, "t.parquet", schema, options);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  if (!writer.ok()) return w;
  for (const Value& row : rows) {
    Status st = (*writer)->WriteRow(row);
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  auto result = (*writer)->Close();
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  if (!result.ok()) return w;
  w.result = *result;
  auto reader = ParquetReader::Open(fs, "t.parquet");
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return w;
  EXPECT_EQ((*reader)->schema(), schema);
  auto read = (*reader)->ReadAll();
  EXPECT_TRUE(read.ok()) << read.status().ToString();
  if (!read.ok()) return w;
  EXPECT_EQ(read->size(), rows.size());
  for (size_t i = 0; i < rows.size() && i < read->size(); ++i) {
    EXPECT_EQ((*read)[i], rows[i]) << "row " << i << ": " << (*read)[i].ToString() << " vs "
                                   << rows[i].ToString();
  }
  w.rows = std::move(*read);
  w.reader = std::move(*reader);
  return w;
}

// The rows of `w`'s file that `keep` takes (by their number in the file),
// copied with AppendRowGroup into a second file of the same schema and read
// back.
std::vector<Value> CopyRows(MemoryFileSystem& fs, Written& w, const Schema& schema,
                            const std::function<bool(int64_t)>& keep) {
  auto writer = ParquetWriter::Open(fs, "copy.parquet", schema);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  if (!writer.ok()) return {};
  RowBatch batch(schema);
  int64_t first = 0;
  for (int g = 0; g < w.reader->num_row_groups(); ++g) {
    batch.Clear();
    Status appended = w.reader->AppendRowGroup(g, [&](int64_t row) { return keep(first + row); }, &batch);
    EXPECT_TRUE(appended.ok()) << appended.ToString();
    first += w.reader->metadata().row_groups[g].num_rows;
    Status written = (*writer)->WriteBatch(batch);
    EXPECT_TRUE(written.ok()) << written.ToString();
  }
  EXPECT_TRUE((*writer)->Close().ok());
  auto reader = ParquetReader::Open(fs, "copy.parquet");
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return {};
  auto rows = (*reader)->ReadAll();
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  return rows.ok() ? *rows : std::vector<Value>();
}

// The rows CopyRows should give.
std::vector<Value> Kept(const std::vector<Value>& rows, const std::function<bool(int64_t)>& keep) {
  std::vector<Value> kept;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (keep(static_cast<int64_t>(i))) kept.push_back(rows[i]);
  }
  return kept;
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
      Field::Binary("bin", kOpt, 7),
      Field::Primitive("u", PhysicalType::kFixedLenByteArray, kOpt, 8, LogicalType::Uuid(), 16),
      Field::Primitive("dec", PhysicalType::kFixedLenByteArray, kOpt, 9, LogicalType::Decimal(20, 2), 9),
      Field::Primitive("date", PhysicalType::kInt32, kOpt, 10, LogicalType::Date()),
      Field::Primitive("ts", PhysicalType::kInt64, kOpt, 11, LogicalType::TimestampMicros(true)),
      Field::Primitive("tm", PhysicalType::kInt64, kOpt, 12, LogicalType::TimeMicros()),
      Field::Primitive("tiny", PhysicalType::kInt32, kOpt, 13, LogicalType::Integer(8, true)),
  };
  return s;
}

std::vector<Value> AllTypesRows(int n) {
  std::vector<Value> rows;
  for (int i = 0; i < n; ++i) {
    bool null = i % 5 == 3;
    auto maybe = [&](Value v) { return null ? Value::Null() : std::move(v); };
    rows.push_back(
        Row({maybe(Value::Bool(i % 2 == 0)), I32(i * 7 - 50), maybe(I64(int64_t{i} << 33)),
             maybe(Value::Float(i * 0.5f)), maybe(Value::Double(-i * 1.25)),
             maybe(Str("s" + std::to_string(i % 13))), maybe(Value::Bytes(std::string(i % 4, '\0'))),
             maybe(Value::Bytes(std::string(16, static_cast<char>(i)))),
             maybe(Value::Bytes(std::string(9, static_cast<char>(i % 3 == 0 ? 0xff : 0x01)))),
             maybe(I32(19000 + i)), maybe(I64(1700000000000000 + i)), maybe(I64(i * 1000000LL)),
             maybe(I32(i % 100))}));
  }
  return rows;
}

TEST(ParquetWriterTest, RoundTripsEveryPhysicalTypeWithEveryCodec) {
  for (CompressionCodec codec :
       {CompressionCodec::kUncompressed, CompressionCodec::kSnappy, CompressionCodec::kZstd}) {
    for (bool dictionary : {true, false}) {
      MemoryFileSystem fs;
      WriterOptions options;
      options.compression = codec;
      options.enable_dictionary = dictionary;
      Written w = RoundTrip(fs, AllTypesSchema(), AllTypesRows(200), options);
      ASSERT_NE(w.reader, nullptr);
      const ColumnMetaData& s = *w.reader->metadata().row_groups[0].columns[5].meta_data;
      EXPECT_EQ(s.codec, codec);
      bool has_dict = s.dictionary_page_offset.has_value();
      EXPECT_EQ(has_dict, dictionary);
      // Booleans are never dictionary-encoded.
      EXPECT_FALSE(
          w.reader->metadata().row_groups[0].columns[0].meta_data->dictionary_page_offset.has_value());
    }
  }
}

TEST(ParquetWriterTest, ZstdLevels) {
  uint64_t size_at[3] = {};
  int i = 0;
  for (int level : {1, 3, 19}) {
    MemoryFileSystem fs;
    WriterOptions options;
    options.compression_level = level;
    options.enable_dictionary = false;
    Written w = RoundTrip(fs, AllTypesSchema(), AllTypesRows(2000), options);
    ASSERT_NE(w.reader, nullptr) << level;
    size_at[i++] = w.result.file_size;
  }
  // Each level gives its own pages.
  EXPECT_NE(size_at[0], size_at[1]);
  EXPECT_NE(size_at[1], size_at[2]);
  for (auto [codec, level] : {std::pair{CompressionCodec::kSnappy, 1}, std::pair{CompressionCodec::kZstd, 23},
                              std::pair{CompressionCodec::kZstd, -1}}) {
    MemoryFileSystem fs;
    WriterOptions options;
    options.compression = codec;
    options.compression_level = level;
    auto writer = ParquetWriter::Open(fs, "t.parquet", AllTypesSchema(), options);
    ASSERT_FALSE(writer.ok()) << level;
    EXPECT_EQ(writer.status().kind(), StatusKind::kInvalidArgument);
  }
}

TEST(ParquetWriterTest, NestedListsMapsAndStructs) {
  Schema s;
  s.fields = {
      Field::Int32("id", kReq, 1),
      Field::List("tags", kOpt, 2, Field::String("element", kOpt, 3)),
      Field::List("req_list", kReq, 4, Field::Int64("element", kReq, 5)),
      Field::Map("attrs", kOpt, 6, Field::String("key", kReq, 7), Field::Int32("value", kOpt, 8)),
      Field::Struct("point", kOpt, 9,
                    {Field::Double("x", kReq, 10), Field::Double("y", kOpt, 11),
                     Field::List("labels", kOpt, 12, Field::String("element", kReq, 13))}),
      Field::List("matrix", kOpt, 14, Field::List("element", kOpt, 15, Field::Int32("element", kOpt, 16))),
      Field::List(
          "people", kOpt, 17,
          Field::Struct("element", kOpt, 18,
                        {Field::String("name", kReq, 19),
                         Field::Map("phones", kOpt, 20, Field::String("key", kReq, 21),
                                    Field::List("value", kOpt, 22, Field::String("element", kOpt, 23)))})),
  };
  auto list = [](std::vector<Value> v) { return Value::List(std::move(v)); };
  auto map = [](std::vector<std::pair<Value, Value>> v) { return Value::Map(std::move(v)); };
  Value null;
  std::vector<Value> rows = {
      Row({I32(1), list({Str("a"), Str("b")}), list({I64(1)}), map({{Str("k"), I32(1)}, {Str("m"), null}}),
           Row({Value::Double(1), Value::Double(2), list({Str("x")})}),
           list({list({I32(1), I32(2)}), list({}), null, list({null})}),
           list({Row({Str("ann"), map({{Str("home"), list({Str("1"), null})}, {Str("work"), null}})}),
                 null})}),
      // Empty lists and maps, null collections, lists of nulls.
      Row({I32(2), list({}), list({}), map({}), Row({Value::Double(3), null, null}), list({}), list({})}),
      Row({I32(3), null, list({I64(2), I64(3), I64(4)}), null, null, null, null}),
      Row({I32(4), list({null, null}), list({}), map({{Str("z"), null}}),
           Row({Value::Double(-0.0), null, list({})}), list({null}),
           list({Row({Str("bob"), null}), Row({Str("cy"), map({})})})}),
  };
  for (int repeat = 0; repeat < 3; ++repeat) {
    for (int i = 0; i < 4; ++i) rows.push_back(rows[i]);
  }
  for (bool dictionary : {true, false}) {
    MemoryFileSystem fs;
    WriterOptions options;
    options.enable_dictionary = dictionary;
    options.row_group_rows = 5;  // several row groups, cut between records
    Written w = RoundTrip(fs, s, rows, options);
    ASSERT_NE(w.reader, nullptr);
    EXPECT_EQ(w.reader->num_row_groups(), 4);
    // path_in_schema follows the 3-level shapes.
    const auto& columns = w.reader->metadata().row_groups[0].columns;
    EXPECT_EQ(columns[1].meta_data->path_in_schema, (std::vector<std::string>{"tags", "list", "element"}));
    EXPECT_EQ(columns[3].meta_data->path_in_schema, (std::vector<std::string>{"attrs", "key_value", "key"}));
    // Rows copied leaf column by leaf column keep their nesting, nulls and empties.
    for (const auto& keep : std::vector<std::function<bool(int64_t)>>{
             [](int64_t) { return true; }, [](int64_t r) { return r % 3 != 1; }, [](int64_t r) { return r == 6; },
             [](int64_t) { return false; }}) {
      EXPECT_EQ(CopyRows(fs, w, s, keep), Kept(rows, keep));
    }
  }
}

TEST(ParquetReaderTest, AppendRowGroupCopiesRowsAcrossPagesAndEncodings) {
  Schema s;
  s.fields = {Field::Int64("n", kReq, 1), Field::String("text", kOpt, 2),
              Field::List("xs", kOpt, 3, Field::Int32("element", kOpt, 4)),
              Field::String("status", kOpt, 5)};
  std::vector<Value> rows;
  for (int i = 0; i < 30000; ++i) {
    std::vector<Value> xs;
    for (int j = 0; j < i % 5; ++j) xs.push_back(j == 2 ? Value::Null() : I32(i + j));
    rows.push_back(Row({I64(i), i % 11 == 0 ? Value::Null() : Str("value-" + std::to_string(i % 1500)),
                        i % 7 == 0 ? Value::Null() : Value::List(std::move(xs)), Str(i % 3 ? "ok" : "late")}));
  }
  MemoryFileSystem fs;
  WriterOptions options;
  options.page_size = 4096;  // many pages per column chunk
  options.row_group_size = 128 * 1024;
  options.dictionary_page_size_limit = 8 * 1024;  // dictionary pages, then PLAIN ones
  Written w = RoundTrip(fs, s, rows, options);
  ASSERT_NE(w.reader, nullptr);
  ASSERT_GT(w.reader->num_row_groups(), 1);
  auto keep = [](int64_t r) { return r % 10 != 3 && (r < 5000 || r > 9000); };
  EXPECT_EQ(CopyRows(fs, w, s, keep), Kept(rows, keep));

  // A batch of another schema is refused.
  Schema other = s;
  other.fields[1] = Field::String("text", kReq, 2);
  RowBatch batch(other);
  Status refused = w.reader->AppendRowGroup(0, [](int64_t) { return true; }, &batch);
  EXPECT_EQ(refused.kind(), StatusKind::kInvalidArgument) << refused.ToString();
}

TEST(ParquetWriterTest, MultiplePagesAndRowGroups) {
  Schema s;
  s.fields = {Field::Int64("n", kReq, 1), Field::String("text", kOpt, 2),
              Field::List("xs", kOpt, 3, Field::Int32("element", kOpt, 4))};
  std::vector<Value> rows;
  for (int i = 0; i < 20000; ++i) {
    std::vector<Value> xs;
    for (int j = 0; j < i % 4; ++j) xs.push_back(j == 2 ? Value::Null() : I32(i + j));
    rows.push_back(Row({I64(i), i % 11 == 0 ? Value::Null() : Str("value-" + std::to_string(i % 1500)),
                        Value::List(std::move(xs))}));
  }
  MemoryFileSystem fs;
  WriterOptions options;
  options.page_size = 4096;
  options.row_group_size = 64 * 1024;
  options.dictionary_page_size_limit = 8 * 1024;  // forces the fallback to PLAIN
  Written w = RoundTrip(fs, s, rows, options);
  ASSERT_NE(w.reader, nullptr);
  EXPECT_GT(w.reader->num_row_groups(), 1);
  EXPECT_EQ(w.result.num_row_groups, w.reader->num_row_groups());
  const ColumnMetaData& text = *w.reader->metadata().row_groups[0].columns[1].meta_data;
  bool dict_pages = false, plain_pages = false;
  for (const PageEncodingStats& e : text.encoding_stats) {
    if (e.page_type == PageType::kDataPage && e.encoding == Encoding::kRleDictionary)
      dict_pages = e.count > 0;
    if (e.page_type == PageType::kDataPage && e.encoding == Encoding::kPlain) plain_pages = e.count > 1;
  }
  EXPECT_TRUE(dict_pages);
  EXPECT_TRUE(plain_pages) << "fell back to PLAIN over several pages";

  // Row by row gives the same rows, group after group, and a group can be
  // abandoned halfway.
  std::vector<Value> streamed;
  for (int g = 0; g < w.reader->num_row_groups(); ++g) {
    ASSERT_TRUE(w.reader->StartRowGroup(g).ok());
    Value row;
    while (true) {
      auto more = w.reader->NextRow(&row);
      ASSERT_TRUE(more.ok()) << more.status().ToString();
      if (!*more) break;
      streamed.push_back(row);
    }
    auto after = w.reader->NextRow(&row);
    ASSERT_TRUE(after.ok());
    EXPECT_FALSE(*after);
  }
  EXPECT_EQ(streamed, rows);
  ASSERT_TRUE(w.reader->StartRowGroup(1).ok());
  Value row;
  ASSERT_TRUE(*w.reader->NextRow(&row));
  auto group = w.reader->ReadRowGroup(0);
  ASSERT_TRUE(group.ok());
  EXPECT_EQ((*group)[0], rows[0]);
  EXPECT_FALSE(w.reader->StartRowGroup(w.reader->num_row_groups()).ok());
}

TEST(ParquetWriterTest, DeltaEncodedColumns) {
  Schema s;
  s.fields = {Field::Int64("n", kReq, 1), Field::Int32("i", kOpt, 2), Field::String("sorted", kOpt, 3),
              Field::Binary("raw", kReq, 4), Field::Int64("plain", kReq, 5)};
  std::vector<Value> rows;
  for (int k = 0; k < 20000; ++k) {
    rows.push_back(Row({I64(int64_t{1} << 40 | k), k % 5 == 0 ? Value::Null() : I32(k % 2 ? -k : k * 1000),
                        k % 9 == 0 ? Value::Null() : Str("sensor-" + std::to_string(100000 + k / 3)),
                        Value::Bytes(std::string(static_cast<size_t>(k % 17), static_cast<char>(k))),
                        I64(k * 7)}));
  }
  MemoryFileSystem fs;
  WriterOptions options;
  options.page_size = 8192;
  options.row_group_rows = 7000;
  options.column_encodings = {{"n", Encoding::kDeltaBinaryPacked},
                              {"i", Encoding::kDeltaBinaryPacked},
                              {"sorted", Encoding::kDeltaByteArray},
                              {"raw", Encoding::kDeltaLengthByteArray}};
  Written w = RoundTrip(fs, s, rows, options);
  ASSERT_NE(w.reader, nullptr);
  ASSERT_EQ(w.reader->num_row_groups(), 3);
  const RowGroup& group = w.reader->metadata().row_groups[0];
  const Encoding expected[] = {Encoding::kDeltaBinaryPacked, Encoding::kDeltaBinaryPacked,
                               Encoding::kDeltaByteArray, Encoding::kDeltaLengthByteArray,
                               Encoding::kRleDictionary};
  for (int c = 0; c < 5; ++c) {
    const ColumnMetaData& m = *group.columns[c].meta_data;
    bool found = false;
    for (const PageEncodingStats& e : m.encoding_stats) {
      if (e.page_type == PageType::kDataPage && e.encoding == expected[c]) found = e.count > 1;
      if (c < 4) {
        EXPECT_NE(e.page_type, PageType::kDictionaryPage) << c;
      }
    }
    EXPECT_TRUE(found) << "column " << c << " has several pages in its encoding";
  }
  // Statistics still follow the values.
  const ColumnMetaData& n = *group.columns[0].meta_data;
  EXPECT_EQ(n.statistics->min_value, Le<int64_t>(int64_t{1} << 40));
  EXPECT_EQ(n.statistics->max_value, Le<int64_t>(int64_t{1} << 40 | 6999));

  // An encoding that does not fit its column, or no column at all.
  for (auto [column, encoding] : std::vector<std::pair<std::string, Encoding>>{
           {"n", Encoding::kDeltaByteArray}, {"sorted", Encoding::kDeltaBinaryPacked}, {"nope",
           Encoding::kDeltaBinaryPacked}}) {
    WriterOptions bad;
    bad.column_encodings = {{column, encoding}};
    auto writer = ParquetWriter::Open(fs, "bad.parquet", s, bad);
    EXPECT_EQ(writer.status().kind(), StatusKind::kInvalidArgument) << column;
  }
}

TEST(ParquetWriterTest, StatisticsAndMetrics) {
  Schema s;
  s.fields = {Field::Int32("i", kOpt, 1),
              Field::Double("d", kOpt, 2),
              Field::String("s", kOpt, 3),
              Field::Float("f", kOpt, 4),
              Field::Primitive("u8", PhysicalType::kInt32, kOpt, 5, LogicalType::Integer(32, false)),
              Field::List("xs", kOpt, 6, Field::Int64("element", kOpt, 7))};
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<Value> rows = {
      Row({I32(5), Value::Double(0.0), Str("b"), Value::Float(nan), I32(-1),
           Value::List({I64(3), Value::Null()})}),
      Row({I32(-7), Value::Double(-1.5), Str("\xc3\xa9"), Value::Float(2.5f), I32(7), Value::List({})}),
      Row({Value::Null(), Value::Double(8), Str("abc"), Value::Float(nan), I32(0), Value::Null()}),
      Row({I32(100), Value::Null(), Value::Null(), Value::Null(), Value::Null(), Value::List({I64(-9)})}),
  };
  MemoryFileSystem fs;
  Written w = RoundTrip(fs, s, rows);
  ASSERT_NE(w.reader, nullptr);
  auto stats = [&](int c) { return *w.reader->metadata().row_groups[0].columns[c].meta_data->statistics; };
  EXPECT_EQ(stats(0).min_value, Le<int32_t>(-7));
  EXPECT_EQ(stats(0).max_value, Le<int32_t>(100));
  EXPECT_EQ(stats(0).null_count, 1);
  EXPECT_EQ(stats(1).min_value, Le<double>(-1.5));
  EXPECT_EQ(stats(1).max_value, Le<double>(8));
  EXPECT_EQ(stats(2).min_value, "abc");
  EXPECT_EQ(stats(2).max_value, "\xc3\xa9");
  EXPECT_EQ(stats(3).min_value, Le<float>(2.5f));  // NaN excluded
  EXPECT_EQ(stats(3).max_value, Le<float>(2.5f));
  EXPECT_EQ(stats(4).min_value, Le<int32_t>(0));  // unsigned order: -1 is the largest
  EXPECT_EQ(stats(4).max_value, Le<int32_t>(-1));
  EXPECT_EQ(stats(5).min_value, Le<int64_t>(-9));
  EXPECT_EQ(stats(5).max_value, Le<int64_t>(3));
  EXPECT_EQ(stats(5).null_count, 3);  // the null element, the empty list, the null list

  const std::vector<ColumnMetrics>& m = w.result.columns;
  ASSERT_EQ(m.size(), 6u);
  EXPECT_EQ(m[3].field_id, 4);
  EXPECT_EQ(m[3].value_count, 4);
  EXPECT_EQ(m[3].null_count, 1);
  EXPECT_EQ(m[3].nan_count, 2);
  EXPECT_EQ(m[5].path, (std::vector<std::string>{"xs", "list", "element"}));
  EXPECT_EQ(m[5].value_count, 5);
  EXPECT_EQ(m[5].null_count, 3);
  EXPECT_EQ(m[1].lower_bound, Le<double>(-1.5));
  EXPECT_EQ(m[1].upper_bound, Le<double>(8));
  EXPECT_EQ(w.result.num_rows, 4);
  EXPECT_EQ(w.result.file_size, fs.ReadFileToString("t.parquet")->size());
}

TEST(ParquetWriterTest, ZeroBoundsFollowTheSpec) {
  Schema s;
  s.fields = {Field::Double("d", kReq, 1)};
  MemoryFileSystem fs;
  Written w = RoundTrip(fs, s, {Row({Value::Double(0.0)}), Row({Value::Double(0.0)})});
  ASSERT_NE(w.reader, nullptr);
  const Statistics& st = *w.reader->metadata().row_groups[0].columns[0].meta_data->statistics;
  EXPECT_EQ(st.min_value, Le<double>(-0.0));
  EXPECT_EQ(st.max_value, Le<double>(0.0));
}

TEST(ParquetWriterTest, LongValuesStayOutOfChunkStatistics) {
  Schema s;
  s.fields = {Field::Binary("b", kOpt, 1)};
  WriterOptions options;
  options.max_statistics_size = 8;
  MemoryFileSystem fs;
  Written w =
      RoundTrip(fs, s, {Row({Value::Bytes("short")}), Row({Value::Bytes("much longer value")})}, options);
  ASSERT_NE(w.reader, nullptr);
  const Statistics& st = *w.reader->metadata().row_groups[0].columns[0].meta_data->statistics;
  EXPECT_FALSE(st.min_value.has_value());
  EXPECT_FALSE(st.max_value.has_value());
  EXPECT_EQ(st.null_count, 0);
  EXPECT_EQ(w.result.columns[0].upper_bound, "short");
  EXPECT_EQ(w.result.columns[0].lower_bound, "much longer value");
}

TEST(ParquetWriterTest, AllNullColumnHasNoBounds) {
  Schema s;
  s.fields = {Field::String("s", kOpt, 1)};
  MemoryFileSystem fs;
  Written w = RoundTrip(fs, s, {Row({Value::Null()}), Row({Value::Null()})});
  ASSERT_NE(w.reader, nullptr);
  const Statistics& st = *w.reader->metadata().row_groups[0].columns[0].meta_data->statistics;
  EXPECT_FALSE(st.min_value.has_value());
  EXPECT_EQ(st.null_count, 2);
  EXPECT_FALSE(w.result.columns[0].lower_bound.has_value());
}

TEST(ParquetWriterTest, KeyValueMetadataAndFieldIds) {
  Schema s;
  s.fields = {Field::Int32("a", kReq, 17)};
  WriterOptions options;
  options.key_value_metadata = {{"cqlite.version", "1"}, {"empty", std::nullopt}};
  MemoryFileSystem fs;
  Written w = RoundTrip(fs, s, {Row({I32(1)})}, options);
  ASSERT_NE(w.reader, nullptr);
  EXPECT_EQ(w.reader->metadata().key_value_metadata, options.key_value_metadata);
  EXPECT_EQ(w.reader->schema().fields[0].field_id, 17);
  std::string bytes = *fs.ReadFileToString("t.parquet");
  EXPECT_EQ(bytes.substr(0, 4), "PAR1");
  EXPECT_EQ(bytes.substr(bytes.size() - 4), "PAR1");
}

TEST(ParquetWriterTest, EmptyFile) {
  Schema s;
  s.fields = {Field::Int32("a", kOpt, 1)};
  MemoryFileSystem fs;
  Written w = RoundTrip(fs, s, {});
  ASSERT_NE(w.reader, nullptr);
  EXPECT_EQ(w.reader->num_row_groups(), 0);
  EXPECT_EQ(w.reader->num_rows(), 0);
}

TEST(ParquetWriterTest, RejectsRowsThatDoNotFitTheSchema) {
  Schema s;
  s.fields = {Field::Int32("a", kReq, 1), Field::List("l", kOpt, 2, Field::String("element", kReq, 3))};
  MemoryFileSystem fs;
  auto writer = ParquetWriter::Open(fs, "t.parquet", s);
  ASSERT_TRUE(writer.ok());
  EXPECT_EQ((*writer)->WriteRow(Row({Value::Null(), Value::Null()})).kind(), StatusKind::kInvalidArgument);
  EXPECT_EQ((*writer)->WriteRow(Row({I64(1), Value::Null()})).kind(), StatusKind::kInvalidArgument);
  EXPECT_EQ((*writer)->WriteRow(Row({I32(1), Value::List({Value::Null()})})).kind(),
            StatusKind::kInvalidArgument);
  EXPECT_EQ((*writer)->WriteRow(Row({I32(1)})).kind(), StatusKind::kInvalidArgument);
  EXPECT_EQ((*writer)->WriteRow(I32(1)).kind(), StatusKind::kInvalidArgument);
  ASSERT_TRUE((*writer)->WriteRow(Row({I32(1), Value::List({Str("x")})})).ok());
  auto result = (*writer)->Close();
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->num_rows, 1);  // rejected rows left nothing behind
  auto reader = ParquetReader::Open(fs, "t.parquet");
  ASSERT_TRUE(reader.ok());
  auto rows = (*reader)->ReadAll();
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(*rows, std::vector<Value>{Row({I32(1), Value::List({Str("x")})})});

  Schema bad;
  bad.fields = {Field::Map("m", kOpt, 1, Field::String("key", kOpt, 2), Field::Int32("value", kOpt, 3))};
  EXPECT_EQ(ParquetWriter::Open(fs, "u.parquet", bad).status().kind(), StatusKind::kInvalidArgument);
}

// A random value that fits `field` (null at most 1 time in 4 where allowed).
Value RandomValue(const Field& field, std::mt19937& rng, int depth) {
  if (field.optional() && rng() % 4 == 0) return Value::Null();
  switch (field.kind) {
    case Field::Kind::kPrimitive:
      switch (field.physical_type) {
        case PhysicalType::kBoolean:
          return Value::Bool(rng() % 2);
        case PhysicalType::kInt32:
          return I32(static_cast<int32_t>(rng() % 50) - 25);
        case PhysicalType::kInt64:
          return I64(static_cast<int64_t>(rng()) << (rng() % 32));
        case PhysicalType::kDouble:
          return Value::Double(static_cast<double>(rng() % 1000) / 8);
        case PhysicalType::kFloat:
          return Value::Float(static_cast<float>(rng() % 100) / 4);
        default:
          return Str(std::string(rng() % 6, static_cast<char>('a' + rng() % 3)));
      }
    case Field::Kind::kStruct: {
      std::vector<Value> fields;
      for (const Field& c : field.children) fields.push_back(RandomValue(c, rng, depth + 1));
      return Value::Struct(std::move(fields));
    }
    case Field::Kind::kList: {
      std::vector<Value> elements(rng() % (depth > 2 ? 2 : 5));
      for (Value& e : elements) e = RandomValue(field.children[0], rng, depth + 1);
      return Value::List(std::move(elements));
    }
    case Field::Kind::kMap: {
      std::vector<std::pair<Value, Value>> entries(rng() % 4);
      for (auto& [k, v] : entries) {
        k = RandomValue(field.children[0], rng, depth + 1);
        v = RandomValue(field.children[1], rng, depth + 1);
      }
      return Value::Map(std::move(entries));
    }
  }
  return Value::Null();
}

TEST(ParquetWriterTest, RandomNestedRowsRoundTrip) {
  Schema s;
  s.fields = {
      Field::Int64("k", kReq, 1),
      Field::List("a", kOpt, 2, Field::List("element", kReq, 3, Field::String("element", kOpt, 4))),
      Field::Struct(
          "st", kOpt, 5,
          {Field::Boolean("flag", kOpt, 6),
           Field::Map("m", kReq, 7, Field::Int32("key", kReq, 8),
                      Field::Struct("value", kOpt, 9,
                                    {Field::Float("f", kOpt, 10),
                                     Field::List("l", kOpt, 11, Field::Double("element", kOpt, 12))}))}),
      Field::List("ls", kReq, 13, Field::Struct("element", kOpt, 14, {Field::String("x", kReq, 15)})),
  };
  std::mt19937 rng(42);
  for (CompressionCodec codec :
       {CompressionCodec::kUncompressed, CompressionCodec::kSnappy, CompressionCodec::kZstd}) {
    std::vector<Value> rows;
    for (int i = 0; i < 3000; ++i) {
      std::vector<Value> fields;
      for (const Field& f : s.fields) fields.push_back(RandomValue(f, rng, 0));
      rows.push_back(Row(std::move(fields)));
    }
    MemoryFileSystem fs;
    WriterOptions options;
    options.compression = codec;
    options.page_size = 512;
    options.row_group_rows = 700;
    options.dictionary_page_size_limit = 64;
    Written w = RoundTrip(fs, s, rows, options);
    ASSERT_NE(w.reader, nullptr);
    EXPECT_EQ(w.reader->num_row_groups(), 5);
  }
}

std::string Hex(std::string_view bytes) {
  std::string out;
  char buf[4];
  for (unsigned char c : bytes) {
    std::snprintf(buf, sizeof buf, " %02x", c);
    out += buf;
  }
  return out;
}

// Every page carries the CRC-32 of its bytes and the footer one of itself,
// so a file this writer wrote reads back exactly or not at all: a flip of any
// bit anywhere is an error, never other values.
TEST(ParquetReaderTest, EveryFlippedBitOfAFileWeWroteIsAnError) {
  MemoryFileSystem fs;
  WriterOptions options;
  options.row_group_rows = 25;
  options.page_size = 256;
  options.key_value_metadata = {{"k", "v"}};
  options.column_encodings = {{"l", Encoding::kDeltaBinaryPacked}, {"s", Encoding::kDeltaByteArray}};
  Written w = RoundTrip(fs, AllTypesSchema(), AllTypesRows(60), options);
  ASSERT_NE(w.reader, nullptr);
  // The checksum is the writer's bookkeeping: readers see the file's own metadata.
  EXPECT_EQ(w.reader->metadata().key_value_metadata, (std::vector<KeyValue>{{"k", std::string("v")}}));
  const std::string good = *fs.ReadFileToString("t.parquet");
  int survived = 0;
  for (size_t at = 0; at < good.size(); ++at) {
    for (int bit : {static_cast<int>(at * 5 % 8)}) {  // every bit position, over the bytes
      std::string bad = good;
      bad[at] = static_cast<char>(bad[at] ^ (1 << bit));
      fs.AddFile("bad.parquet", bad);
      auto reader = ParquetReader::Open(fs, "bad.parquet");
      if (!reader.ok()) continue;
      auto rows = (*reader)->ReadAll();
      if (!rows.ok()) continue;
      ++survived;
      if (std::getenv("CQLITE_DUMP_FLIP")) {
        std::FILE* f = std::fopen(std::getenv("CQLITE_DUMP_FLIP"), "wb");
        std::fwrite(bad.data(), 1, bad.size(), f);
        std::fclose(f);
      }
      ADD_FAILURE() << "bit " << bit << " of byte " << at << " of " << good.size() << " flipped, and the file read "
                    << (*rows == w.rows ? "the same" : "other") << " rows; bytes from " << (at < 6 ? 0 : at - 6)
                    << ":" << Hex(good.substr(at < 6 ? 0 : at - 6, 12));
      if (survived > 10) return;
    }
  }
}

TEST(ParquetReaderTest, TruncatedAndCorruptFilesAreCleanErrors) {
  MemoryFileSystem fs;
  WriterOptions options;
  options.row_group_rows = 50;
  Written w = RoundTrip(fs, AllTypesSchema(), AllTypesRows(120), options);
  ASSERT_NE(w.reader, nullptr);
  std::string good = *fs.ReadFileToString("t.parquet");
  // Every truncation.
  for (size_t n = 0; n < good.size(); n += (n < 64 || n + 64 > good.size()) ? 1 : 97) {
    fs.AddFile("cut.parquet", good.substr(0, n));
    auto reader = ParquetReader::Open(fs, "cut.parquet");
    EXPECT_FALSE(reader.ok()) << n;
    if (!reader.ok()) {
      EXPECT_EQ(reader.status().kind(), StatusKind::kCorruption) << reader.status().ToString();
    }
  }
  // Flipped bytes anywhere: an error or (rarely) different values, never a crash.
  uint32_t footer_size;
  std::memcpy(&footer_size, good.data() + good.size() - 8, 4);
  for (size_t at = 4; at + 8 < good.size(); at += 13) {
    std::string bad = good;
    bad[at] = static_cast<char>(bad[at] ^ 0x5a);
    fs.AddFile("bad.parquet", bad);
    auto reader = ParquetReader::Open(fs, "bad.parquet");
    if (!reader.ok()) continue;
    auto rows = (*reader)->ReadAll();
    if (!rows.ok()) {
      EXPECT_NE(rows.status().kind(), StatusKind::kOk);
    }
  }
  // A footer length pointing before the start.
  std::string bad = good;
  uint32_t huge = 0x7fffffff;
  std::memcpy(bad.data() + bad.size() - 8, &huge, 4);
  fs.AddFile("len.parquet", bad);
  EXPECT_EQ(ParquetReader::Open(fs, "len.parquet").status().kind(), StatusKind::kCorruption);
  fs.AddFile("magic.parquet", "PAR1garbagegarbage");
  EXPECT_EQ(ParquetReader::Open(fs, "magic.parquet").status().kind(), StatusKind::kCorruption);
}

TEST(ParquetReaderTest, EveryFlippedByteOfANestedFileIsHandled) {
  Schema s;
  s.fields = {Field::List("a", kOpt, 1, Field::List("element", kOpt, 2, Field::Int32("element", kOpt, 3))),
              Field::Map("m", kOpt, 4, Field::String("key", kReq, 5), Field::String("value", kOpt, 6))};
  std::mt19937 rng(1);
  std::vector<Value> rows;
  for (int i = 0; i < 40; ++i)
    rows.push_back(Row({RandomValue(s.fields[0], rng, 0), RandomValue(s.fields[1], rng, 0)}));
  for (CompressionCodec codec : {CompressionCodec::kUncompressed, CompressionCodec::kSnappy}) {
    MemoryFileSystem fs;
    WriterOptions options;
    options.compression = codec;
    options.page_size = 64;
    Written w = RoundTrip(fs, s, rows, options);
    ASSERT_NE(w.reader, nullptr);
    std::string good = *fs.ReadFileToString("t.parquet");
    int errors = 0;
    for (size_t at = 0; at < good.size(); ++at) {
      for (uint8_t flip : {0x01, 0x80, 0xff}) {
        std::string bad = good;
        bad[at] = static_cast<char>(bad[at] ^ flip);
        fs.AddFile("bad.parquet", bad);
        auto reader = ParquetReader::Open(fs, "bad.parquet");
        if (!reader.ok()) {
          ++errors;
          continue;
        }
        auto read = (*reader)->ReadAll();  // an error or some rows; never a crash
        if (!read.ok()) ++errors;
      }
    }
    EXPECT_GT(errors, 0);
  }
}

// `file`, one CQLite wrote, as another writer would have written it: no
// CQLite footer checksum, parquet-java's created_by, and every data page
// header passed through `edit` (which must keep its length, so that no
// offset moves; the page CRC-32s cover the pages' bytes only).
std::string AsOtherWritersFile(const std::string& file,
                               const std::function<void(const ColumnMetaData&, DataPageHeader&)>& edit) {
  uint32_t footer_size;
  std::memcpy(&footer_size, file.data() + file.size() - 8, 4);
  const size_t footer_at = file.size() - 8 - footer_size;
  auto metadata = ParseFileMetaData(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(file.data()) + footer_at, footer_size), "t.parquet");
  EXPECT_TRUE(metadata.ok()) << metadata.status().ToString();
  if (!metadata.ok()) return {};
  std::string out = file.substr(0, footer_at);
  for (const RowGroup& group : metadata->row_groups) {
    for (const ColumnChunk& chunk : group.columns) {
      const ColumnMetaData& m = *chunk.meta_data;
      size_t pos = static_cast<size_t>(m.dictionary_page_offset ? *m.dictionary_page_offset : m.data_page_offset);
      const size_t end = pos + static_cast<size_t>(m.total_compressed_size);
      while (pos < end) {
        size_t size = 0;
        auto header = ParsePageHeader(
            std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(out.data()) + pos, end - pos), "page", &size);
        EXPECT_TRUE(header.ok()) << header.status().ToString();
        if (!header.ok()) return {};
        if (header->data_page_header) {
          edit(m, *header->data_page_header);
          std::string again = SerializePageHeader(*header);
          EXPECT_EQ(again.size(), size);
          out.replace(pos, size, again);
        }
        pos += size + static_cast<size_t>(header->compressed_page_size);
      }
    }
  }
  std::erase_if(metadata->key_value_metadata, [](const KeyValue& kv) { return kv.key == kFooterChecksumKey; });
  metadata->created_by = "parquet-mr version 1.15.2 (build 0)";
  std::string footer = SerializeFileMetaData(*metadata);
  out += footer;
  out += Le(static_cast<uint32_t>(footer.size()));
  out += "PAR1";
  return out;
}

// parquet-java names BIT_PACKED as the encoding of levels a column does not
// have (a required column's definition levels, a flat column's repetition
// levels). They are not in the page, so such pages read as any other; levels
// a column has must still be RLE, and in a file of CQLite's (which names RLE
// for every level) another name is damage.
TEST(ParquetReaderTest, LevelsAColumnDoesNotHaveMayNameAnyEncoding) {
  MemoryFileSystem fs;
  Schema schema;
  schema.fields = {Field::Int64("id", kReq, 1), Field::String("s", kOpt, 2)};
  std::vector<Value> rows;
  for (int i = 0; i < 40; ++i) rows.push_back(Row({I64(i * 3), i % 4 == 0 ? Value::Null() : Str("v" + std::to_string(i))}));
  WriterOptions options;
  options.row_group_rows = 16;
  Written w = RoundTrip(fs, schema, rows, options);
  ASSERT_NE(w.reader, nullptr);
  const std::string ours = *fs.ReadFileToString("t.parquet");

  auto read = [&](const std::string& name, const std::string& bytes) -> Result<std::vector<Value>> {
    fs.AddFile(name, bytes);
    ASSIGN_OR_RETURN(std::unique_ptr<ParquetReader> reader, ParquetReader::Open(fs, name));
    return reader->ReadAll();
  };
  auto absent_as_bit_packed = [](const ColumnMetaData& m, DataPageHeader& d) {
    d.repetition_level_encoding = Encoding::kBitPacked;
    if (m.path_in_schema[0] == "id") d.definition_level_encoding = Encoding::kBitPacked;
  };
  auto theirs = read("parquet-java.parquet", AsOtherWritersFile(ours, absent_as_bit_packed));
  ASSERT_TRUE(theirs.ok()) << theirs.status().ToString();
  EXPECT_EQ(*theirs, rows);

  auto present_as_bit_packed = [](const ColumnMetaData& m, DataPageHeader& d) {
    if (m.path_in_schema[0] == "s") d.definition_level_encoding = Encoding::kBitPacked;
  };
  auto refused = read("bit-packed.parquet", AsOtherWritersFile(ours, present_as_bit_packed));
  EXPECT_EQ(refused.status().kind(), StatusKind::kNotSupported) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("bit-packed.parquet column s page at byte"), std::string::npos)
      << refused.status().ToString();

  // The same header in a file that keeps CQLite's footer checksum.
  std::string damaged = ours;
  fs.AddFile("t.parquet", ours);
  size_t size = 0;
  const ColumnMetaData& id = *w.reader->metadata().row_groups[0].columns[0].meta_data;
  auto header = ParsePageHeader(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(ours.data()) + id.data_page_offset,
                               ours.size() - static_cast<size_t>(id.data_page_offset)),
      "page", &size);
  ASSERT_TRUE(header.ok()) << header.status().ToString();
  header->data_page_header->repetition_level_encoding = Encoding::kBitPacked;
  std::string again = SerializePageHeader(*header);
  ASSERT_EQ(again.size(), size);
  damaged.replace(static_cast<size_t>(id.data_page_offset), size, again);
  auto ours_damaged = read("damaged.parquet", damaged);
  EXPECT_EQ(ours_damaged.status().kind(), StatusKind::kCorruption) << ours_damaged.status().ToString();
}

// ReadFlatColumns gives, column by column, the values ReadRowGroup assembles
// into rows: INT64 and BYTE_ARRAY columns in PLAIN, dictionary (also an INT64
// dictionary, and a dictionary that falls back to PLAIN halfway) and DELTA
// pages; other schemas are refused.
TEST(ParquetWriterTest, FlatColumnsHoldTheValuesOfTheRows) {
  Schema s;
  s.fields = {Field::Int64("delta", kReq, 1), Field::Int64("repeats", kReq, 2), Field::Int64("plain", kReq, 3),
              Field::Binary("sorted", kReq, 4), Field::String("fallback", kReq, 5), Field::Binary("raw", kReq, 6)};
  std::vector<Value> rows;
  for (int k = 0; k < 30000; ++k) {
    rows.push_back(Row({I64(int64_t{1} << 40 | k), I64(k % 3), I64(k * 0x9e3779b97f4a7c15LL),
                        Value::Bytes("key-" + std::to_string(100000 + k / 7)),
                        Str(k < 9000 ? "few-" + std::to_string(k % 5) : "many-" + std::to_string(k)),
                        Value::Bytes(std::string(static_cast<size_t>(k % 23), static_cast<char>(k)))}));
  }
  MemoryFileSystem fs;
  WriterOptions options;
  options.page_size = 4096;
  options.row_group_rows = 12000;
  options.dictionary_page_size_limit = 16 * 1024;
  options.column_encodings = {{"delta", Encoding::kDeltaBinaryPacked},
                              {"sorted", Encoding::kDeltaByteArray},
                              {"raw", Encoding::kDeltaLengthByteArray}};
  Written w = RoundTrip(fs, s, rows, options);
  ASSERT_NE(w.reader, nullptr);
  ASSERT_EQ(w.reader->num_row_groups(), 3);
  std::vector<FlatColumn> columns;
  size_t row = 0;
  for (int g = 0; g < w.reader->num_row_groups(); ++g) {
    Status status = w.reader->ReadFlatColumns(g, &columns);
    ASSERT_TRUE(status.ok()) << status.ToString();
    ASSERT_EQ(columns.size(), 6u);
    size_t n = columns[0].size();
    for (const FlatColumn& c : columns) ASSERT_EQ(c.size(), n);
    for (size_t r = 0; r < n; ++r, ++row) {
      const auto& f = rows[row].fields();
      ASSERT_EQ(columns[0].ints[r], f[0].int64_value()) << row;
      ASSERT_EQ(columns[1].ints[r], f[1].int64_value()) << row;
      ASSERT_EQ(columns[2].ints[r], f[2].int64_value()) << row;
      ASSERT_EQ(columns[3].Bytes(r), f[3].bytes()) << row;
      ASSERT_EQ(columns[4].Bytes(r), f[4].bytes()) << row;
      ASSERT_EQ(columns[5].Bytes(r), f[5].bytes()) << row;
    }
  }
  EXPECT_EQ(row, rows.size());
  EXPECT_FALSE(w.reader->ReadFlatColumns(3, &columns).ok());

  Schema nested;
  nested.fields = {Field::Int64("n", kReq, 1), Field::String("maybe", kOpt, 2)};
  MemoryFileSystem fs2;
  Written other = RoundTrip(fs2, nested, {Row({I64(1), Value::Null()})}, WriterOptions());
  ASSERT_NE(other.reader, nullptr);
  Status refused = other.reader->ReadFlatColumns(0, &columns);
  EXPECT_EQ(refused.kind(), StatusKind::kInvalidArgument) << refused.ToString();
}

}  // namespace
}  // namespace cqlite::parquet
