#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "avro/binary.h"
#include "avro/container.h"
#include "avro/datum.h"
#include "avro/schema.h"
#include "io/file_system.h"
#include "util/strings.h"

namespace cqlite::avro {
namespace {

std::string Encoded(const Schema& schema, const Datum& datum) {
  std::string out;
  Status status = EncodeDatum(schema, datum, &out);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return out;
}

Result<Datum> Decoded(const Schema& schema, const std::string& bytes) {
  BinaryDecoder decoder(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
                        "test.avro");
  ASSIGN_OR_RETURN(Datum datum, decoder.Read(schema));
  if (!decoder.at_end()) return decoder.Error("trailing bytes");
  return datum;
}

void ExpectRoundTrip(const Schema& schema, const Datum& datum) {
  std::string bytes = Encoded(schema, datum);
  Result<Datum> back = Decoded(schema, bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(*back == datum) << DatumToJson(schema, datum).dump();
}

std::string Hex(const std::string& bytes) { return ToHex(bytes); }

TEST(AvroBinaryTest, LongEncodingFollowsTheSpecExamples) {
  // Spec "Binary Encoding", the zig-zag table.
  auto enc = [](int64_t v) {
    std::string out;
    EncodeLong(v, &out);
    return Hex(out);
  };
  EXPECT_EQ(enc(0), "00");
  EXPECT_EQ(enc(-1), "01");
  EXPECT_EQ(enc(1), "02");
  EXPECT_EQ(enc(-2), "03");
  EXPECT_EQ(enc(2), "04");
  EXPECT_EQ(enc(-64), "7f");
  EXPECT_EQ(enc(64), "8001");
  EXPECT_EQ(enc(std::numeric_limits<int64_t>::max()), "feffffffffffffffff01");
  EXPECT_EQ(enc(std::numeric_limits<int64_t>::min()), "ffffffffffffffffff01");
  EXPECT_EQ(Hex(Encoded(Schema::String(), Datum::String("foo"))), "06666f6f");
  EXPECT_EQ(Hex(Encoded(Schema::Int(), Datum::Int(std::numeric_limits<int32_t>::min()))), "ffffffff0f");
}

TEST(AvroBinaryTest, PrimitivesRoundTrip) {
  for (int64_t v : {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{63}, int64_t{-64}, int64_t{1} << 40,
                    std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()}) {
    ExpectRoundTrip(Schema::Long(), Datum::Long(v));
  }
  for (int32_t v : {0, 1, -1, 1 << 20, std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min()}) {
    ExpectRoundTrip(Schema::Int(), Datum::Int(v));
  }
  ExpectRoundTrip(Schema::Null(), Datum::Null());
  ExpectRoundTrip(Schema::Boolean(), Datum::Boolean(true));
  ExpectRoundTrip(Schema::Boolean(), Datum::Boolean(false));
  for (float v : {0.0f, -0.0f, 1.5f, std::numeric_limits<float>::infinity(), std::nanf("")}) {
    ExpectRoundTrip(Schema::Float(), Datum::Float(v));
  }
  for (double v : {0.0, -2.25, 1e300, -std::numeric_limits<double>::infinity(), std::nan("")}) {
    ExpectRoundTrip(Schema::Double(), Datum::Double(v));
  }
  EXPECT_EQ(Hex(Encoded(Schema::Double(), Datum::Double(1.0))), "000000000000f03f");
  ExpectRoundTrip(Schema::Bytes(), Datum::Bytes(std::string("\x00\xff\x01", 3)));
  ExpectRoundTrip(Schema::Bytes(), Datum::Bytes(""));
  ExpectRoundTrip(Schema::String(), Datum::String("h\xc3\xa9llo"));
  ExpectRoundTrip(Schema::String(), Datum::String(std::string(300, 'x')));
  ExpectRoundTrip(Schema::Fixed("f3", 3), Datum::Fixed("abc"));
  ExpectRoundTrip(Schema::Fixed("f0", 0), Datum::Fixed(""));
  ExpectRoundTrip(Schema::Enum("color", {"RED", "GREEN"}), Datum::Enum(1));
}

Schema NestedSchema() {
  Schema point = Schema::Record("point", {Field("x", Schema::Double()), Field("y", Schema::Double())});
  return Schema::Record(
      "nested",
      {Field::WithId("id", Schema::Long(), 1), Field::WithId("name", Schema::String(), 2, /*optional=*/true),
       Field::WithId("tags", Schema::Array(Schema::String()).WithAttr("element-id", 4), 3),
       Field::WithId("attrs", Schema::Map(Schema::Optional(Schema::Int())).WithAttr("key-id", 6).WithAttr("value-id", 7),
                     5),
       Field::WithId("points", Schema::Array(point), 8),
       Field::WithId("choice", Schema::Union({Schema::Null(), Schema::Long(), Schema::String()}), 9),
       Field::WithId("empty", Schema::Record("empty_record", {}), 10),
       Field::WithId("matrix", Schema::Array(Schema::Array(Schema::Int())), 11)});
}

TEST(AvroBinaryTest, NestedTypesRoundTrip) {
  Schema schema = NestedSchema();
  ASSERT_TRUE(schema.Validate().ok());
  auto point = [](double x, double y) { return Datum::Record({Datum::Double(x), Datum::Double(y)}); };
  Datum full = Datum::Record({
      Datum::Long(7),
      Datum::Union(1, Datum::String("seven")),
      Datum::Array({Datum::String("a"), Datum::String(""), Datum::String("c")}),
      Datum::Map({{"k1", Datum::Union(1, Datum::Int(1))}, {"k2", Datum::Union(0, Datum::Null())}}),
      Datum::Array({point(1, 2), point(-3, 4.5)}),
      Datum::Union(2, Datum::String("str")),
      Datum::Record({}),
      Datum::Array({Datum::Array({Datum::Int(1), Datum::Int(2)}), Datum::Array({})}),
  });
  ExpectRoundTrip(schema, full);
  Datum empty = Datum::Record({
      Datum::Long(-1),
      Datum::Union(0, Datum::Null()),
      Datum::Array({}),
      Datum::Map({}),
      Datum::Array({}),
      Datum::Union(0, Datum::Null()),
      Datum::Record({}),
      Datum::Array({}),
  });
  ExpectRoundTrip(schema, empty);
  // An empty array is just the terminating zero count.
  EXPECT_EQ(Hex(Encoded(Schema::Array(Schema::Int()), Datum::Array({}))), "00");
  EXPECT_EQ(Hex(Encoded(Schema::Array(Schema::Int()), Datum::Array({Datum::Int(1), Datum::Int(-1)}))), "04020100");
}

TEST(AvroBinaryTest, ReadsBlocksWithByteSizes) {
  // Writers may give a negative count followed by the block's byte size.
  std::string bytes;
  EncodeLong(-2, &bytes);
  EncodeLong(2, &bytes);
  EncodeLong(5, &bytes);
  EncodeLong(6, &bytes);
  EncodeLong(1, &bytes);
  EncodeLong(7, &bytes);
  EncodeLong(0, &bytes);
  Result<Datum> back = Decoded(Schema::Array(Schema::Long()), bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(*back == Datum::Array({Datum::Long(5), Datum::Long(6), Datum::Long(7)}));
}

TEST(AvroBinaryTest, EncoderRejectsMismatchedDatums) {
  std::string out;
  EXPECT_EQ(EncodeDatum(Schema::Long(), Datum::Int(1), &out).kind(), StatusKind::kInvalidArgument);
  EXPECT_EQ(EncodeDatum(Schema::Fixed("f", 2), Datum::Fixed("abc"), &out).kind(), StatusKind::kInvalidArgument);
  EXPECT_EQ(EncodeDatum(Schema::Enum("e", {"A"}), Datum::Enum(1), &out).kind(), StatusKind::kInvalidArgument);
  EXPECT_EQ(EncodeDatum(Schema::Optional(Schema::Int()), Datum::Union(2, Datum::Int(1)), &out).kind(),
            StatusKind::kInvalidArgument);
  EXPECT_EQ(EncodeDatum(Schema::Optional(Schema::Int()), Datum::Union(1, Datum::Long(1)), &out).kind(),
            StatusKind::kInvalidArgument);
  Schema record = Schema::Record("r", {Field("a", Schema::Int())});
  Status status = EncodeDatum(record, Datum::Record({}), &out);
  EXPECT_EQ(status.kind(), StatusKind::kInvalidArgument);
  status = EncodeDatum(record, Datum::Record({Datum::String("x")}), &out);
  EXPECT_NE(status.message().find("field r.a"), std::string::npos) << status.ToString();
}

TEST(AvroBinaryTest, BadBytesAreCorruptionWithTheOffset) {
  auto expect_corrupt = [](const Schema& schema, const std::string& bytes, const std::string& needle) {
    Result<Datum> result = Decoded(schema, bytes);
    ASSERT_FALSE(result.ok()) << Hex(bytes);
    EXPECT_EQ(result.status().kind(), StatusKind::kCorruption);
    EXPECT_NE(result.status().message().find("test.avro: byte offset "), std::string::npos)
        << result.status().ToString();
    EXPECT_NE(result.status().message().find(needle), std::string::npos) << result.status().ToString();
  };
  expect_corrupt(Schema::Long(), "", "varint runs past");
  expect_corrupt(Schema::Long(), "\x80\x80", "varint runs past");
  expect_corrupt(Schema::Long(), std::string(10, '\xff') + "\x01", "longer than 64 bits");
  expect_corrupt(Schema::Int(), "\x80\x80\x80\x80\x10", "out of the 32-bit range");
  expect_corrupt(Schema::Boolean(), "\x02", "neither 0 nor 1");
  expect_corrupt(Schema::Float(), "abc", "float runs past");
  expect_corrupt(Schema::Double(), "abcdefg", "double runs past");
  expect_corrupt(Schema::String(), "\x01", "negative length");
  expect_corrupt(Schema::String(), "\x06" "ab", "runs past the end");
  expect_corrupt(Schema::Bytes(), "\xfe\xff\xff\xff\xff\xff\xff\xff\xff\x01", "runs past the end");
  expect_corrupt(Schema::Fixed("f", 4), "abc", "4 bytes needed");
  expect_corrupt(Schema::Enum("e", {"A", "B"}), "\x04", "enum index 2");
  expect_corrupt(Schema::Optional(Schema::Int()), "\x04\x02", "union branch 2");
  expect_corrupt(Schema::Optional(Schema::Int()), "\x01\x02", "union branch -1");
  // A count far beyond the bytes left is refused before anything is allocated.
  expect_corrupt(Schema::Array(Schema::Long()), "\xfe\xff\xff\xff\xff\xff\xff\xff\x7f", "block count");
  expect_corrupt(Schema::Array(Schema::Null()), "\xfe\xff\xff\xff\xff\xff\xff\xff\x7f", "implausible");
  expect_corrupt(Schema::Map(Schema::Int()), "\x02\x02" "a", "varint runs past");
  expect_corrupt(Schema::Array(Schema::Long()), "\x03\x40\x02", "block size 32");
  // The offset is where the bad value starts.
  Result<Datum> result = Decoded(Schema::Record("r", {Field("a", Schema::Int()), Field("b", Schema::String())}),
                                 std::string("\x02\x09", 2));
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("byte offset 1:"), std::string::npos) << result.status().ToString();
}

TEST(AvroSchemaTest, JsonRoundTripKeepsAttributes) {
  Schema schema = NestedSchema();
  schema.name_space = "org.example";
  std::string json = ToJson(schema);
  EXPECT_NE(json.find(R"({"name":"id","type":"long","field-id":1})"), std::string::npos) << json;
  EXPECT_NE(json.find(R"({"name":"name","type":["null","string"],"default":null,"field-id":2})"), std::string::npos)
      << json;
  EXPECT_NE(json.find(R"({"type":"array","items":"string","element-id":4})"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("key-id":6,"value-id":7)"), std::string::npos) << json;
  Result<Schema> parsed = ParseSchema(json, "test.avro");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(ToJson(*parsed), json);
  EXPECT_EQ(parsed->name_space, "org.example");
  EXPECT_EQ(parsed->fields[1].field_id(), 2);
  EXPECT_EQ(parsed->fields[2].schema.attributes["element-id"], 4);
  // Built without a namespace, so rendered with "namespace":"" under org.example.
  EXPECT_EQ(parsed->fields[4].schema.items().FullName(), "point");
}

TEST(AvroSchemaTest, ParsesNamedReferencesLogicalTypesAndPrimitiveObjects) {
  const char* json = R"({"type":"record","name":"a.b.top","fields":[
      {"name":"p","type":{"type":"fixed","name":"md5","size":16}},
      {"name":"q","type":"md5"},
      {"name":"r","type":["null","a.b.md5"],"default":null},
      {"name":"d","type":{"type":"int","logicalType":"date"}},
      {"name":"e","type":{"type":"enum","name":"suit","symbols":["S","H"]}},
      {"name":"m","type":{"type":"array","items":{"type":"record","name":"k1_v2","fields":[
          {"name":"key","type":"int","field-id":1},{"name":"value","type":"long","field-id":2}]},
          "logicalType":"map"}}]})";
  Result<Schema> parsed = ParseSchema(json, "test.avro");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const Schema& s = *parsed;
  EXPECT_EQ(s.FullName(), "a.b.top");
  EXPECT_EQ(s.fields[1].schema.type, Type::kFixed);
  EXPECT_EQ(s.fields[1].schema.fixed_size, 16);
  EXPECT_EQ(s.fields[2].schema.children[1].type, Type::kFixed);
  EXPECT_EQ(s.fields[3].schema.type, Type::kInt);
  EXPECT_EQ(s.fields[3].schema.logical_type(), "date");
  EXPECT_EQ(s.fields[4].schema.symbols.size(), 2u);
  EXPECT_EQ(s.fields[5].schema.logical_type(), "map");
  // The second use of a named type is written as its name.
  std::string rendered = ToJson(s);
  EXPECT_NE(rendered.find(R"({"name":"q","type":"a.b.md5"})"), std::string::npos) << rendered;
  Result<Schema> again = ParseSchema(rendered, "again");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(ToJson(*again), rendered);
}

TEST(AvroSchemaTest, BadSchemasAreErrors) {
  auto kind = [](const char* json) { return ParseSchema(json, "x.avro").status().kind(); };
  EXPECT_EQ(kind("{"), StatusKind::kCorruption);
  EXPECT_EQ(kind("\"nosuchtype\""), StatusKind::kCorruption);
  EXPECT_EQ(kind("42"), StatusKind::kCorruption);
  EXPECT_EQ(kind(R"({"type":"record","name":"r"})"), StatusKind::kCorruption);
  EXPECT_EQ(kind(R"({"type":"record","name":"r","fields":[{"name":"a","type":"int"},{"name":"a","type":"int"}]})"),
            StatusKind::kCorruption);
  EXPECT_EQ(kind(R"({"type":"fixed","name":"f","size":-1})"), StatusKind::kCorruption);
  EXPECT_EQ(kind(R"(["int","int"])"), StatusKind::kCorruption);
  EXPECT_EQ(kind(R"(["int",["long"]])"), StatusKind::kCorruption);
  EXPECT_EQ(kind(R"({"type":"array"})"), StatusKind::kCorruption);
  EXPECT_EQ(kind(R"({"type":"enum","name":"e","symbols":[1]})"), StatusKind::kCorruption);
  EXPECT_EQ(kind(R"({"type":"record","name":"node","fields":[{"name":"next","type":["null","node"]}]})"),
            StatusKind::kNotSupported);
  std::string deep;
  for (int i = 0; i < 1000; ++i) deep += R"({"type":"array","items":)";
  deep += "\"int\"";
  for (int i = 0; i < 1000; ++i) deep += "}";
  EXPECT_EQ(kind(deep.c_str()), StatusKind::kCorruption);
  Status status = ParseSchema(R"({"type":"array"})", "x.avro").status();
  EXPECT_NE(status.message().find("x.avro: Avro schema: array without"), std::string::npos) << status.ToString();
}

// ----------------------------------------------------------------- container files

Schema SmallSchema() {
  return Schema::Record("row", {Field::WithId("id", Schema::Long(), 1),
                                Field::WithId("name", Schema::String(), 2, /*optional=*/true),
                                Field::WithId("values", Schema::Array(Schema::Double()), 3)});
}

Datum SmallRow(int64_t i) {
  std::vector<Datum> values;
  for (int64_t j = 0; j < i % 4; ++j) values.push_back(Datum::Double(static_cast<double>(i * j)));
  return Datum::Record({Datum::Long(i * 1000 - 7),
                        i % 3 == 0 ? Datum::Union(0, Datum::Null()) : Datum::Union(1, Datum::String(StrCat("row", i))),
                        Datum::Array(std::move(values))});
}

std::string WriteSmallFile(MemoryFileSystem& fs, const std::string& path, ContainerCodec codec, int rows,
                           size_t block_size = 64 * 1024) {
  ContainerWriterOptions options;
  options.codec = codec;
  options.block_size = block_size;
  options.metadata = {{"format-version", "2"}, {"empty", ""}};
  SyncMarker marker;
  for (size_t i = 0; i < marker.size(); ++i) marker[i] = static_cast<uint8_t>(0xa0 + i);
  options.sync_marker = marker;
  auto writer = ContainerWriter::Open(fs, path, SmallSchema(), options);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  for (int i = 0; i < rows; ++i) EXPECT_TRUE((*writer)->Append(SmallRow(i)).ok());
  Result<uint64_t> length = (*writer)->Close();
  EXPECT_TRUE(length.ok());
  Result<std::string> bytes = fs.ReadFileToString(path);
  EXPECT_TRUE(bytes.ok());
  EXPECT_EQ(*length, bytes->size());
  return *bytes;
}

class ContainerTest : public ::testing::TestWithParam<ContainerCodec> {};

TEST_P(ContainerTest, WriteThenReadBack) {
  for (size_t block_size : {size_t{1}, size_t{100}, size_t{64 * 1024}}) {
    MemoryFileSystem fs;
    std::string bytes = WriteSmallFile(fs, "t/small.avro", GetParam(), 50, block_size);
    EXPECT_EQ(bytes.substr(0, 4), std::string("Obj\x01", 4));
    auto reader = ContainerReader::Open(fs, "t/small.avro");
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_EQ(ToJson((*reader)->schema()), ToJson(SmallSchema()));
    EXPECT_EQ((*reader)->Metadata("avro.codec"), ContainerCodecName(GetParam()));
    EXPECT_EQ((*reader)->Metadata("format-version"), "2");
    EXPECT_EQ((*reader)->Metadata("empty"), "");
    EXPECT_EQ((*reader)->Metadata("missing"), std::nullopt);
    auto records = (*reader)->ReadAll();
    ASSERT_TRUE(records.ok()) << records.status().ToString();
    ASSERT_EQ(records->size(), 50u);
    for (int i = 0; i < 50; ++i) EXPECT_TRUE((*records)[i] == SmallRow(i)) << i;
    const Datum* name = FindField((*reader)->schema(), (*records)[1], "name");
    ASSERT_NE(name, nullptr);
    EXPECT_EQ(name->Unwrapped().bytes(), "row1");
    EXPECT_EQ(FindField((*reader)->schema(), (*records)[1], "nope"), nullptr);
  }
}

TEST_P(ContainerTest, EmptyFileHasHeaderOnly) {
  MemoryFileSystem fs;
  WriteSmallFile(fs, "empty.avro", GetParam(), 0);
  auto reader = ContainerReader::Open(fs, "empty.avro");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto records = (*reader)->ReadAll();
  ASSERT_TRUE(records.ok());
  EXPECT_TRUE(records->empty());
}

// Every prefix of a file either fails with Corruption or, cut exactly at a
// block boundary, reads the records before the cut; never a crash.
TEST_P(ContainerTest, EveryTruncationIsAnError) {
  MemoryFileSystem fs;
  std::string bytes = WriteSmallFile(fs, "small.avro", GetParam(), 6);
  std::string marker = bytes.substr(bytes.size() - kSyncMarkerSize);
  size_t header_end = bytes.find(marker) + kSyncMarkerSize;
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    auto reader = ContainerReader::FromBytes(bytes.substr(0, cut), "cut.avro");
    Status status = reader.ok() ? (*reader)->ReadAll().status() : reader.status();
    if (cut == header_end) {
      EXPECT_TRUE(status.ok()) << status.ToString();
      continue;
    }
    ASSERT_FALSE(status.ok()) << "cut at " << cut;
    EXPECT_EQ(status.kind(), StatusKind::kCorruption) << status.ToString();
    EXPECT_NE(status.message().find("cut.avro"), std::string::npos) << status.ToString();
    EXPECT_NE(status.message().find("byte offset"), std::string::npos) << status.ToString();
  }
}

// Flipping any byte gives an error or different records, never a crash.
TEST_P(ContainerTest, EveryCorruptByteIsHandled) {
  MemoryFileSystem fs;
  std::string bytes = WriteSmallFile(fs, "small.avro", GetParam(), 6);
  int errors = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (uint8_t mask : {0x01, 0x80, 0xff}) {
      std::string corrupt = bytes;
      corrupt[i] = static_cast<char>(corrupt[i] ^ mask);
      auto reader = ContainerReader::FromBytes(corrupt, "bad.avro");
      Status status = reader.ok() ? (*reader)->ReadAll().status() : reader.status();
      if (!status.ok()) {
        ++errors;
        EXPECT_NE(status.message().find("bad.avro"), std::string::npos) << status.ToString();
      }
    }
  }
  EXPECT_GT(errors, 0);
}

