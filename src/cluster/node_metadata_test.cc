#include "cluster/node_metadata.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "test_paths.h"

namespace cqlite {
namespace {

// The whole data directory of a single Cassandra 3.0.29 node run from the
// Docker cassandra:3.0 image with its defaults (the fixtures' PROVENANCE.md):
// SimpleSnitch, num_tokens 256, cluster name "Test Cluster", and the system
// keyspaces Cassandra creates.
const std::string kNode =
    std::string(CQLITE_SHARED_DIR) + "/cassandra-fixtures/pcass-cassandra-3.0.29/cassandra3_data_want";
constexpr int64_t kNow = 1800000000;

#define SKIP_WITHOUT_FIXTURE()                                                            \
  if (!std::filesystem::exists(kNode)) {                                                  \
    GTEST_SKIP() << "fixture not found at " << kNode << " (CQLITE_SHARED_DIR)";           \
  }

TEST(NodeMetadataTest, ReadsARealNodesSystemTables) {
  SKIP_WITHOUT_FIXTURE();
  auto node = ReadNodeMetadata(LocalFileSystem(), kNode, kNow);
  ASSERT_TRUE(node.ok()) << node.status().ToString();
  EXPECT_EQ(node->cluster_name, "Test Cluster");
  EXPECT_EQ(node->partitioner, "org.apache.cassandra.dht.Murmur3Partitioner");
  EXPECT_EQ(node->release_version, "3.0.29");
  EXPECT_TRUE(std::regex_match(node->self.host_id, std::regex("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")))
      << node->self.host_id;
  EXPECT_EQ(node->self.data_center, "datacenter1");  // SimpleSnitch
  EXPECT_EQ(node->self.rack, "rack1");
  EXPECT_FALSE(node->self.address.empty());
  EXPECT_EQ(node->self.tokens.size(), 256u);  // num_tokens
  EXPECT_TRUE(std::is_sorted(node->self.tokens.begin(), node->self.tokens.end()));
  EXPECT_TRUE(node->peers.empty());  // a single node

  // Cassandra creates system_distributed with RF 3, system_traces with RF 2.
  auto distributed = node->KeyspaceReplication("system_distributed");
  ASSERT_TRUE(distributed.ok()) << distributed.status().ToString();
  EXPECT_EQ(distributed->strategy, Replication::Strategy::kSimple);
  EXPECT_EQ(distributed->replication_factor, 3);
  auto traces = node->KeyspaceReplication("system_traces");
  ASSERT_TRUE(traces.ok());
  EXPECT_EQ(traces->replication_factor, 2);
  auto system = node->KeyspaceReplication("system");
  ASSERT_TRUE(system.ok());
  EXPECT_EQ(system->strategy, Replication::Strategy::kLocal);
  auto missing = node->KeyspaceReplication("no_such_keyspace");
  EXPECT_EQ(missing.status().kind(), StatusKind::kNotFound);
  EXPECT_NE(missing.status().message().find(kNode), std::string::npos);

  auto ring = RingFromNodes({*node});
  ASSERT_TRUE(ring.ok()) << ring.status().ToString();
  EXPECT_EQ(ring->nodes().size(), 1u);
  EXPECT_EQ(ring->PrimaryRanges(0, *system).size(), 257u);  // 256 ranges, the wrapping one in two pieces
}

TEST(NodeMetadataTest, ADirectoryWithoutSystemLocalIsNotANode) {
  std::string dir = testing::TempDir() + "/not-a-node";
  std::filesystem::create_directories(dir + "/ks/t-0123");
  auto node = ReadNodeMetadata(LocalFileSystem(), dir, kNow);
  ASSERT_FALSE(node.ok());
  EXPECT_EQ(node.status().kind(), StatusKind::kNotFound);
  EXPECT_NE(node.status().message().find(dir), std::string::npos);
}

NodeMetadata Node(std::string dir, std::string host, std::vector<int64_t> tokens, std::string cluster = "c1") {
  NodeMetadata node;
  node.data_dir = std::move(dir);
  node.cluster_name = std::move(cluster);
  node.partitioner = "org.apache.cassandra.dht.Murmur3Partitioner";
  node.self = RingNode{host, host + "-address", "dc1", "rack1", std::move(tokens)};
  return node;
}

TEST(NodeMetadataTest, RingFromNodesRefusesMixedClustersAndRepeatedNodes) {
  auto mixed = RingFromNodes({Node("/a", "h1", {1}), Node("/b", "h2", {2}, "c2")});
  ASSERT_FALSE(mixed.ok());
  EXPECT_NE(mixed.status().message().find("/b is of cluster 'c2'"), std::string::npos) << mixed.status().ToString();

  auto twice = RingFromNodes({Node("/a", "h1", {1}), Node("/copy-of-a", "h1", {1})});
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("same node"), std::string::npos) << twice.status().ToString();

  NodeMetadata other_partitioner = Node("/b", "h2", {2});
  other_partitioner.partitioner = "org.apache.cassandra.dht.RandomPartitioner";
  EXPECT_FALSE(RingFromNodes({Node("/a", "h1", {1}), other_partitioner}).ok());
}

TEST(NodeMetadataTest, RingFromNodesAddsNodesKnownOnlyAsPeers) {
  NodeMetadata a = Node("/a", "h1", {-100, 100});
  a.peers.push_back(RingNode{"h2", "h2-address", "dc1", "rack1", {0}});
  auto ring = RingFromNodes({a});
  ASSERT_TRUE(ring.ok()) << ring.status().ToString();
  ASSERT_EQ(ring->nodes().size(), 2u);
  EXPECT_GE(ring->FindNode("h2"), 0);
  auto simple = Replication::FromOptions({{"class", "SimpleStrategy"}, {"replication_factor", "2"}});
  ASSERT_TRUE(simple.ok()) << simple.status().ToString();
  EXPECT_EQ(ring->PrimaryRanges(ring->FindNode("h2"), *simple).size(), 1u);  // (-100, 0]
}

}  // namespace
}  // namespace cqlite
