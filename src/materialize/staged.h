// A table published by many processes at once, then committed once
// (`cqlite materialize --token-range R --stage DIR`, then `cqlite commit
// --staged DIR`): the steps a Spark job runs in its executors and on its
// driver (spark/cqlite_spark.py, docs/spark.md).
//
// A staged run is a run of one part of the ring (materializer.h with
// MaterializeOptions::token_ranges) that stops before the commit. It writes
// its data and delete files, row index, kept facts and the part's next fold
// state into the table's location as any run does, plus, under the stage
// directory:
//
//   <stage>/<namespace>.<table>/<run>.started      before the run writes any
//                                                   file of its own
//   <stage>/<namespace>.<table>/<run>.staged.json  once every file is written
//                                                   and synced (renamed into
//                                                   place whole)
//
// The staged result names what the part's state was when the run began,
// the part's next fold state, and two manifests (never part of a snapshot)
// listing the run's data and delete files with their metrics.
//
// The commit gathers the staged results of every table, keeps one per part
// (attempts of a task retried or run twice by speculation stage the same
// part; the first by run id among those staged against the part's current
// state wins), and commits one snapshot per table whose parts file replaces
// each staged part's entry (snapshot.h). The snapshot's summary lists the
// winning runs in cqlite.staged-runs, so a commit of the same directory run
// again (a driver killed after the catalog's commit) recognises it and only
// cleans up. Every other run that left a mark (a staged loser, or a run that
// began and never finished: an executor killed) has its files removed by
// their run id (RemoveFilesOfRun), as have the staged results and marks.
// Discarding a stage directory (a job abandoned before its commit) removes
// every run's files, unless the runs were in fact committed.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "iceberg/manifest.h"
#include "iceberg/schema.h"
#include "io/file_system.h"
#include "fold_state/fold_state.h"
#include "fold_state/warehouse_files.h"
#include "util/status.h"

namespace cqlite::materialize {

// What a staged run leaves for the commit.
struct StagedResult {
  std::string run_id;
  std::string namespace_name, table_name;
  std::string source_table;  // keyspace.table
  std::string location;      // the table's location the files went to
  Murmur3RangeSet ranges;    // the part of the ring folded
  // The part's fold state when the run began (the file the table named);
  // empty: the part (or the table) had none.
  std::string base_fold_state;
  // Whether the run changed the part: false when it found nothing new (no
  // file written; the part stays as it is).
  bool changed = false;
  std::string fold_state;  // the part's next fold state file
  std::string lineage;
  int64_t now_seconds = 0;
  int64_t delta_horizon_micros = 0;  // of the next fold state
  std::vector<ConsumedGeneration> generations;  // consumed by the run
  iceberg::Schema schema;                       // what the table maps to
  int format_version = 2;
  std::map<std::string, std::string> new_table_properties;
  std::vector<iceberg::ManifestFile> manifests;  // the run's data and delete files
  int64_t rows_appended = 0, rows_deleted = 0, rows_total = 0;
  int data_files = 0, delete_files = 0;
  int64_t bytes_written = 0;
};

// The directory of a table's staged results under `stage_dir`.
std::string StagedTableDirectory(const std::string& stage_dir, const std::string& namespace_name,
                                 const std::string& table_name);
// Marks that run `run_id` begins writing files for the table (before it does).
Status MarkStagedRunStarted(FileSystem& fs, const std::string& stage_dir, const StagedResult& result);
// Writes the staged result, whole: the last step of a staged run.
Status WriteStagedResult(FileSystem& fs, const std::string& stage_dir, const StagedResult& result);
// The last steps of a staged run that changed its part: writes the part's
// next fold state and the manifests of `added` (files named by `files`),
// completes `result` with them, and writes it.
Status StageRun(FileSystem& fs, const std::string& stage_dir, StagedResult result, const FoldState& state,
                const std::vector<iceberg::DataFile>& added, RunFiles& files);

struct CommitStagedOptions {
  std::string warehouse;
  int max_attempts = 5;  // catalog commits tried when other writers commit first
  // Remove every staged run's files instead of committing (a job given up).
  bool discard = false;
  std::function<void(const std::string&)> progress;
};

struct StagedTableReport {
  std::string namespace_name, table_name;
  int parts_staged = 0;     // distinct parts with a staged result
  int parts_changed = 0;    // of them, parts whose run changed something
  int runs_discarded = 0;   // runs whose files were removed (losers, unfinished, or all with discard)
  int64_t files_removed = 0;
  int64_t rows_appended = 0, rows_deleted = 0;
  int data_files = 0, delete_files = 0;
  int64_t bytes_written = 0;
  int generations_consumed = 0;
  bool committed = false;          // this commit made a snapshot
  bool already_committed = false;  // an earlier commit of the same runs did
  int64_t snapshot_id = 0;
  int attempts = 0;
  std::string metadata_location;
  std::string message;
};

// Commits (or, with options.discard, discards) the staged results under
// `stage_dirs`, one snapshot per table. A table's report is an error when
// its staged results cannot be read, overlap without being the same part,
// or were staged against part states the table no longer has (another job
// committed since: nothing is committed, nothing removed; run the job
// again, after discarding this one).
Result<std::vector<StagedTableReport>> CommitStaged(FileSystem& fs, catalog::Catalog& catalog,
                                                    const std::vector<std::string>& stage_dirs,
                                                    const CommitStagedOptions& options);

}  // namespace cqlite::materialize