// Without a fixed marker, the writer's marker carries the file's CRC-32: a
// flip of any bit anywhere is an error naming the file, never other records.
TEST_P(ContainerTest, EveryFlippedBitOfAFileWeWroteIsAnError) {
  MemoryFileSystem fs;
  ContainerWriterOptions options;
  options.codec = GetParam();
  options.block_size = 40;  // several blocks, so several markers
  options.metadata = {{"format-version", "2"}};
  auto writer = ContainerWriter::Open(fs, "f.avro", SmallSchema(), options);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  for (int i = 0; i < 8; ++i) ASSERT_TRUE((*writer)->Append(SmallRow(i)).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  const std::string bytes = *fs.ReadFileToString("f.avro");
  auto good = ContainerReader::FromBytes(bytes, "f.avro");
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  auto records = (*good)->ReadAll();
  ASSERT_TRUE(records.ok());
  ASSERT_EQ(records->size(), 8u);
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string corrupt = bytes;
      corrupt[i] = static_cast<char>(corrupt[i] ^ (1 << bit));
      auto reader = ContainerReader::FromBytes(corrupt, "bad.avro");
      Status status = reader.ok() ? (*reader)->ReadAll().status() : reader.status();
      ASSERT_FALSE(status.ok()) << "bit " << bit << " of byte " << i << " of " << bytes.size();
      EXPECT_NE(status.message().find("bad.avro"), std::string::npos) << status.ToString();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Codecs, ContainerTest, ::testing::Values(ContainerCodec::kNull, ContainerCodec::kDeflate),
                         [](const auto& info) { return std::string(ContainerCodecName(info.param)); });

TEST(ContainerFileTest, HeaderErrors) {
  MemoryFileSystem fs;
  std::string bytes = WriteSmallFile(fs, "small.avro", ContainerCodec::kNull, 3);
  auto bad_magic = ContainerReader::FromBytes("Obj\x02" + bytes.substr(4), "m.avro");
  ASSERT_FALSE(bad_magic.ok());
  EXPECT_NE(bad_magic.status().message().find("m.avro: byte offset 0: Avro container file does not start"),
            std::string::npos)
      << bad_magic.status().ToString();

  // A header with an unknown codec.
  std::string header("Obj\x01", 4);
  EncodeLong(2, &header);
  EncodeBytes("avro.schema", &header);
  EncodeBytes("\"long\"", &header);
  EncodeBytes("avro.codec", &header);
  EncodeBytes("lzma", &header);
  EncodeLong(0, &header);
  header += std::string(16, 'S');
  EXPECT_EQ(ContainerReader::FromBytes(header, "c.avro").status().kind(), StatusKind::kNotSupported);

  // No schema at all.
  std::string no_schema("Obj\x01", 4);
  EncodeLong(0, &no_schema);
  no_schema += std::string(16, 'S');
  EXPECT_EQ(ContainerReader::FromBytes(no_schema, "n.avro").status().kind(), StatusKind::kCorruption);

  // A block whose sync marker differs from the header's.
  std::string wrong_sync = bytes;
  wrong_sync[wrong_sync.size() - 1] ^= 1;
  auto reader = ContainerReader::FromBytes(wrong_sync, "s.avro");
  ASSERT_TRUE(reader.ok());
  Status status = (*reader)->ReadAll().status();
  EXPECT_NE(status.message().find("sync marker does not match"), std::string::npos) << status.ToString();
}

TEST(ContainerFileTest, BlockCountsAreBoundedByTheBlockSize) {
  // One block claims 2^40 empty records in zero bytes.
  Schema empty = Schema::Record("e", {});
  std::string file("Obj\x01", 4);
  EncodeLong(1, &file);
  EncodeBytes("avro.schema", &file);
  EncodeBytes(ToJson(empty), &file);
  EncodeLong(0, &file);
  std::string sync(16, 'S');
  file += sync;
  EncodeLong(int64_t{1} << 40, &file);
  EncodeLong(0, &file);
  file += sync;
  auto reader = ContainerReader::FromBytes(file, "e.avro");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->ReadAll().status().kind(), StatusKind::kCorruption);
}

