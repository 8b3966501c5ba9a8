// The token ring of a Cassandra cluster and the replicas of every token range
// under a keyspace's replication strategy, by Cassandra's placement rules:
//
//  - A node owns the ranges (previous token, its token] of its tokens; that
//    node is the range's primary replica.
//  - SimpleStrategy: the next distinct nodes clockwise from the range's end,
//    until replication_factor nodes are found (or the ring runs out).
//  - NetworkTopologyStrategy: the same walk, per data centre, taking nodes of
//    racks not yet used first; a node of a rack already used is taken only
//    when the data centre has fewer racks than its replication factor (and
//    then only as many as that shortfall). A data centre with fewer nodes than
//    its factor gives every node it has.
//  - LocalStrategy (the system keyspace): every node holds its own data only.
//
// Murmur3Partitioner tokens only. Pure values, thread-compatible.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cassandra/token.h"
#include "util/status.h"

namespace cqlite {

// One node of the ring, as its system.local (or a peer's system.peers_v2)
// describes it.
struct RingNode {
  std::string host_id;  // the node's UUID, its identity
  std::string address;  // broadcast address, for messages
  std::string data_center;
  std::string rack;
  std::vector<int64_t> tokens;

  std::string Name() const { return address.empty() ? host_id : address; }
};

// A keyspace's replication, as system_schema.keyspaces records it.
struct Replication {
  enum class Strategy { kSimple, kNetworkTopology, kLocal };
  Strategy strategy = Strategy::kSimple;
  int replication_factor = 1;                 // SimpleStrategy
  std::map<std::string, int> data_centers;    // NetworkTopologyStrategy: factor per data centre

  // From the replication map ({'class': ..., 'replication_factor': '3'} or
  // {'class': ...NetworkTopologyStrategy, 'dc1': '3', ...}). Class names may
  // be short or qualified. InvalidArgument for a malformed map; NotSupported
  // for transient replicas ('3/1') and strategies Cassandra does not ship.
  static Result<Replication> FromOptions(const std::map<std::string, std::string>& options);

  // As CQL writes it: {'class': 'SimpleStrategy', 'replication_factor': '3'}.
  std::string ToString() const;
};

// A range of tokens and the nodes that hold it, primary first (indexes into
// TokenRing::nodes()).
struct ReplicatedRange {
  Murmur3Range range;
  std::vector<int> replicas;
};

class TokenRing {
 public:
  // InvalidArgument when a token belongs to two nodes, a node has no tokens,
  // or two nodes share a host id.
  static Result<TokenRing> Make(std::vector<RingNode> nodes);

  const std::vector<RingNode>& nodes() const { return nodes_; }
  // Index of the node with `host_id`, or -1.
  int FindNode(const std::string& host_id) const;

  // The ring's ranges in token order, together covering every token from
  // INT64_MIN to INT64_MAX (the range that wraps past the largest token is
  // given as its two pieces), each with its replicas under `replication`.
  // Adjacent ranges with the same replicas are not merged. LocalStrategy
  // gives every node for every range (each holds its own data).
  std::vector<ReplicatedRange> Replicas(const Replication& replication) const;

  // The ranges whose primary replica under `replication` is node `node`:
  // the first of Replicas' replicas, as Cassandra's primary ranges of an
  // endpoint are. Under SimpleStrategy those are the ranges the node owns;
  // under NetworkTopologyStrategy a range owned by a node of a data centre
  // without replicas of the keyspace falls to the next node that has them,
  // and such a node is primary for nothing. Under LocalStrategy (each node
  // its own data) the ranges it owns.
  std::vector<Murmur3Range> PrimaryRanges(int node, const Replication& replication) const;

 private:
  struct Owned {
    int64_t token;
    int node;
  };
  // The nodes holding the range that ends at sorted token `at`.
  std::vector<int> ReplicasAt(size_t at, const Replication& replication) const;
  // Calls `emit(range, i)` for the inclusive pieces of the range that ends at
  // sorted token i.
  template <typename Emit>
  void ForEachRange(Emit emit) const;

  std::vector<RingNode> nodes_;
  std::vector<Owned> sorted_;  // every token, ascending
};

}  // namespace cqlite
