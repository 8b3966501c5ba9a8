#include "catalog/commit_retry.h"

#include <algorithm>

#include "util/strings.h"

namespace cqlite::catalog {

Result<std::optional<Committed>> CommitWithRetry(FileSystem& fs, Catalog& catalog, const PlanCommit& plan,
                                                 const CommitRetryOptions& options) {
  const int attempts = std::max(1, options.max_attempts);
  Status lost_to = Status::OK();
  for (int attempt = 1; attempt <= attempts; ++attempt) {
    ASSIGN_OR_RETURN(std::optional<TableCommit> commit, plan(attempt, lost_to));
    if (!commit) return std::optional<Committed>();
    Result<std::string> committed = catalog.Commit(fs, *commit);
    if (committed.ok()) return std::optional<Committed>(Committed{std::move(*committed), attempt});
    if (committed.status().kind() != StatusKind::kCommitConflict) return committed.status();
    lost_to = committed.status();
  }
  return Status::CommitConflict(StrCat(options.table, ": gave up ", options.what, " after ", attempts,
                                       " attempts: other writers kept committing first"));
}

}  // namespace cqlite::catalog
