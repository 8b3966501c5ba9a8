#include "cluster/ring.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace cqlite {
namespace {

RingNode Node(std::string name, std::vector<int64_t> tokens, std::string dc = "dc1", std::string rack = "rack1") {
  return RingNode{name + "-id", name, std::move(dc), std::move(rack), std::move(tokens)};
}

Replication Simple(int rf) {
  Replication r;
  r.strategy = Replication::Strategy::kSimple;
  r.replication_factor = rf;
  return r;
}

Replication Nts(std::map<std::string, int> dcs) {
  Replication r;
  r.strategy = Replication::Strategy::kNetworkTopology;
  r.data_centers = std::move(dcs);
  return r;
}

// The replicas of every range by node name, in the form "first..last:A,B".
std::vector<std::string> Describe(const TokenRing& ring, const Replication& replication) {
  std::vector<std::string> out;
  for (const ReplicatedRange& r : ring.Replicas(replication)) {
    std::string names;
    for (int node : r.replicas) names += (names.empty() ? "" : ",") + ring.nodes()[node].address;
    auto bound = [](int64_t t) {
      return t == INT64_MIN ? std::string("min") : t == INT64_MAX ? std::string("max") : std::to_string(t);
    };
    out.push_back(bound(r.range.first) + ".." + bound(r.range.last) + ":" + names);
  }
  return out;
}

TEST(TokenRingTest, SimpleStrategyWalksClockwiseFromTheRangesEnd) {
  auto ring = TokenRing::Make({Node("A", {0}), Node("B", {100}), Node("C", {200})});
  ASSERT_TRUE(ring.ok()) << ring.status().ToString();
  EXPECT_EQ(Describe(*ring, Simple(2)),
            (std::vector<std::string>{"min..0:A,B", "1..100:B,C", "101..200:C,A", "201..max:A,B"}));
  EXPECT_EQ(Describe(*ring, Simple(5)),
            (std::vector<std::string>{"min..0:A,B,C", "1..100:B,C,A", "101..200:C,A,B", "201..max:A,B,C"}));
}

TEST(TokenRingTest, VnodesOfOneNodeCountOnce) {
  auto ring = TokenRing::Make({Node("A", {0, 200}), Node("B", {100})});
  ASSERT_TRUE(ring.ok());
  EXPECT_EQ(Describe(*ring, Simple(2)),
            (std::vector<std::string>{"min..0:A,B", "1..100:B,A", "101..200:A,B", "201..max:A,B"}));
}

TEST(TokenRingTest, NetworkTopologyFillsEachDataCentre) {
  auto ring = TokenRing::Make(
      {Node("A", {0}, "dc1"), Node("C", {100}, "dc2"), Node("B", {200}, "dc1"), Node("D", {300}, "dc2")});
  ASSERT_TRUE(ring.ok());
  // dc1 has one rack for two replicas, so its second replica repeats the rack.
  EXPECT_EQ(Describe(*ring, Nts({{"dc1", 2}, {"dc2", 1}})),
            (std::vector<std::string>{"min..0:A,C,B", "1..100:C,B,A", "101..200:B,D,A", "201..300:D,A,B",
                                      "301..max:A,C,B"}));
  // A data centre the ring lacks, or a factor of 0, places nothing.
  EXPECT_EQ(Describe(*ring, Nts({{"dc2", 1}, {"dc3", 2}})),
            (std::vector<std::string>{"min..0:C", "1..100:C", "101..200:D", "201..300:D", "301..max:C"}));
}

TEST(TokenRingTest, NetworkTopologyPrefersRacksNotYetUsed) {
  auto ring = TokenRing::Make({Node("A", {0}, "dc1", "r1"), Node("B", {100}, "dc1", "r1"),
                               Node("C", {200}, "dc1", "r2")});
  ASSERT_TRUE(ring.ok());
  // Two racks for two replicas: B is passed over for A's range, as C has the unused rack.
  EXPECT_EQ(Describe(*ring, Nts({{"dc1", 2}})),
            (std::vector<std::string>{"min..0:A,C", "1..100:B,C", "101..200:C,A", "201..max:A,C"}));
  // Three replicas, two racks: one repeat is allowed, taken by the first node met.
  EXPECT_EQ(Describe(*ring, Nts({{"dc1", 3}})),
            (std::vector<std::string>{"min..0:A,B,C", "1..100:B,C,A", "101..200:C,A,B", "201..max:A,B,C"}));
}

TEST(TokenRingTest, DataCentreWithFewerNodesThanItsFactorGivesAllItHas) {
  auto ring = TokenRing::Make({Node("A", {0}, "dc1", "r1"), Node("B", {100}, "dc1", "r2")});
  ASSERT_TRUE(ring.ok());
  EXPECT_EQ(Describe(*ring, Nts({{"dc1", 3}})),
            (std::vector<std::string>{"min..0:A,B", "1..100:B,A", "101..max:A,B"}));
}

TEST(TokenRingTest, RingEndsAtTheLargestToken) {
  auto ring = TokenRing::Make({Node("A", {INT64_MIN}), Node("B", {INT64_MAX})});
  ASSERT_TRUE(ring.ok());
  EXPECT_EQ(Describe(*ring, Simple(1)),
            (std::vector<std::string>{"min..min:A", "-9223372036854775807..max:B"}));
}

TEST(TokenRingTest, PrimaryRangesIncludeBothPiecesOfTheWrappingRange) {
  auto ring = TokenRing::Make({Node("A", {0}), Node("B", {100}), Node("C", {200})});
  ASSERT_TRUE(ring.ok());
  auto a = ring->PrimaryRanges(ring->FindNode("A-id"), Simple(2));
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].first, INT64_MIN);
  EXPECT_EQ(a[0].last, 0);
  EXPECT_EQ(a[1].first, 201);
  EXPECT_EQ(a[1].last, INT64_MAX);
  auto b = ring->PrimaryRanges(ring->FindNode("B-id"), Simple(2));
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].first, 1);
  EXPECT_EQ(b[0].last, 100);
  EXPECT_EQ(ring->FindNode("nobody"), -1);
}

