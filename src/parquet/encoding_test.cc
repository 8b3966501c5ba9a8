#include "parquet/encoding.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <random>

#include "parquet/parquet_format.h"
#include "parquet/thrift_compact.h"

namespace cqlite::parquet {
namespace {

std::span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

TEST(ThriftCompactTest, RoundTripsFieldsAndSkipsUnknownOnes) {
  CompactWriter w;
  w.BeginStruct();
  w.FieldI32(1, -5);
  w.FieldI64(2, int64_t{1} << 40);
  w.FieldBinary(20, "hello");  // long delta: explicit id
  w.FieldBool(21, true);
  w.FieldList(22, CompactType::kI32, 20);
  for (int i = 0; i < 20; ++i) w.ElementI32(i);
  w.FieldStruct(23);
  w.FieldByte(1, -3);
  w.EndStruct();
  w.FieldI32(24, 7);
  w.EndStruct();
  std::string data = w.Release();

  CompactReader r(Bytes(data), "test");
  ASSERT_TRUE(r.BeginStruct().ok());
  CompactType t;
  int16_t id;
  ASSERT_TRUE(r.NextField(&t, &id).ok());
  EXPECT_EQ(id, 1);
  EXPECT_EQ(*r.ReadI32(), -5);
  ASSERT_TRUE(r.NextField(&t, &id).ok());
  EXPECT_EQ(*r.ReadI64(), int64_t{1} << 40);
  ASSERT_TRUE(r.NextField(&t, &id).ok());
  EXPECT_EQ(id, 20);
  EXPECT_EQ(*r.ReadBinary(), "hello");
  ASSERT_TRUE(r.NextField(&t, &id).ok());
  EXPECT_EQ(id, 21);
  EXPECT_TRUE(*r.ReadBool(t));
  for (int16_t skipped : {22, 23}) {
    ASSERT_TRUE(r.NextField(&t, &id).ok());
    EXPECT_EQ(id, skipped);
    ASSERT_TRUE(r.Skip(t).ok());
  }
  ASSERT_TRUE(r.NextField(&t, &id).ok());
  EXPECT_EQ(id, 24);
  EXPECT_EQ(*r.ReadI32(), 7);
  ASSERT_TRUE(r.NextField(&t, &id).ok());
  EXPECT_EQ(t, CompactType::kStop);
  EXPECT_EQ(r.position(), data.size());
}

TEST(ThriftCompactTest, TruncationIsCorruption) {
  FileMetaData m;
  m.schema.push_back(SchemaElement{});
  m.schema[0].name = "schema";
  m.schema[0].num_children = 0;
  m.created_by = "test";
  std::string data = SerializeFileMetaData(m);
  for (size_t n = 0; n < data.size(); ++n) {
    auto parsed = ParseFileMetaData(Bytes(data.substr(0, n)), "footer");
    ASSERT_FALSE(parsed.ok()) << n;
    EXPECT_EQ(parsed.status().kind(), StatusKind::kCorruption);
  }
  EXPECT_TRUE(ParseFileMetaData(Bytes(data), "footer").ok());
}

TEST(ParquetFormatTest, FileMetaDataRoundTrips) {
  FileMetaData m;
  SchemaElement root;
  root.name = "schema";
  root.num_children = 1;
  SchemaElement leaf;
  leaf.name = "d";
  leaf.type = PhysicalType::kFixedLenByteArray;
  leaf.type_length = 16;
  leaf.repetition_type = Repetition::kOptional;
  leaf.field_id = 42;
  leaf.logical_type = LogicalType::Decimal(38, 10);
  leaf.converted_type = ConvertedType::kDecimal;
  leaf.scale = 10;
  leaf.precision = 38;
  m.schema = {root, leaf};
  m.num_rows = 3;
  RowGroup g;
  g.num_rows = 3;
  ColumnChunk c;
  c.file_offset = 4;
  ColumnMetaData cm;
  cm.type = PhysicalType::kFixedLenByteArray;
  cm.encodings = {Encoding::kPlain, Encoding::kRle};
  cm.path_in_schema = {"d"};
  cm.codec = CompressionCodec::kZstd;
  cm.num_values = 3;
  cm.data_page_offset = 4;
  cm.statistics = Statistics{1, std::nullopt, std::string("\xff", 1), std::string("\x00", 1)};
  c.meta_data = cm;
  g.columns.push_back(c);
  m.row_groups.push_back(g);
  m.key_value_metadata.push_back({"k", "v"});
  m.created_by = "me";
  m.column_orders = {true};
  auto parsed = ParseFileMetaData(Bytes(SerializeFileMetaData(m)), "footer");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const FileMetaData& p = *parsed;
  ASSERT_EQ(p.schema.size(), 2u);
  EXPECT_EQ(p.schema[1].field_id, 42);
  EXPECT_EQ(p.schema[1].logical_type, LogicalType::Decimal(38, 10));
  EXPECT_EQ(p.schema[1].type_length, 16);
  ASSERT_EQ(p.row_groups.size(), 1u);
  const ColumnMetaData& pc = *p.row_groups[0].columns[0].meta_data;
  EXPECT_EQ(pc.codec, CompressionCodec::kZstd);
  EXPECT_EQ(pc.statistics->min_value, std::string("\x00", 1));
  EXPECT_EQ(pc.statistics->null_count, 1);
  EXPECT_EQ(p.key_value_metadata, m.key_value_metadata);
  EXPECT_EQ(p.column_orders, std::vector<bool>{true});

  for (LogicalType lt :
       {LogicalType::String(), LogicalType::Date(), LogicalType::TimeMicros(),
        LogicalType::TimestampMicros(true), LogicalType::Uuid(), LogicalType::Integer(16, false)}) {
    m.schema[1].logical_type = lt;
    auto again = ParseFileMetaData(Bytes(SerializeFileMetaData(m)), "footer");
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->schema[1].logical_type, lt) << lt.kind;
  }
}

TEST(RleHybridTest, RoundTripsRunsAndLiterals) {
  std::mt19937 rng(7);
  for (int bit_width : {0, 1, 2, 3, 5, 8, 13, 20, 32}) {
    for (size_t n : {0u, 1u, 7u, 8u, 9u, 100u, 1000u, 5000u}) {
      std::vector<uint32_t> values(n);
      uint64_t limit = bit_width == 32 ? 0xffffffffull : (1ull << bit_width) - 1;
      for (size_t i = 0; i < n; ++i) {
        // Mix long runs and noise.
        values[i] = (i / 37) % 2 ? static_cast<uint32_t>(limit) : static_cast<uint32_t>(rng() % (limit + 1));
      }
      std::string encoded;
      EncodeRleHybrid(values, bit_width, &encoded);
      std::vector<uint32_t> decoded;
      RleHybridDecoder decoder(Bytes(encoded), bit_width);
      ASSERT_TRUE(decoder.Decode(n, &decoded).ok()) << bit_width << " " << n;
      EXPECT_EQ(decoded, values) << bit_width << " " << n;
    }
  }
}

TEST(RleHybridTest, KnownEncoding) {
  // Spec example shape: a run of 10 ones then 3 literal values, width 2.
  std::vector<uint32_t> values(10, 1);
  values.insert(values.end(), {0, 2, 3});
  std::string encoded;
  EncodeRleHybrid(values, 2, &encoded);
  // RLE run: header 10<<1 = 0x14, value 0x01; then 1 bit-packed group: header 0x03,
  // values 0,2,3,0,0,0,0,0 packed LSB first: 0b11'10'00 = 0x38, 0x00.
  EXPECT_EQ(encoded, std::string("\x14\x01\x03\x38\x00", 5));
}

TEST(RleHybridTest, TruncatedInputIsCorruption) {
  std::vector<uint32_t> values(100);
  for (size_t i = 0; i < values.size(); ++i) values[i] = i % 5;
  std::string encoded;
  EncodeRleHybrid(values, 3, &encoded);
  std::vector<uint32_t> decoded;
  std::string half = encoded.substr(0, encoded.size() / 2);
  RleHybridDecoder decoder(Bytes(half), 3);
  EXPECT_EQ(decoder.Decode(100, &decoded).kind(), StatusKind::kCorruption);
}

// The spec's own example (Encodings.md, DELTA_BINARY_PACKED, example 1) with
// our block layout: 1 2 3 4 5 are the first value 1 and four deltas of 1,
// which all equal the minimum, so every miniblock is 0 bits wide.
TEST(DeltaBinaryPackedTest, ConstantStepsTakeNoBits) {
  std::vector<int64_t> values = {1, 2, 3, 4, 5};
  std::string out;
  EncodeDeltaBinaryPacked<int64_t>(values, &out);
  EXPECT_EQ(out, std::string("\x80\x01\x04\x05\x02\x02\x00\x00\x00\x00", 10));
  size_t pos = 0;
  std::vector<int64_t> decoded;
  ASSERT_TRUE(DecodeDeltaBinaryPacked<int64_t>(Bytes(out), &pos, 5, &decoded, "t").ok());
  EXPECT_EQ(decoded, values);
  EXPECT_EQ(pos, out.size());
}

template <typename T>
void ExpectDeltaRoundTrip(const std::vector<T>& values) {
  std::string out = "prefix";
  EncodeDeltaBinaryPacked<T>(values, &out);
  out += "after";
  size_t pos = 6;
  std::vector<T> decoded;
  Status st = DecodeDeltaBinaryPacked<T>(Bytes(out), &pos, values.size(), &decoded, "t");
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(decoded, values);
  EXPECT_EQ(out.substr(pos), "after") << "the decoder stops where the stream ends";
  // The same stream at the very end of the buffer.
  out.resize(out.size() - 5);
  pos = 6;
  decoded.clear();
  st = DecodeDeltaBinaryPacked<T>(Bytes(out), &pos, values.size(), &decoded, "t");
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(decoded, values);
  EXPECT_EQ(pos, out.size());
}

TEST(DeltaBinaryPackedTest, RoundTripsEveryBitWidth) {
  std::mt19937_64 rng(11);
  for (int width = 0; width <= 63; ++width) {
    std::vector<int64_t> values;
    int64_t v = 0;
    for (int i = 0; i < 300; ++i) {
      const uint64_t delta = width == 0 ? 0 : rng() >> (64 - width);
      v = static_cast<int64_t>(static_cast<uint64_t>(v) + delta);
      values.push_back(v);
    }
    SCOPED_TRACE(width);
    ExpectDeltaRoundTrip(values);
  }
}

TEST(DeltaBinaryPackedTest, RoundTripsSortedRandomAndExtremeValues) {
  std::mt19937_64 rng(7);
  for (size_t n : {0, 1, 2, 31, 32, 33, 127, 128, 129, 130, 1000, 4097}) {
    std::vector<int64_t> sorted, random, extreme;
    std::vector<int32_t> random32, extreme32;
    int64_t v = -5000;
    for (size_t i = 0; i < n; ++i) {
      v += static_cast<int64_t>(rng() % 1000);
      sorted.push_back(v);
      random.push_back(static_cast<int64_t>(rng()));
      random32.push_back(static_cast<int32_t>(rng()));
      // Differences that overflow the type: they must wrap.
      extreme.push_back(i % 2 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min());
      extreme32.push_back(i % 3 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int32_t>::min());
    }
    ExpectDeltaRoundTrip(sorted);
    ExpectDeltaRoundTrip(random);
    ExpectDeltaRoundTrip(extreme);
    ExpectDeltaRoundTrip(random32);
    ExpectDeltaRoundTrip(extreme32);
  }
}

TEST(DeltaBinaryPackedTest, BadStreamsAreCorruption) {
  std::vector<int64_t> values(300);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int64_t>(i * i * 977);
  std::string good;
  EncodeDeltaBinaryPacked<int64_t>(values, &good);
  for (size_t cut = 0; cut < good.size(); ++cut) {
    size_t pos = 0;
    std::vector<int64_t> decoded;
    EXPECT_EQ(DecodeDeltaBinaryPacked<int64_t>(Bytes(good.substr(0, cut)), &pos, 300, &decoded, "t").kind(),
              StatusKind::kCorruption)
        << cut;
  }
  size_t pos = 0;
  std::vector<int64_t> decoded;
  EXPECT_EQ(DecodeDeltaBinaryPacked<int64_t>(Bytes(good), &pos, 299, &decoded, "t").kind(),
            StatusKind::kCorruption)
      << "a count other than the page's";
  std::string wide = good;
  wide[6] = 65;  // the first miniblock's width: more bits than an INT64 has
  pos = 0;
  EXPECT_EQ(DecodeDeltaBinaryPacked<int64_t>(Bytes(wide), &pos, 300, &decoded, "t").kind(),
            StatusKind::kCorruption);
  std::string odd_block = good;
  odd_block[0] = 100;  // a block of 100 values, not a multiple of 128
  pos = 0;
  EXPECT_EQ(DecodeDeltaBinaryPacked<int64_t>(Bytes(odd_block), &pos, 300, &decoded, "t").kind(),
            StatusKind::kCorruption);
}

TEST(DeltaByteArrayTest, RoundTripsSharedPrefixesAndEmptyValues) {
  std::vector<std::string> strings = {"", "apple", "applesauce", "apply", "b", "", "banana", "banana",
                                      std::string(300, 'x'), std::string(301, 'x') + "y"};
  for (int i = 0; i < 500; ++i) strings.push_back("key-" + std::to_string(1000000 + i * 7));
  // Shared prefixes and suffixes of every length around the decoder's 16-byte moves.
  for (int i = 0; i < 400; ++i) strings.push_back(std::string(i % 37, static_cast<char>('a' + i % 3)) + std::to_string(i % 23));
  std::vector<std::string_view> views(strings.begin(), strings.end());
  for (Encoding encoding : {Encoding::kDeltaByteArray, Encoding::kDeltaLengthByteArray}) {
    std::string out;
    if (encoding == Encoding::kDeltaByteArray) {
      EncodeDeltaByteArray(views, &out);
    } else {
      EncodeDeltaLengthByteArray(views, &out);
    }
    size_t pos = 0;
    ByteArrays decoded;
    decoded.push_back("already there");  // values are appended
    Status st = DecodeDeltaByteArrays(encoding, Bytes(out), &pos, strings.size(), &decoded, "t");
    ASSERT_TRUE(st.ok()) << st.ToString();
    ASSERT_EQ(decoded.size(), strings.size() + 1);
    EXPECT_EQ(decoded[0], "already there");
    for (size_t i = 0; i < strings.size(); ++i) EXPECT_EQ(decoded[i + 1], strings[i]) << i;
    EXPECT_EQ(pos, out.size());
    for (size_t cut = 0; cut < out.size(); cut += 7) {
      size_t at = 0;
      ByteArrays partial;
      EXPECT_EQ(DecodeDeltaByteArrays(encoding, Bytes(out.substr(0, cut)), &at, strings.size(), &partial, "t")
                    .kind(),
                StatusKind::kCorruption)
          << cut;
    }
  }
  // A prefix longer than the value before it.
  std::vector<int32_t> prefixes = {0, 5};
  std::vector<std::string_view> suffixes = {"ab", "c"};
  std::string bad;
  EncodeDeltaBinaryPacked<int32_t>(prefixes, &bad);
  EncodeDeltaLengthByteArray(suffixes, &bad);
  size_t pos = 0;
  ByteArrays decoded;
  EXPECT_EQ(DecodeDeltaByteArrays(Encoding::kDeltaByteArray, Bytes(bad), &pos, 2, &decoded, "t").kind(),
            StatusKind::kCorruption);
}

TEST(StatisticsOrderTest, FollowsTheSortOrderOfEachType) {
  Field i32 = Field::Int32("a", Repetition::kOptional, 1);
  EXPECT_LT(
      CompareStatistics(i32, StatisticsBytes(i32, Value::Int32(-1)), StatisticsBytes(i32, Value::Int32(1))),
      0);
  Field u32 =
      Field::Primitive("u", PhysicalType::kInt32, Repetition::kOptional, 2, LogicalType::Integer(32, false));
  EXPECT_GT(
      CompareStatistics(u32, StatisticsBytes(u32, Value::Int32(-1)), StatisticsBytes(u32, Value::Int32(1))),
      0);
  Field f = Field::Double("d", Repetition::kOptional, 3);
  EXPECT_LT(
      CompareStatistics(f, StatisticsBytes(f, Value::Double(-2.5)), StatisticsBytes(f, Value::Double(1e-9))),
      0);
  Field s = Field::String("s", Repetition::kOptional, 4);
  // Unsigned bytewise: "\xc3\xa9" (é) sorts after "z"; a prefix sorts first.
  EXPECT_GT(CompareStatistics(s, "\xc3\xa9", "z"), 0);
  EXPECT_LT(CompareStatistics(s, "ab", "abc"), 0);
  Field dec = Field::Primitive("m", PhysicalType::kFixedLenByteArray, Repetition::kOptional, 5,
                               LogicalType::Decimal(9, 2), 4);
  EXPECT_LT(CompareStatistics(dec, std::string("\xff\xff\xff\xfe", 4), std::string("\x00\x00\x00\x01", 4)),
            0);
}

}  // namespace
}  // namespace cqlite::parquet
