// The one loop every writer of a table commits through (`cqlite
// materialize`, `cqlite commit --staged`, `cqlite maintain`): a commit
// planned on the table as the catalog had it, planned again each time
// another writer commits first, up to a number of attempts. What "planned
// again" means is the writer's: a maintain step plans anew on the newer
// table, a run of part of the ring goes on top of another part's snapshot,
// a run of the whole ring gives the conflict back to be folded again.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "catalog/catalog.h"
#include "io/file_system.h"
#include "util/status.h"

namespace cqlite::catalog {

// Attempt `attempt` (1, 2, ...): the commit to make, or nullopt when there
// is nothing to commit (the loop ends). `lost_to` is the conflict the
// previous attempt lost with (OK for the first). An error ends the loop
// with it (a plan may give `lost_to` back to end it as a conflict).
using PlanCommit = std::function<Result<std::optional<TableCommit>>(int attempt, const Status& lost_to)>;

struct CommitRetryOptions {
  int max_attempts = 1;
  std::string table;  // names the table in the message of giving up
  std::string what;   // what is committed, e.g. "the rewrite"
};

struct Committed {
  std::string metadata_location;
  int attempts = 0;
};

// Commits what `plan` makes, again while it loses to other writers.
// Returns nullopt when a plan had nothing to commit. CommitUnknown as the
// catalog said it (the writer must keep the files the commit names);
// CommitConflict naming the table and what when `max_attempts` attempts all
// lost.
Result<std::optional<Committed>> CommitWithRetry(FileSystem& fs, Catalog& catalog, const PlanCommit& plan,
                                                 const CommitRetryOptions& options);

}  // namespace cqlite::catalog
