#include "cli/source_tables.h"

#include <map>
#include <optional>

#include "cassandra/sstable.h"
#include "cli/commands.h"
#include "cluster/coverage.h"
#include "cluster/node_metadata.h"
#include "materialize/materializer.h"
#include "util/strings.h"

namespace cqlite {

namespace {

// The tables of a cluster's nodes (--cluster), each with its directory on
// every node that has it, after checking that the directories are of one
// cluster and hold every replica of every token range of each table's
// keyspace (cluster/coverage.h).
Result<std::vector<ReplicatedTable>> ClusterTables(FileSystem& fs, const std::vector<std::string>& data_dirs,
                                                   int64_t now, bool allow_missing_replicas) {
  std::vector<NodeMetadata> nodes;
  for (const std::string& dir : data_dirs) {
    ASSIGN_OR_RETURN(NodeMetadata node, ReadNodeMetadata(fs, WarehousePath(dir), now));
    nodes.push_back(std::move(node));
  }
  ASSIGN_OR_RETURN(TokenRing ring, RingFromNodes(nodes));
  // By "<keyspace>/<table>-<id>": a table's id is the same on every node.
  std::map<std::string, std::vector<size_t>> nodes_of_table;
  std::map<std::string, std::vector<std::string>> dirs_of_table;
  for (size_t i = 0; i < nodes.size(); ++i) {
    ASSIGN_OR_RETURN(auto dirs, materialize::FindTableDirectories(fs, nodes[i].data_dir));
    for (const std::string& dir : dirs) {
      // The table directory itself, or a snapshot or backup inside it.
      std::optional<SSTableLocation> location = TableDirectoryLocation(OwningTableDirectory(dir));
      if (!location || location->keyspace.empty()) {
        return Status::InvalidArgument(StrCat(dir, ": cannot tell its keyspace and table from the path"));
      }
      std::string key = StrCat(location->keyspace, "/", location->table, "-", location->table_id);
      nodes_of_table[key].push_back(i);
      dirs_of_table[key].push_back(dir);
    }
  }
  std::vector<ReplicatedTable> tables;
  for (auto& [key, dirs] : dirs_of_table) {
    std::string keyspace = key.substr(0, key.find('/'));
    std::set<std::string> hosts;
    const std::vector<size_t>& holders = nodes_of_table[key];
    ASSIGN_OR_RETURN(Replication replication, nodes[holders[0]].KeyspaceReplication(keyspace));
    // Node i holds a replica of the table; its replication must agree.
    auto add_holder = [&](size_t i) -> Status {
      ASSIGN_OR_RETURN(Replication other, nodes[i].KeyspaceReplication(keyspace));
      if (other.ToString() != replication.ToString()) {
        return Status::InvalidArgument(StrCat(nodes[i].data_dir, ": keyspace ", keyspace, " has replication ",
                                              other.ToString(), " but ", nodes[holders[0]].data_dir, " says ",
                                              replication.ToString()));
      }
      hosts.insert(nodes[i].self.host_id);
      return Status::OK();
    };
    for (size_t i : holders) RETURN_IF_ERROR(add_holder(i));
    std::string table = key.substr(key.find('/') + 1);
    table = StrCat(keyspace, ".", table.substr(0, table.rfind('-')));
    if (dirs.size() != std::set<size_t>(holders.begin(), holders.end()).size()) {
      return Status::InvalidArgument(StrCat(nodes[holders[0]].data_dir, ": table ", table,
                                            " is found in more than one place on one node (", Join(dirs, ", "),
                                            "); give each node's data directory, or one snapshot of it"));
    }
    // A node that has the table's directory holds its replica, even with no
    // SSTable in it (nothing written there yet, or a snapshot of an empty
    // table: its schema.cql and manifest only).
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (!hosts.count(nodes[i].self.host_id) && fs.IsDirectory(JoinPath(nodes[i].data_dir, key))) {
        RETURN_IF_ERROR(add_holder(i));
      }
    }
    RETURN_IF_ERROR(CheckReplicaCoverage(ring, replication, hosts, table, allow_missing_replicas));
    tables.push_back({dirs[0], std::vector<std::string>(dirs.begin() + 1, dirs.end())});
  }
  return tables;
}


}  // namespace

Result<std::vector<ReplicatedTable>> FindSourceTables(FileSystem& fs, const std::string& path,
                                                      const std::vector<std::string>& cluster, int64_t now,
                                                      bool allow_missing_replicas, const std::set<std::string>& only) {
  std::vector<ReplicatedTable> tables;
  if (cluster.empty()) {
    ASSIGN_OR_RETURN(auto dirs, materialize::FindTableDirectories(fs, path));
    for (std::string& dir : dirs) tables.push_back({std::move(dir), {}});
  } else {
    ASSIGN_OR_RETURN(tables, ClusterTables(fs, cluster, now, allow_missing_replicas));
  }
  if (only.empty()) return tables;
  std::set<std::string> missing = only;
  std::vector<ReplicatedTable> chosen;
  for (ReplicatedTable& table : tables) {
    std::string name = SourceTableName(table.dir);
    if (!only.count(name)) continue;
    missing.erase(name);
    chosen.push_back(std::move(table));
  }
  if (!missing.empty()) {
    std::vector<std::string> names(missing.begin(), missing.end());
    return Status::NotFound(StrCat(cluster.empty() ? path : cluster.front(), ": no table ", Join(names, ", "),
                                   " (--tables)"));
  }
  return chosen;
}

Result<std::set<std::string>> ParseTableList(const std::string& option) {
  std::set<std::string> names;
  for (const std::string& t : Split(option, ',')) {
    std::string name(Trim(t));
    if (name.empty()) continue;
    if (name.find('.') == std::string::npos) {
      return Status::InvalidArgument(StrCat("--tables: ", name, " is not keyspace.table"));
    }
    names.insert(std::move(name));
  }
  return names;
}

std::string SourceTableName(const std::string& table_dir) {
  std::optional<SSTableLocation> location = TableDirectoryLocation(OwningTableDirectory(table_dir));
  if (!location || location->keyspace.empty()) return "";
  return StrCat(location->keyspace, ".", location->table);
}

}  // namespace cqlite
