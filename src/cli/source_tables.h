// The Cassandra tables a command reads: those under one path, or, with
// --cluster, each table of a cluster's nodes with its directory on every
// node that holds a replica (materialize, plan). Shared by the commands that
// publish tables, so that a Spark job's plan and its tasks see the same ones.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "io/file_system.h"
#include "util/status.h"

namespace cqlite {

// A table to publish: a table directory and, from --cluster, the same
// table's directories on the other nodes.
struct ReplicatedTable {
  std::string dir;
  std::vector<std::string> replica_dirs;
};

// The tables under `path`, or (when `cluster` is not empty) of the
// cluster's nodes whose data directories it lists, after checking that the
// directories are of one cluster and hold every replica of every token range
// of each table's keyspace (cluster/coverage.h); with `only` not empty, those
// of the keyspace.table names it holds.
Result<std::vector<ReplicatedTable>> FindSourceTables(FileSystem& fs, const std::string& path,
                                                      const std::vector<std::string>& cluster, int64_t now,
                                                      bool allow_missing_replicas, const std::set<std::string>& only);

// A --tables option ("ks.t,ks.u"): the names, each keyspace.table.
Result<std::set<std::string>> ParseTableList(const std::string& option);

// "keyspace.table" of a table directory (or a snapshot or backup in one);
// empty when the path does not tell.
std::string SourceTableName(const std::string& table_dir);

}  // namespace cqlite
