#include "iceberg/puffin.h"

#include <gtest/gtest.h>

#include "io/fault_injection_file_system.h"

namespace cqlite::iceberg {
namespace {

const std::string kPath = "/t/metadata/stats.puffin";

std::string Le32(uint32_t v) {
  std::string out;
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return out;
}

// A Puffin file laid out by hand from the spec: magic, blobs, then
// magic + payload + payload size + flags + magic.
std::string HandMadeFile(const std::string& blobs, const std::string& payload,
                         std::string flags = std::string(4, '\0')) {
  return "PFA1" + blobs + "PFA1" + payload + Le32(static_cast<uint32_t>(payload.size())) + flags + "PFA1";
}

Status OpenError(const std::string& contents) {
  MemoryFileSystem fs;
  fs.AddFile(kPath, contents);
  auto reader = PuffinReader::Open(fs, kPath);
  return reader.ok() ? Status::OK() : reader.status();
}

TEST(PuffinTest, EmptyFileIsTheSpecLayout) {
  MemoryFileSystem fs;
  auto writer = PuffinWriter::Open(fs, kPath);
  ASSERT_TRUE(writer.ok());
  auto size = (*writer)->Finish({});
  ASSERT_TRUE(size.ok()) << size.status().ToString();
  const std::string expected = HandMadeFile("", R"({"blobs":[]})");
  EXPECT_EQ(*fs.ReadFileToString(kPath), expected);
  EXPECT_EQ(*size, static_cast<int64_t>(expected.size()));
}

TEST(PuffinTest, BlobsAndPropertiesRoundTrip) {
  MemoryFileSystem fs;
  auto writer = PuffinWriter::Open(fs, kPath);
  ASSERT_TRUE(writer.ok());
  PuffinBlob first{"apache-datasketches-theta-v1", {1, 2}, 7, 3, {{"ndv", "12"}}, "sketch bytes"};
  PuffinBlob second{"deletion-vector-v1", {}, -1, -1, {{"cardinality", "0"}}, ""};
  auto m1 = (*writer)->Add(first);
  auto m2 = (*writer)->Add(second);
  ASSERT_TRUE(m1.ok() && m2.ok());
  EXPECT_EQ(m1->offset, 4);
  EXPECT_EQ(m1->length, 12);
  EXPECT_EQ(m2->offset, 16);
  EXPECT_EQ(m2->length, 0);
  ASSERT_TRUE((*writer)->Finish({{"created-by", "cqlite test"}}).ok());

  auto reader = PuffinReader::Open(fs, kPath);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  ASSERT_EQ((*reader)->blobs().size(), 2u);
  EXPECT_EQ((*reader)->blobs()[0], *m1);
  EXPECT_EQ((*reader)->blobs()[1], *m2);
  EXPECT_EQ((*reader)->blobs()[0].fields, (std::vector<int32_t>{1, 2}));
  EXPECT_EQ((*reader)->properties().at("created-by"), "cqlite test");
  EXPECT_EQ(*(*reader)->ReadBlob((*reader)->blobs()[0]), "sketch bytes");
  EXPECT_EQ(*(*reader)->ReadBlob((*reader)->blobs()[1]), "");
}

TEST(PuffinTest, ReadsAHandMadeFile) {
  const std::string payload =
      R"({"blobs":[{"type":"some-type","fields":[5],"snapshot-id":1,"sequence-number":2,"offset":4,"length":3,)"
      R"("properties":{"k":"v"}}],"properties":{"created-by":"hand"}})";
  MemoryFileSystem fs;
  fs.AddFile(kPath, HandMadeFile("abc", payload));
  auto reader = PuffinReader::Open(fs, kPath);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  ASSERT_EQ((*reader)->blobs().size(), 1u);
  EXPECT_EQ((*reader)->blobs()[0].fields, std::vector<int32_t>{5});
  EXPECT_EQ((*reader)->blobs()[0].snapshot_id, 1);
  EXPECT_EQ((*reader)->blobs()[0].sequence_number, 2);
  EXPECT_EQ((*reader)->blobs()[0].properties.at("k"), "v");
  EXPECT_EQ(*(*reader)->ReadBlob((*reader)->blobs()[0]), "abc");
}

TEST(PuffinTest, CompressedFooterOrBlobIsNotSupportedNamingTheFile) {
  Status st = OpenError(HandMadeFile("", R"({"blobs":[]})", std::string("\x01\0\0\0", 4)));
  EXPECT_EQ(st.kind(), StatusKind::kNotSupported);
  EXPECT_NE(st.message().find(kPath), std::string::npos) << st.message();

  MemoryFileSystem fs;
  fs.AddFile(kPath,
             HandMadeFile("abc", R"({"blobs":[{"type":"t","fields":[],"snapshot-id":-1,"sequence-number":-1,)"
                                 R"("offset":4,"length":3,"compression-codec":"zstd"}]})"));
  auto reader = PuffinReader::Open(fs, kPath);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto blob = (*reader)->ReadBlob((*reader)->blobs()[0]);
  ASSERT_FALSE(blob.ok());
  EXPECT_EQ(blob.status().kind(), StatusKind::kNotSupported);
  EXPECT_NE(blob.status().message().find(kPath + " at byte 4"), std::string::npos) << blob.status().message();
  EXPECT_NE(blob.status().message().find("zstd"), std::string::npos);
}

TEST(PuffinTest, BadFilesAreCorruptionNamingFileAndOffset) {
  const std::string good_payload = R"({"blobs":[]})";
  const std::string good = HandMadeFile("", good_payload);
  struct Case {
    std::string name;
    std::string contents;
    std::string at;  // "<path> at byte N" expected in the message
  };
  std::string bad_size = good;
  bad_size[good.size() - 12] = 100;
  const std::vector<Case> cases = {
      {"too short", "PFA1PFA1", ""},
      {"leading magic", "XFA1" + good.substr(4), kPath + " at byte 0"},
      {"trailing magic", good.substr(0, good.size() - 1) + "X",
       kPath + " at byte " + std::to_string(good.size() - 4)},
      {"payload size", bad_size, kPath + " at byte " + std::to_string(good.size() - 12)},
      {"footer magic",
       "PFA1"
       "XFA1" +
           good.substr(8),
       kPath + " at byte 4"},
      {"not json", HandMadeFile("", "{\"blobs\":[}"), kPath + " at byte 8"},
      {"no blobs", HandMadeFile("", "{}"), kPath + " at byte 8"},
      {"blob past footer",
       HandMadeFile(
           "ab",
           R"({"blobs":[{"type":"t","fields":[],"snapshot-id":-1,"sequence-number":-1,"offset":4,"length":3}]})"),
       kPath + " at byte 10"},
      {"negative offset",
       HandMadeFile(
           "",
           R"({"blobs":[{"type":"t","fields":[],"snapshot-id":-1,"sequence-number":-1,"offset":-4,"length":0}]})"),
       kPath + " at byte 8"},
      {"missing length",
       HandMadeFile(
           "", R"({"blobs":[{"type":"t","fields":[],"snapshot-id":-1,"sequence-number":-1,"offset":4}]})"),
       kPath + " at byte 8"},
      {"string snapshot id",
       HandMadeFile(
           "",
           R"({"blobs":[{"type":"t","fields":[],"snapshot-id":"1","sequence-number":-1,"offset":4,"length":0}]})"),
       kPath + " at byte 8"},
  };
  for (const Case& c : cases) {
    Status st = OpenError(c.contents);
    EXPECT_EQ(st.kind(), StatusKind::kCorruption) << c.name << ": " << st.ToString();
    EXPECT_NE(st.message().find(kPath), std::string::npos) << c.name << ": " << st.message();
    if (!c.at.empty()) {
      EXPECT_NE(st.message().find(c.at), std::string::npos) << c.name << ": " << st.message();
    }
  }
  for (size_t cut = 0; cut < good.size(); ++cut) EXPECT_FALSE(OpenError(good.substr(0, cut)).ok()) << cut;
}

TEST(PuffinTest, EveryWriteFaultIsReportedNamingTheFile) {
  auto write = [](FileSystem& fs) -> Status {
    ASSIGN_OR_RETURN(auto writer, PuffinWriter::Open(fs, kPath));
    ASSIGN_OR_RETURN(auto blob, writer->Add(PuffinBlob{"t", {}, -1, -1, {}, "data"}));
    (void)blob;
    return writer->Finish({}).status();
  };
  MemoryFileSystem base;
  FaultInjectionFileSystem counting(base);
  ASSERT_TRUE(write(counting).ok());
  const int64_t operations = counting.operation_count();
  ASSERT_GE(operations, 4);  // open, magic, blob, footer, sync
  for (int64_t n = 0; n < operations; ++n) {
    MemoryFileSystem fresh;
    FaultInjectionFileSystem faulty(fresh);
    faulty.FailOperation(n);
    Status st = write(faulty);
    EXPECT_EQ(st.kind(), StatusKind::kIOError) << n;
    if (n > 0) {
      EXPECT_NE(st.message().find(kPath), std::string::npos) << n << ": " << st.message();
    }
  }
}

}  // namespace
}  // namespace cqlite::iceberg
