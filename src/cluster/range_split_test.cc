#include "cluster/range_split.h"

#include <gtest/gtest.h>

namespace cqlite {
namespace {

// The ranges cover every Murmur3 token once, in order.
void ExpectCoversTheRing(const std::vector<Murmur3Range>& ranges) {
  ASSERT_FALSE(ranges.empty());
  EXPECT_EQ(ranges.front().first, kFirstMurmur3Token);
  EXPECT_EQ(ranges.back().last, INT64_MAX);
  for (size_t i = 0; i < ranges.size(); ++i) {
    EXPECT_LE(ranges[i].first, ranges[i].last);
    if (i > 0) EXPECT_EQ(ranges[i].first, ranges[i - 1].last + 1);
  }
}

TEST(SplitRingByBytesTest, SplitsSpansOverTheWholeRingEvenly) {
  std::vector<TokenSpan> spans = {{kFirstMurmur3Token, INT64_MAX, 1000}, {kFirstMurmur3Token, INT64_MAX, 3000}};
  auto ranges = SplitRingByBytes(spans, 1000, 0);
  ASSERT_EQ(ranges.size(), 4u);
  ExpectCoversTheRing(ranges);
  // Quarter points of the ring: about -2^62, 0, 2^62.
  EXPECT_NEAR(static_cast<double>(ranges[0].last), -4.611686018427388e18, 1e6);
  EXPECT_NEAR(static_cast<double>(ranges[1].last), 0, 1e6);
  EXPECT_NEAR(static_cast<double>(ranges[2].last), 4.611686018427388e18, 1e6);
}

TEST(SplitRingByBytesTest, CutsWhereTheBytesAre) {
  // 900 bytes in [0, 999], 100 spread over the ring: two ranges cut inside [0, 999].
  std::vector<TokenSpan> spans = {{0, 999, 900}, {kFirstMurmur3Token, INT64_MAX, 100}};
  auto ranges = SplitRingByBytes(spans, 0, 2);
  ASSERT_EQ(ranges.size(), 2u);
  ExpectCoversTheRing(ranges);
  EXPECT_GE(ranges[0].last, 0);
  EXPECT_LE(ranges[0].last, 999);
}

TEST(SplitRingByBytesTest, NoBytesOrOneRangeGiveEqualWidthsOrTheRing) {
  ExpectCoversTheRing(SplitRingByBytes({}, 1 << 20, 0));
  EXPECT_EQ(SplitRingByBytes({}, 1 << 20, 0).size(), 1u);
  auto even = SplitRingByBytes({}, 0, 4);
  ASSERT_EQ(even.size(), 4u);
  ExpectCoversTheRing(even);
  EXPECT_LE(SplitRingByBytes({{5, 5, 100}}, 1, 0).size(), 2u);  // every byte on one token: one cut at most
}

}  // namespace
}  // namespace cqlite
