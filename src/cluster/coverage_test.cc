#include "cluster/coverage.h"

#include <gtest/gtest.h>

namespace cqlite {
namespace {

TokenRing ThreeNodes() {
  auto ring = TokenRing::Make({RingNode{"a", "10.0.0.1", "dc1", "r1", {-100}}, RingNode{"b", "10.0.0.2", "dc1", "r1", {0}},
                               RingNode{"c", "10.0.0.3", "dc1", "r1", {100}}});
  EXPECT_TRUE(ring.ok()) << ring.status().ToString();
  return std::move(*ring);
}

Replication Simple(int rf) {
  Replication r;
  r.replication_factor = rf;
  return r;
}

TEST(CoverageTest, EveryReplicaReadIsCovered) {
  TokenRing ring = ThreeNodes();
  EXPECT_TRUE(RangesLackingReplicas(ring, Simple(3), {"a", "b", "c"}).empty());
  EXPECT_TRUE(CheckReplicaCoverage(ring, Simple(3), {"a", "b", "c"}, "ks.t", false).ok());
}

TEST(CoverageTest, ANodeLeftOutIsNamedForEachRangeItReplicates) {
  TokenRing ring = ThreeNodes();
  // RF 2: c holds (-100, 0] (b's range, c next clockwise), (0, 100] (its own)
  // and, as primary of nothing else, not the wrapping range (a, then b).
  auto lacking = RangesLackingReplicas(ring, Simple(2), {"a", "b"});
  ASSERT_EQ(lacking.size(), 2u);
  EXPECT_EQ(lacking[0].range.first, -99);
  EXPECT_EQ(lacking[0].range.last, 0);
  EXPECT_EQ(lacking[1].range.first, 1);
  EXPECT_EQ(lacking[1].range.last, 100);
  for (const auto& range : lacking) {
    ASSERT_EQ(range.missing.size(), 1u);
    EXPECT_EQ(ring.nodes()[range.missing[0]].host_id, "c");
    EXPECT_EQ(range.present.size(), 1u);
  }
  Status status = CheckReplicaCoverage(ring, Simple(2), {"a", "b"}, "ks.t", false);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("ks.t: 2 of 4 token ranges lack replicas"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("tokens [-99, 0] lack 10.0.0.3 (read: 10.0.0.2)"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("--allow-missing-replicas"), std::string::npos);
  // Every range still has a replica read.
  EXPECT_TRUE(CheckReplicaCoverage(ring, Simple(2), {"a", "b"}, "ks.t", true).ok());
}

TEST(CoverageTest, ARangeWithNoReplicaReadFailsEvenWhenMissingReplicasAreAllowed) {
  TokenRing ring = ThreeNodes();
  Status status = CheckReplicaCoverage(ring, Simple(1), {"a", "b"}, "ks.t", true);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("no replica among the data directories given: tokens [1, 100] lack 10.0.0.3 "
                                  "(read: none)"),
            std::string::npos)
      << status.message();
}

}  // namespace
}  // namespace cqlite
