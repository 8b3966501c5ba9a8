// `cqlite ring <data-dir>...`: the token ring as the nodes' own system tables
// describe it, and which nodes replicate each range of a keyspace, as
// `nodetool describering` prints it for a live cluster (cluster/ring.h).
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cluster/node_metadata.h"
#include "util/json_writer.h"
#include "util/strings.h"
#include "util/time_format.h"

namespace cqlite {

namespace {

struct RingOptions {
  std::vector<std::string> data_dirs;
  std::string keyspace;
  int64_t now_seconds = -1;
  bool json = false;
};

Status PrintRing(const RingOptions& options) {
  FileSystem& fs = LocalFileSystem();
  int64_t now = NowOrWallClock(options.now_seconds);
  std::vector<NodeMetadata> nodes;
  for (const std::string& dir : options.data_dirs) {
    ASSIGN_OR_RETURN(NodeMetadata node, ReadNodeMetadata(fs, dir, now));
    nodes.push_back(std::move(node));
  }
  ASSIGN_OR_RETURN(TokenRing ring, RingFromNodes(nodes));
  Replication replication;
  if (!options.keyspace.empty()) {
    ASSIGN_OR_RETURN(replication, nodes[0].KeyspaceReplication(options.keyspace));
  }
  std::vector<ReplicatedRange> ranges = ring.Replicas(replication);
  auto name = [&](int node) { return ring.nodes()[static_cast<size_t>(node)].Name(); };
  if (options.json) {
    JsonWriter w(std::cout, 2);
    w.BeginObject();
    w.Key("cluster"); w.String(nodes[0].cluster_name);
    w.Key("replication"); w.String(replication.ToString());
    w.Key("nodes");
    w.BeginArray();
    for (const RingNode& node : ring.nodes()) {
      w.BeginObject();
      w.Key("host_id"); w.String(node.host_id);
      w.Key("address"); w.String(node.address);
      w.Key("data_center"); w.String(node.data_center);
      w.Key("rack"); w.String(node.rack);
      w.Key("tokens");
      w.BeginArray();
      for (int64_t token : node.tokens) w.String(std::to_string(token));
      w.EndArray();
      w.EndObject();
    }
    w.EndArray();
    w.Key("ranges");
    w.BeginArray();
    for (const ReplicatedRange& range : ranges) {
      w.BeginObject();
      // Tokens as strings: 64-bit integers do not survive every JSON reader.
      w.Key("first"); w.String(std::to_string(range.range.first));
      w.Key("last"); w.String(std::to_string(range.range.last));
      w.Key("replicas");
      w.BeginArray();
      for (int node : range.replicas) w.String(name(node));
      w.EndArray();
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    std::cout << "\n";
    return Status::OK();
  }
  std::cout << "cluster " << nodes[0].cluster_name << ", " << ring.nodes().size() << " node(s)";
  if (!options.keyspace.empty()) std::cout << "; keyspace " << options.keyspace << ": " << replication.ToString();
  std::cout << "\n";
  for (const RingNode& node : ring.nodes()) {
    std::cout << "node " << node.Name() << " " << node.host_id << " " << node.data_center << "/" << node.rack << ", "
              << node.tokens.size() << " token(s)\n";
  }
  for (const ReplicatedRange& range : ranges) {
    std::vector<std::string> names;
    for (int node : range.replicas) names.push_back(name(node));
    std::cout << "[" << range.range.first << ", " << range.range.last << "] " << Join(names, ",") << "\n";
  }
  return Status::OK();
}

}  // namespace

CommandRunner AddRingCommand(CLI::App& app) {
  auto options = std::make_shared<RingOptions>();
  CLI::App* cmd = app.add_subcommand(
      "ring",
      "Print a cluster's token ring from its nodes' data directories (system.local, system.peers_v2) and, with "
      "--keyspace, the nodes that replicate each token range under the keyspace's replication "
      "(system_schema.keyspaces), primary first, as nodetool describering does for a live cluster");
  cmd->add_option("data-dirs", options->data_dirs, "Data directories of the cluster's nodes (one is enough)")
      ->required()
      ->expected(1, -1);
  cmd->add_option("--keyspace", options->keyspace,
                  "The keyspace whose replication places the replicas (default: each range's primary only)");
  cmd->add_option("--now", options->now_seconds, kNowHelp)->transform(InstantOption());
  cmd->add_flag("--json", options->json, "Print JSON (tokens as strings)");
  return [options] {
    Status status = PrintRing(*options);
    if (!status.ok()) {
      std::cout.flush();
      std::cerr << "cqlite ring: " << status.ToString() << "\n";
      return 1;
    }
    return 0;
  };
}

}  // namespace cqlite