TEST(TokenRingTest, PrimaryRangesFollowTheKeyspacesReplicas) {
  auto ring = TokenRing::Make(
      {Node("A", {0}, "dc1"), Node("C", {100}, "dc2"), Node("B", {200}, "dc1"), Node("D", {300}, "dc2")});
  ASSERT_TRUE(ring.ok());
  auto primary = [&](const char* node, const Replication& replication) {
    std::vector<std::string> out;
    for (const Murmur3Range& r : ring->PrimaryRanges(ring->FindNode(std::string(node) + "-id"), replication)) {
      out.push_back((r.first == INT64_MIN ? std::string("min") : std::to_string(r.first)) + ".." +
                    (r.last == INT64_MAX ? std::string("max") : std::to_string(r.last)));
    }
    return out;
  };
  // Every data centre holds replicas: each node is primary for what it owns.
  Replication both = Nts({{"dc1", 1}, {"dc2", 1}});
  EXPECT_EQ(primary("A", both), (std::vector<std::string>{"min..0", "301..max"}));
  EXPECT_EQ(primary("C", both), (std::vector<std::string>{"1..100"}));
  // dc2 holds none (left out, or a factor of 0): the ranges its nodes own
  // fall to the next dc1 node clockwise, and every token has one primary.
  for (const Replication& dc1_only : {Nts({{"dc1", 2}}), Nts({{"dc1", 2}, {"dc2", 0}})}) {
    EXPECT_EQ(primary("A", dc1_only), (std::vector<std::string>{"min..0", "201..300", "301..max"}));
    EXPECT_EQ(primary("B", dc1_only), (std::vector<std::string>{"1..100", "101..200"}));
    EXPECT_TRUE(primary("C", dc1_only).empty());
    EXPECT_TRUE(primary("D", dc1_only).empty());
  }
  // SimpleStrategy ignores data centres.
  EXPECT_EQ(primary("D", Simple(2)), (std::vector<std::string>{"201..300"}));
}

TEST(TokenRingTest, RefusesRingsThatCannotBe) {
  auto shared = TokenRing::Make({Node("A", {5}), Node("B", {5})});
  ASSERT_FALSE(shared.ok());
  EXPECT_EQ(shared.status().message(), "token 5 belongs to both A and B");
  auto empty = TokenRing::Make({Node("A", {})});
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(), "node A has no tokens");
  auto twice = TokenRing::Make({Node("A", {1}), RingNode{"A-id", "A2", "dc1", "rack1", {2}}});
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.status().message(), "two nodes have host id A-id");
}