TEST(ContainerFileTest, WriterRejectsReservedKeysAndBadRecords) {
  MemoryFileSystem fs;
  ContainerWriterOptions options;
  options.metadata = {{"avro.mine", "x"}};
  EXPECT_EQ(ContainerWriter::Open(fs, "r.avro", SmallSchema(), options).status().kind(), StatusKind::kInvalidArgument);
  auto writer = ContainerWriter::Open(fs, "r.avro", SmallSchema());
  ASSERT_TRUE(writer.ok());
  Status status = (*writer)->Append(Datum::Long(1));
  EXPECT_EQ(status.kind(), StatusKind::kInvalidArgument);
  EXPECT_NE(status.message().find("r.avro"), std::string::npos);
  EXPECT_TRUE((*writer)->Close().ok());
  EXPECT_FALSE((*writer)->Close().ok());
}

TEST(RawDeflateTest, RoundTripAndBadInput) {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += StrCat("line ", i % 17, "\n");
  std::string compressed = RawDeflate(text);
  EXPECT_LT(compressed.size(), text.size());
  Result<std::string> back = RawInflate(compressed, 1 << 20, "ctx");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, text);
  EXPECT_EQ(RawInflate(compressed, 100, "ctx").status().kind(), StatusKind::kCorruption);
  EXPECT_EQ(RawInflate(compressed.substr(0, compressed.size() / 2), 1 << 20, "ctx").status().kind(),
            StatusKind::kCorruption);
  EXPECT_EQ(RawInflate("", 1 << 20, "ctx").status().kind(), StatusKind::kCorruption);
  // Trailing bytes after the stream's end (a partial zlib trailer some
  // writers leave) are ignored.
  Result<std::string> trailing = RawInflate(compressed + "xyz", 1 << 20, "ctx");
  ASSERT_TRUE(trailing.ok()) << trailing.status().ToString();
  EXPECT_EQ(*trailing, text);
  Result<std::string> empty = RawInflate(RawDeflate(""), 1 << 20, "ctx");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(*empty, "");
}

}  // namespace
}  // namespace cqlite::avro
