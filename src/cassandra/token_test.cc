// Expected tokens: the Murmur3 tokens of int keys 1..5 are the values
// Cassandra prints for token(k) (and they sort 5,1,2,4,3 as the scylladb-3.x
// fixture README states); "hello" matches the reference MurmurHash3_x64_128
// (no sign-extended tail byte); MD5 vectors are RFC 1321's; keys with tail
// bytes >= 0x80 were worked out from MurmurHash.java by a separate
// transcription into arbitrary-precision arithmetic.
#include "cassandra/token.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "util/strings.h"
#include "test_paths.h"

namespace cqlite {
namespace {

std::string IntKey(int32_t v) {
  std::string k(4, '\0');
  for (int i = 0; i < 4; ++i) k[i] = static_cast<char>(static_cast<uint32_t>(v) >> (24 - 8 * i));
  return k;
}

TEST(TokenTest, Murmur3IntKeys) {
  EXPECT_EQ(Murmur3Token(IntKey(1)), -4069959284402364209);
  EXPECT_EQ(Murmur3Token(IntKey(2)), -3248873570005575792);
  EXPECT_EQ(Murmur3Token(IntKey(3)), 9010454139840013625);
  EXPECT_EQ(Murmur3Token(IntKey(4)), -2729420104000364805);
  EXPECT_EQ(Murmur3Token(IntKey(5)), -7509452495886106294);
  EXPECT_EQ(TokenString(Partitioner::kMurmur3, IntKey(1)), "-4069959284402364209");
}

TEST(TokenTest, Murmur3Text) {
  EXPECT_EQ(Murmur3Token("hello"), -3758069500696749310);
  // Sign-extended tail bytes (Cassandra's variant).
  EXPECT_EQ(Murmur3Token("\xff"), -4442228696663692417);
  std::string seventeen;
  for (int b = 0x80; b <= 0x90; ++b) seventeen.push_back(static_cast<char>(b));
  EXPECT_EQ(Murmur3Token(seventeen), -3616694464407856223);
  EXPECT_EQ(Murmur3Token(""), std::numeric_limits<int64_t>::min());
}

TEST(TokenTest, Md5Vectors) {
  auto hex = [](std::string_view s) {
    auto d = Md5(s);
    return ToHex(std::span<const uint8_t>(d.data(), d.size()));
  };
  EXPECT_EQ(hex(""), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(hex("a"), "0cc175b9c0f1b6a831c399e269772661");
  EXPECT_EQ(hex("abc"), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(hex("message digest"), "f96b697d7cb7938d525a2f31aaf161d0");
  EXPECT_EQ(hex("abcdefghijklmnopqrstuvwxyz"), "c3fcd3d76192e4007dfb496cca67e13b");
  EXPECT_EQ(hex("12345678901234567890123456789012345678901234567890123456789012345678901234567890"),
            "57edf4a22be3c955ac49da2e2107b67a");
}

TEST(TokenTest, RandomPartitioner) {
  // md5("abc") starts 0x90: negative, so the token is 2^128 - digest.
  EXPECT_EQ(TokenString(Partitioner::kRandom, "abc"), "148866708576779697295343134153845407886");
  EXPECT_EQ(TokenString(Partitioner::kRandom, "key1"), "81509516161424251288255223397843705139");
  EXPECT_EQ(TokenString(Partitioner::kRandom, ""), "-1");
}

TEST(TokenTest, PartitionOrder) {
  std::vector<std::string> keys;
  for (int i = 1; i <= 5; ++i) keys.push_back(IntKey(i));
  std::sort(keys.begin(), keys.end(), PartitionKeyLess{Partitioner::kMurmur3});
  std::vector<std::string> want = {IntKey(5), IntKey(1), IntKey(2), IntKey(4), IntKey(3)};
  EXPECT_EQ(keys, want);
  EXPECT_EQ(ComparePartitionKeys(Partitioner::kMurmur3, IntKey(1), IntKey(1)), std::strong_ordering::equal);
  EXPECT_EQ(ComparePartitionKeys(Partitioner::kMurmur3, "", IntKey(5)), std::strong_ordering::less);
  // Random: "key1" (8.15e37) before "abc" (1.49e38); the empty key first.
  EXPECT_EQ(ComparePartitionKeys(Partitioner::kRandom, "key1", "abc"), std::strong_ordering::less);
  EXPECT_EQ(ComparePartitionKeys(Partitioner::kRandom, "", "abc"), std::strong_ordering::less);
  EXPECT_EQ(ComparePartitionKeys(Partitioner::kRandom, "abc", "abc"), std::strong_ordering::equal);
  // ByteOrdered: unsigned bytes, a prefix first.
  EXPECT_EQ(ComparePartitionKeys(Partitioner::kByteOrdered, "ab", "abc"), std::strong_ordering::less);
  EXPECT_EQ(ComparePartitionKeys(Partitioner::kByteOrdered, "\x7f", "\x80"), std::strong_ordering::less);
  EXPECT_EQ(ComparePartitionKeys(Partitioner::kByteOrdered, "b", "abc"), std::strong_ordering::greater);
  EXPECT_EQ(TokenString(Partitioner::kByteOrdered, "\x01\xab"), "01ab");
}

TEST(TokenTest, PartitionerClassNames) {
  for (Partitioner p : {Partitioner::kMurmur3, Partitioner::kRandom, Partitioner::kByteOrdered}) {
    EXPECT_EQ(PartitionerFromClassName(PartitionerClassName(p)), p);
  }
  EXPECT_EQ(PartitionerFromClassName("org.apache.cassandra.dht.OrderPreservingPartitioner"), std::nullopt);
  EXPECT_EQ(PartitionerFromClassName(""), std::nullopt);
}

// Tokens computed by Cassandra 5.0.6 itself (testdata/cassandra_tokens.tsv).
TEST(TokenTest, MatchesCassandraTokens) {
  std::ifstream in(std::string(CQLITE_SOURCE_DIR) + "/src/cassandra/testdata/cassandra_tokens.tsv");
  ASSERT_TRUE(in) << "missing testdata/cassandra_tokens.tsv";
  std::string line;
  int rows = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto fields = Split(line, '\t');
    ASSERT_EQ(fields.size(), 3u) << line;
    std::string key;
    for (size_t i = 0; i + 1 < fields[1].size(); i += 2) {
      key.push_back(static_cast<char>(std::stoi(fields[1].substr(i, 2), nullptr, 16)));
    }
    Partitioner partitioner = fields[0] == "murmur" ? Partitioner::kMurmur3 : Partitioner::kRandom;
    EXPECT_EQ(TokenString(partitioner, key), fields[2]) << line;
    ++rows;
  }
  EXPECT_EQ(rows, 400);
}

}  // namespace
}  // namespace cqlite

namespace cqlite {
namespace {

TEST(TokenTest, SplitMurmur3RingCoversTheRingInOrder) {
  for (int count : {0, 1, 2, 3, 7, 64}) {
    SCOPED_TRACE(count);
    std::vector<Murmur3Range> ranges = SplitMurmur3Ring(count);
    ASSERT_EQ(ranges.size(), static_cast<size_t>(count < 1 ? 1 : count));
    EXPECT_EQ(ranges.front().first, INT64_MIN);
    EXPECT_EQ(ranges.back().last, INT64_MAX);
    for (size_t i = 0; i < ranges.size(); ++i) {
      EXPECT_LE(ranges[i].first, ranges[i].last);
      if (i > 0) {
        EXPECT_EQ(ranges[i].first, ranges[i - 1].last + 1);
      }
    }
  }
  std::vector<Murmur3Range> halves = SplitMurmur3Ring(2);
  EXPECT_EQ(halves[0].last, -1);
  EXPECT_EQ(halves[1].first, 0);
  EXPECT_TRUE(halves[0].Contains(Murmur3Token("")));  // the empty key: the minimum token
  EXPECT_FALSE(halves[1].Contains(INT64_MIN));
  EXPECT_EQ(halves[0].Locate(""), Murmur3Range::Place::kInside);
  EXPECT_EQ(halves[1].Locate(""), Murmur3Range::Place::kBefore);
  const Murmur3Range lowest{INT64_MIN, INT64_MIN};
  EXPECT_EQ(lowest.Locate("a"), Murmur3Range::Place::kAfter);
}

TEST(Murmur3RangeSetTest, MergesSortsAndLocatesLikeItsRanges) {
  Murmur3RangeSet set({{100, 200}, {-50, 10}, {201, 300}, {150, 160}, {500, 400}, {INT64_MIN, -1000}});
  // 100..200 and 201..300 are adjacent; 150..160 lies inside; 500..400 is empty.
  EXPECT_EQ(set.ToString(), StrCat(INT64_MIN, ":-1000,-50:10,100:300"));
  EXPECT_FALSE(set.whole_ring());
  EXPECT_TRUE(Murmur3RangeSet::WholeRing().whole_ring());
  EXPECT_TRUE(Murmur3RangeSet().empty());
  EXPECT_TRUE(Murmur3RangeSet({{0, INT64_MAX}, {INT64_MIN, -1}}).whole_ring());
  // Locate agrees with a scan of the ranges, key by key.
  for (int i = 0; i < 2000; ++i) {
    std::string key = StrCat("key-", i);
    int64_t token = Murmur3Token(key);
    Murmur3Range::Place want = Murmur3Range::Place::kAfter;
    for (const Murmur3Range& r : set.ranges()) {
      if (r.Contains(token)) {
        want = Murmur3Range::Place::kInside;
        break;
      }
      if (token < r.first) {
        want = Murmur3Range::Place::kBefore;
        break;
      }
    }
    ASSERT_EQ(set.Locate(key), want) << key << " token " << token;
  }
  EXPECT_TRUE(set.Intersects(300, 350));
  EXPECT_FALSE(set.Intersects(301, 350));
  EXPECT_FALSE(set.Intersects(11, 99));
  EXPECT_TRUE(set.Intersects(-2000, -1000));
  EXPECT_EQ(set.Intersect({0, 150}).ToString(), "0:10,100:150");
  EXPECT_TRUE(set.Intersects(Murmur3RangeSet({{5, 6}})));
  EXPECT_FALSE(set.Intersects(Murmur3RangeSet({{11, 99}, {301, 302}})));
}

TEST(Murmur3RangeSetTest, ParsesWhatItPrints) {
  Murmur3RangeSet set({{-9000, -8000}, {42, 42}, {7, 9}});
  auto parsed = Murmur3RangeSet::Parse(set.ToString());
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, set);
  for (const char* bad : {"", "1", "1:x", "5:4", "1:2,", "9223372036854775808:1"}) {
    auto refused = Murmur3RangeSet::Parse(bad);
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_EQ(refused.status().kind(), StatusKind::kInvalidArgument);
    EXPECT_NE(refused.status().message().find(StrCat("'", bad, "'")), std::string::npos) << refused.status().ToString();
  }
}

}  // namespace
}  // namespace cqlite