// Random rings: the ranges tile the ring, and each data centre holds
// min(factor, its nodes) distinct replicas of every range.
TEST(TokenRingTest, RandomRingsTileTheRingAndPlaceEveryReplica) {
  std::mt19937_64 random(7);
  for (int round = 0; round < 200; ++round) {
    int node_count = 1 + static_cast<int>(random() % 7);
    std::vector<RingNode> nodes;
    std::set<int64_t> used;
    for (int i = 0; i < node_count; ++i) {
      RingNode node = Node(std::string(1, static_cast<char>('A' + i)), {}, "dc" + std::to_string(random() % 2),
                           "r" + std::to_string(random() % 3));
      int tokens = 1 + static_cast<int>(random() % 4);
      while (static_cast<int>(node.tokens.size()) < tokens) {
        auto t = static_cast<int64_t>(random());
        if (used.insert(t).second) node.tokens.push_back(t);
      }
      nodes.push_back(node);
    }
    auto ring = TokenRing::Make(nodes);
    ASSERT_TRUE(ring.ok());
    std::map<std::string, int> dcs = {{"dc0", 1 + static_cast<int>(random() % 3)},
                                      {"dc1", 1 + static_cast<int>(random() % 3)}};
    for (const Replication& replication : {Simple(1 + static_cast<int>(random() % 4)), Nts(dcs)}) {
      auto ranges = ring->Replicas(replication);
      ASSERT_FALSE(ranges.empty());
      EXPECT_EQ(ranges.front().range.first, INT64_MIN);
      EXPECT_EQ(ranges.back().range.last, INT64_MAX);
      for (size_t i = 0; i < ranges.size(); ++i) {
        const ReplicatedRange& r = ranges[i];
        EXPECT_LE(r.range.first, r.range.last);
        if (i > 0) {
          EXPECT_EQ(r.range.first, ranges[i - 1].range.last + 1);
        }
        std::set<int> distinct(r.replicas.begin(), r.replicas.end());
        EXPECT_EQ(distinct.size(), r.replicas.size());
        if (replication.strategy == Replication::Strategy::kSimple) {
          EXPECT_EQ(static_cast<int>(r.replicas.size()), std::min(replication.replication_factor, node_count));
        } else {
          for (const auto& [dc, factor] : dcs) {
            int in_dc = 0, placed = 0;
            for (const RingNode& node : nodes) in_dc += node.data_center == dc;
            for (int node : r.replicas) placed += nodes[node].data_center == dc;
            EXPECT_EQ(placed, std::min(factor, in_dc));
          }
        }
      }
    }
  }
}

TEST(ReplicationTest, ReadsTheReplicationMapCassandraStores) {
  auto simple = Replication::FromOptions(
      {{"class", "org.apache.cassandra.locator.SimpleStrategy"}, {"replication_factor", "3"}});
  ASSERT_TRUE(simple.ok()) << simple.status().ToString();
  EXPECT_EQ(simple->strategy, Replication::Strategy::kSimple);
  EXPECT_EQ(simple->replication_factor, 3);
  EXPECT_EQ(simple->ToString(), "{'class': 'SimpleStrategy', 'replication_factor': '3'}");

  auto nts = Replication::FromOptions({{"class", "NetworkTopologyStrategy"}, {"dc1", "3"}, {"dc2", "2"}});
  ASSERT_TRUE(nts.ok());
  EXPECT_EQ(nts->strategy, Replication::Strategy::kNetworkTopology);
  EXPECT_EQ(nts->data_centers, (std::map<std::string, int>{{"dc1", 3}, {"dc2", 2}}));
  EXPECT_EQ(nts->ToString(), "{'class': 'NetworkTopologyStrategy', 'dc1': '3', 'dc2': '2'}");

  auto local = Replication::FromOptions({{"class", "org.apache.cassandra.locator.LocalStrategy"}});
  ASSERT_TRUE(local.ok());
  EXPECT_EQ(local->strategy, Replication::Strategy::kLocal);
}

TEST(ReplicationTest, RefusesMapsItCannotPlace) {
  auto status = [](std::map<std::string, std::string> options) {
    auto r = Replication::FromOptions(options);
    return r.ok() ? std::string("ok") : r.status().ToString();
  };
  EXPECT_EQ(status({{"replication_factor", "3"}}), "Invalid argument: replication has no 'class'");
  EXPECT_EQ(status({{"class", "SimpleStrategy"}}),
            "Invalid argument: SimpleStrategy replication has no 'replication_factor'");
  EXPECT_EQ(status({{"class", "SimpleStrategy"}, {"replication_factor", "three"}}),
            "Invalid argument: replication replication_factor 'three' is not a replica count");
  EXPECT_EQ(status({{"class", "NetworkTopologyStrategy"}, {"dc1", "3/1"}}),
            "Not supported: replication dc1 '3/1' has transient replicas, which CQLite does not read");
  EXPECT_EQ(status({{"class", "NetworkTopologyStrategy"}, {"replication_factor", "3"}}),
            "Invalid argument: NetworkTopologyStrategy replication names 'replication_factor' instead of data "
            "centres");
  EXPECT_EQ(status({{"class", "com.example.OwnStrategy"}}),
            "Not supported: replication class 'com.example.OwnStrategy' is not one Cassandra ships");
}

}  // namespace
}  // namespace cqlite
