#include "cluster/node_metadata.h"

#include <algorithm>
#include <memory>
#include <optional>

#include "cassandra/sstable.h"
#include "cassandra/value_format.h"
#include "source/system_table.h"
#include "util/strings.h"

namespace cqlite {

namespace {

// The directory holding the SSTables of `keyspace`.`table` under `data_dir`:
// its table directory (<table>-<id>/), or, when that holds none, its newest
// snapshot. Empty when the node has no such table or no SSTables of it.
Result<std::string> FindTableSSTables(FileSystem& fs, const std::string& data_dir, const std::string& keyspace,
                                      const std::string& table) {
  std::string keyspace_dir = StrCat(data_dir, "/", keyspace);
  if (!fs.IsDirectory(keyspace_dir)) return std::string();
  ASSIGN_OR_RETURN(auto entries, fs.ListDirectory(keyspace_dir));
  std::vector<std::string> found;
  for (const DirectoryEntry& entry : entries) {
    if (!entry.is_directory || !StartsWith(entry.name, table + "-")) continue;
    std::string dir = StrCat(keyspace_dir, "/", entry.name);
    if (HoldsOwnSSTables(fs, dir)) {
      found.push_back(dir);
      continue;
    }
    std::string snapshots = dir + "/snapshots";
    if (!fs.IsDirectory(snapshots)) continue;
    ASSIGN_OR_RETURN(auto tags, fs.ListDirectory(snapshots));
    std::sort(tags.begin(), tags.end(), [](const DirectoryEntry& a, const DirectoryEntry& b) { return a.name > b.name; });
    for (const DirectoryEntry& tag : tags) {
      std::string tag_dir = StrCat(snapshots, "/", tag.name);
      if (tag.is_directory && HoldsOwnSSTables(fs, tag_dir)) {
        found.push_back(tag_dir);
        break;
      }
    }
  }
  if (found.size() > 1) {
    return Status::InvalidArgument(StrCat(keyspace_dir, ": ", found.size(), " directories hold SSTables of ",
                                          keyspace, ".", table, " (", Join(found, ", "), ")"));
  }
  return found.empty() ? std::string() : found[0];
}

// Reads every live row of `keyspace`.`table`; an empty table when the node
// has none.
Result<SystemTable> ReadSystemTable(FileSystem& fs, const std::string& data_dir, const std::string& keyspace,
                                    const std::string& table, int64_t now_seconds) {
  ASSIGN_OR_RETURN(std::string path, FindTableSSTables(fs, data_dir, keyspace, table));
  if (path.empty()) return SystemTable{};
  return ReadSystemTableDirectory(fs, path, now_seconds);
}

Result<std::vector<int64_t>> ParseTokens(const std::string& path, const std::vector<std::string>& texts) {
  std::vector<int64_t> tokens;
  for (const std::string& text : texts) {
    std::optional<int64_t> token = ParseInt64(text);
    if (!token) {
      return Status::InvalidArgument(
          StrCat(path, ": token '", text, "' is not a Murmur3Partitioner token (a signed 64-bit integer)"));
    }
    tokens.push_back(*token);
  }
  std::sort(tokens.begin(), tokens.end());
  return tokens;
}

}  // namespace

Result<Replication> NodeMetadata::KeyspaceReplication(const std::string& keyspace) const {
  auto it = keyspaces.find(keyspace);
  if (it == keyspaces.end()) {
    return Status::NotFound(StrCat(data_dir, ": system_schema.keyspaces has no keyspace '", keyspace, "'"));
  }
  return it->second;
}

Result<NodeMetadata> ReadNodeMetadata(FileSystem& fs, const std::string& data_dir, int64_t now_seconds) {
  NodeMetadata node;
  node.data_dir = data_dir;

  ASSIGN_OR_RETURN(SystemTable local, ReadSystemTable(fs, data_dir, "system", "local", now_seconds));
  if (local.path.empty()) {
    return Status::NotFound(StrCat(data_dir, ": no system/local-*/ SSTables (is this a Cassandra data directory?)"));
  }
  const SystemRow* self = nullptr;
  for (const SystemRow& row : local.rows) {
    if (!row.key.empty() && row.key[0] == "local") self = &row;
  }
  if (!self) return Status::InvalidArgument(StrCat(local.path, ": system.local has no row 'local'"));
  ASSIGN_OR_RETURN(node.self.host_id, local.Text(*self, "host_id"));
  if (node.self.host_id.empty()) return Status::InvalidArgument(StrCat(local.path, ": system.local has no host_id"));
  ASSIGN_OR_RETURN(node.self.address, local.Text(*self, "broadcast_address"));
  if (node.self.address.empty()) {
    ASSIGN_OR_RETURN(node.self.address, local.Text(*self, "listen_address"));
  }
  ASSIGN_OR_RETURN(node.self.data_center, local.Text(*self, "data_center"));
  ASSIGN_OR_RETURN(node.self.rack, local.Text(*self, "rack"));
  ASSIGN_OR_RETURN(node.cluster_name, local.Text(*self, "cluster_name"));
  ASSIGN_OR_RETURN(node.partitioner, local.Text(*self, "partitioner"));
  ASSIGN_OR_RETURN(node.release_version, local.Text(*self, "release_version"));
  ASSIGN_OR_RETURN(auto token_texts, local.Elements(*self, "tokens", 1));
  ASSIGN_OR_RETURN(node.self.tokens, ParseTokens(local.path, token_texts));
  if (node.self.tokens.empty()) {
    return Status::InvalidArgument(StrCat(local.path, ": system.local has no tokens (the node never joined a ring)"));
  }

  // peers_v2 supersedes peers from 4.0; a 4.x node keeps both.
  ASSIGN_OR_RETURN(SystemTable peers, ReadSystemTable(fs, data_dir, "system", "peers_v2", now_seconds));
  if (peers.path.empty()) {
    ASSIGN_OR_RETURN(peers, ReadSystemTable(fs, data_dir, "system", "peers", now_seconds));
  }
  for (const SystemRow& row : peers.rows) {
    RingNode peer;
    ASSIGN_OR_RETURN(peer.host_id, peers.Text(row, "host_id"));
    ASSIGN_OR_RETURN(auto texts, peers.Elements(row, "tokens", 1));
    // A peer being removed or not yet joined has no host id or tokens.
    if (peer.host_id.empty() || texts.empty()) continue;
    peer.address = row.key.empty() ? std::string() : row.key[0];
    ASSIGN_OR_RETURN(peer.data_center, peers.Text(row, "data_center"));
    ASSIGN_OR_RETURN(peer.rack, peers.Text(row, "rack"));
    ASSIGN_OR_RETURN(peer.tokens, ParseTokens(peers.path, texts));
    node.peers.push_back(std::move(peer));
  }
  std::sort(node.peers.begin(), node.peers.end(),
            [](const RingNode& a, const RingNode& b) { return a.host_id < b.host_id; });

  ASSIGN_OR_RETURN(SystemTable keyspaces, ReadSystemTable(fs, data_dir, "system_schema", "keyspaces", now_seconds));
  for (const SystemRow& row : keyspaces.rows) {
    if (row.key.empty()) continue;
    ASSIGN_OR_RETURN(auto entries, keyspaces.Elements(row, "replication", 2));
    std::map<std::string, std::string> options;
    for (size_t i = 0; i + 1 < entries.size(); i += 2) options[entries[i]] = entries[i + 1];
    Result<Replication> replication = Replication::FromOptions(options);
    if (!replication.ok()) {
      return replication.status().WithContext(StrCat(keyspaces.path, ": keyspace ", row.key[0]));
    }
    node.keyspaces[row.key[0]] = std::move(*replication);
  }
  return node;
}

Result<TokenRing> RingFromNodes(const std::vector<NodeMetadata>& nodes) {
  if (nodes.empty()) return Status::InvalidArgument("no nodes");
  const NodeMetadata& first = nodes[0];
  std::map<std::string, RingNode> by_host;
  std::map<std::string, std::string> dir_of_host;
  for (const NodeMetadata& node : nodes) {
    if (node.cluster_name != first.cluster_name) {
      return Status::InvalidArgument(StrCat(node.data_dir, " is of cluster '", node.cluster_name, "' but ",
                                            first.data_dir, " is of cluster '", first.cluster_name, "'"));
    }
    if (node.partitioner != first.partitioner) {
      return Status::InvalidArgument(StrCat(node.data_dir, " uses ", node.partitioner, " but ", first.data_dir,
                                            " uses ", first.partitioner));
    }
    auto [it, inserted] = dir_of_host.emplace(node.self.host_id, node.data_dir);
    if (!inserted) {
      return Status::InvalidArgument(
          StrCat(node.data_dir, " and ", it->second, " are the same node (host id ", node.self.host_id, ")"));
    }
    by_host[node.self.host_id] = node.self;
  }
  // A node named only as a peer is part of the ring too (its data may be
  // missing; the caller decides whether that is allowed).
  for (const NodeMetadata& node : nodes) {
    for (const RingNode& peer : node.peers) by_host.emplace(peer.host_id, peer);
  }
  std::vector<RingNode> ring;
  for (auto& [host, node] : by_host) ring.push_back(std::move(node));
  return TokenRing::Make(std::move(ring));
}

}  // namespace cqlite
