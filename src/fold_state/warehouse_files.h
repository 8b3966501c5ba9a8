// Every name a materialize run gives a file in the warehouse, in one place
// (as leveldb's db/filename.h names a database's files). A table lives in
// `<warehouse>/<namespace>/<table>/` (its Iceberg location):
//
//   data/<run>-<k>.parquet            data files, one per token range k (Iceberg)
//   data/<run>-deletes-<k>-<i>.parquet  file-scoped position delete files (Iceberg)
//   data/<run>-dv.puffin              a v3 table's deletion vectors (Iceberg)
//   metadata/NNNNN-<uuid>.metadata.json, metadata/<run>-m0.avro (data
//       manifest), <run>-m1.avro (delete manifest), snap-<id>-1-<run>.avro
//       (manifest list)                                         (Iceberg)
//   cqlite/state-<run>.json           the fold state (fold_state.h)
//   cqlite/parts-<run>.json           a table published by token ranges: each
//                                     part's ranges and fold state (snapshot.h)
//   cqlite/state-<run>-p<p>.json      part p's fold state, when a maintenance
//                                     run rewrites every part's (maintain/)
//   cqlite/rows-<run>-<k>-<i>.parquet the row index's files
//   cqlite/rows-<run>-updates-<k>-<i>.parquet  its update layer (fold_state.h),
//                                     a part per range
//   cqlite/facts/<run>-<k>/           a consumed generation's SSTable, kept
//                                     (its own component file names)
//   cqlite/facts/<run>-merge<m>-<i>.parquet  merged facts files
//
// A run folds the table's token ranges k = 0, 1, ... each on its own
// (materializer.h), so the files of a range carry its number. Every name
// carries the id of the run that wrote it, so that runs racing
// for one table never write the same file, and nothing is ever overwritten.
// A run's files are removed again when it does not commit (a crash leaves
// them unreferenced, and harmless).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "io/file_system.h"

namespace cqlite::materialize {

// Where a table lives in a warehouse when the catalog does not say yet.
std::string TableLocation(const std::string& warehouse, const std::string& namespace_name,
                          const std::string& table_name);

// Removes every file of the table at `location` whose name carries the id
// of run `run_id` (and the directories its kept generations are in): what
// a run that will never commit left behind (a staged run that lost to
// another attempt of its part, or one killed midway: staged.h). Returns how
// many files and directories went; a name listed but already gone counts
// for nothing.
Result<int64_t> RemoveFilesOfRun(FileSystem& fs, const std::string& location, const std::string& run_id);

// The files one run (one attempt at a commit) writes for a table. Every
// name it gives is remembered, and removed when the RunFiles is destroyed,
// unless Keep() was called (once the commit made the files part of the table).
// Thread-safe: the ranges of a run name their files at once.
class RunFiles {
 public:
  // A run with a new random id, of the table at `location`.
  RunFiles(FileSystem& fs, std::string location);
  ~RunFiles();
  RunFiles(const RunFiles&) = delete;
  RunFiles& operator=(const RunFiles&) = delete;

  void Keep() { kept_ = true; }
  // Another commit of the same run on top of a newer snapshot (a part of a
  // table published by token ranges that lost the race to another part):
  // the files that made the lost snapshot (fold state, parts, manifests,
  // manifest list, metadata) are removed, and those named from now on carry
  // the attempt's number; data, delete and row index files stay.
  void NextCommitAttempt();

  const std::string& run_id() const { return run_id_; }
  // The directories the names below are in.
  std::vector<std::string> Directories() const;

  std::string DataFile(int range);
  std::string DeleteFile(int range, int file);
  // A v3 table's deletion vectors of this attempt, one Puffin file.
  std::string DeletionVectors();
  std::string DataManifest();
  std::string DeleteManifest();
  std::string ManifestList(int64_t snapshot_id);
  std::string MetadataFile(int version);
  std::string FoldState();
  std::string FoldStateParts();
  // The fold state of part `part` of a table published by token ranges,
  // written by a run that rewrites every part's (`cqlite maintain`).
  std::string FoldStateOfPart(int part);
  std::string RowIndexFile(int range, int file);
  std::string RowIndexUpdateFile(int range, int file);
  // The directory the run's `generation`th new generation's SSTable is kept
  // in, and a component file in it (named as in the table directory).
  std::string KeptGenerationDirectory(size_t generation);
  std::string KeptComponent(size_t generation, const std::string& file_name);
  std::string MergedFactsFile(size_t merge, int file);

 private:
  std::string Remember(std::string path);
  // A file of the snapshot an attempt commits.
  std::string RememberForAttempt(std::string path);
  // The run id, with the commit attempt's number after the first.
  std::string AttemptId() const;

  FileSystem& fs_;
  std::mutex mu_;
  std::vector<std::string> written_;  // in the order named; guarded by mu_
  std::vector<std::string> attempt_files_;  // the snapshot's files of this attempt; guarded by mu_
  int attempt_ = 0;
  bool kept_ = false;
  std::string location_;
  std::string run_id_;
  std::string data_dir_, metadata_dir_, state_dir_, facts_dir_;
};

}  // namespace cqlite::materialize
