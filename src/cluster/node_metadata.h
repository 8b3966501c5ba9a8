// What a Cassandra node's own data directory says about the node and its
// cluster, read with CQLite's SSTable reader and fold from the system tables
// the node keeps there:
//
//  - system.local: the node's host id, tokens, data centre, rack, address,
//    cluster name and partitioner;
//  - system.peers_v2 (4.0 and later) or system.peers (3.x): the other nodes
//    as this node last knew them;
//  - system_schema.keyspaces: each keyspace's replication.
//
// The data directory may be a live one, a copy, or one put back from
// snapshots (each table directory's snapshots/<tag>/ is used when the table
// directory itself holds no SSTables).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cluster/ring.h"
#include "io/file_system.h"
#include "util/status.h"

namespace cqlite {

struct NodeMetadata {
  std::string data_dir;
  std::string cluster_name;
  std::string partitioner;  // as system.local names it, e.g. org.apache.cassandra.dht.Murmur3Partitioner
  std::string release_version;
  RingNode self;
  std::vector<RingNode> peers;  // in host id order
  std::map<std::string, Replication> keyspaces;  // by keyspace name

  // The replication of `keyspace`. NotFound naming the data directory when
  // the node does not know the keyspace.
  Result<Replication> KeyspaceReplication(const std::string& keyspace) const;
};

// Reads the system tables under `data_dir` (the directory holding system/,
// system_schema/ and the keyspaces' directories), folded at `now_seconds`.
// NotFound when there is no system.local; InvalidArgument naming the file
// when system.local lacks the host id or tokens.
Result<NodeMetadata> ReadNodeMetadata(FileSystem& fs, const std::string& data_dir, int64_t now_seconds);

// The ring as the nodes of one cluster describe themselves: each node from
// its own system.local, nodes named only as peers from the peers tables.
// InvalidArgument when the directories belong to different clusters (cluster
// names or partitioners differ) or two directories are the same node.
Result<TokenRing> RingFromNodes(const std::vector<NodeMetadata>& nodes);

}  // namespace cqlite
