// The Iceberg side of a materialize run (materializer.h, steps 1 and 4):
// the table as the catalog shows it when an attempt starts (its metadata,
// current snapshot and the fold state that snapshot names), and the files
// that make a run's data and delete files the table's next snapshot: the
// new fold state, manifests of the added files, a manifest list that keeps
// the parent's manifests, and the next table metadata. Nothing here is
// visible until the catalog's commit (materializer.cc, step 5).
//
// Snapshot summaries carry, besides Iceberg's metrics (DESIGN D8):
// cqlite.fold-state (the fold state file), cqlite.generations (the
// identities consumed by this snapshot), cqlite.delta-horizon-micros,
// cqlite.lineage (the table directory read) and cqlite.ttl-evaluated-at.
// A table published by token ranges (MaterializeOptions::token_ranges: a
// job per node, each with its primary ranges) has no one fold state: its
// summaries name instead, in cqlite.fold-state-parts, a file listing each
// part's ranges, fold state and lineage. A run of one part replaces that
// part's entry and keeps the others; parts never overlap, so runs of
// different parts commit one after another without re-folding.
//
// A run whose schema differs from the table's current one (the Cassandra
// table was altered, schema_evolution.h, or a primary key column was made
// optional, MappingOptions::nullable_keys) adds it to the next metadata
// file and makes it current; old snapshots keep theirs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "iceberg/data_files.h"
#include "iceberg/schema.h"
#include "iceberg/table_metadata.h"
#include "io/file_system.h"
#include "fold_state/fold_state.h"
#include "materialize/position_deletes.h"
#include "fold_state/warehouse_files.h"
#include "util/status.h"

namespace cqlite::materialize {

// One part of a table published by token ranges.
struct FoldStatePart {
  Murmur3RangeSet ranges;
  std::string fold_state;  // its state file
  std::string lineage;     // what the part's last run read
};

// The table as the catalog has it when an attempt starts.
struct Baseline {
  std::optional<catalog::LoadedTable> table;  // none: the table does not exist yet
  std::optional<iceberg::Snapshot> parent;  // the current snapshot
  FoldState state;                          // the parent's fold state (of the run's part)
  bool has_fold_state = false;              // false: a new table, or a part not run before
  std::string fold_state_path;              // the file `state` was read from
  std::vector<FoldStatePart> parts;         // a table published by token ranges: the parent's parts
  std::string location;                     // the table's directory
};

// Loads `namespace_name`.`table_name` from `catalog`; a table that does not
// exist yet is to be made at TableLocation(warehouse, ...). InvalidArgument
// when its current snapshot was not written by CQLite. With `ranges` other than the whole ring, the fold state is that of
// the part with exactly those ranges (none yet: an empty one);
// InvalidArgument when the table is published whole, or a part overlaps
// them without being them (and the other way round).
Result<Baseline> LoadBaseline(FileSystem& fs, catalog::Catalog& catalog, const std::string& warehouse,
                              const std::string& namespace_name, const std::string& table_name,
                              const Murmur3RangeSet& ranges = Murmur3RangeSet::WholeRing());

// The table as a commit of staged parts (staged.h) finds it: as LoadBaseline,
// with the parent's parts and no fold state. InvalidArgument when its
// current snapshot is not of a table published by token range.
Result<Baseline> LoadPartsBaseline(FileSystem& fs, catalog::Catalog& catalog, const std::string& warehouse,
                                   const std::string& namespace_name, const std::string& table_name);

// What the next snapshot holds.
struct NextSnapshot {
  const iceberg::Schema* schema = nullptr;
  FoldState state;                             // the fold state after the run
  std::vector<iceberg::DataFile> added;        // data and delete files
  // The table's format version after this snapshot: 2, or 3 (a new v3
  // table, a v3 one, or a v2 one upgraded). In v3 the run's deletes come as
  // `deleted_positions` and become deletion vectors, one per data file,
  // merged with the deletes the data file has (its vector, or position
  // delete files of the table's v2 days, which the snapshot then removes);
  // the snapshot assigns row ids (row lineage) to every data manifest
  // without them.
  int format_version = 2;
  DeletedPositions deleted_positions;
  std::vector<ConsumedGeneration> generations;  // consumed by this run
  int64_t now_seconds = 0;                     // when TTLs were evaluated
  std::string lineage;                         // the table directory read
  Murmur3RangeSet ranges = Murmur3RangeSet::WholeRing();  // the part of the ring the run folded
  // Properties of a table made by this snapshot (ignored for an existing one).
  std::map<std::string, std::string> new_table_properties;
  // A commit of staged runs (staged.h): their parts' next fold states,
  // written by the runs, replace those parts' entries; `state` and `ranges`
  // are not used, the summary's delta horizon is `staged_delta_horizon_micros`
  // and its cqlite.staged-runs names `staged_runs`.
  std::vector<FoldStatePart> staged_parts;
  std::vector<std::string> staged_runs;
  int64_t staged_delta_horizon_micros = 0;
  // The column drops the table's schema has taken in (kColumnDropsKey);
  // none: the parent's.
  std::optional<std::string> column_drops;
};

struct WrittenSnapshot {
  iceberg::TableMetadata metadata;  // the table's next metadata, to commit
  std::string metadata_file;        // where a catalog that needs it written puts it (catalog::TableCommit)
  int64_t snapshot_id = 0;
};

// The fold state a snapshot names, as a run that changes no row's content
// (`cqlite maintain`) reads and rewrites it: one state for a table published
// whole, one per part for a table published by token ranges.
struct SnapshotFoldStates {
  bool by_parts = false;
  std::vector<FoldStatePart> parts;  // by_parts: the parts file's entries
  std::vector<FoldState> states;     // one per part (one for a table published whole)
};

// The fold state(s) `snapshot` names. InvalidArgument naming `table` when it
// names none (a snapshot cqlite did not write).
Result<SnapshotFoldStates> ReadSnapshotFoldStates(FileSystem& fs, const iceberg::Snapshot& snapshot,
                                                  const std::string& table);

// Writes `states` (files named by `files`) for a snapshot on top of `parent`
// that changes no row's content, and returns the cqlite properties of its
// summary: the state (or parts) file, no generation consumed, and the
// parent's lineage, delta horizon and TTL time.
Result<std::map<std::string, std::string>> WriteUnchangedRowsFoldStates(FileSystem& fs,
                                                                       const iceberg::Snapshot& parent,
                                                                       const SnapshotFoldStates& states,
                                                                       RunFiles& files);

// The staged runs (staged.h) whose parts `snapshot` committed.
std::vector<std::string> StagedRunsOf(const iceberg::Snapshot& snapshot);

// Every file of cqlite's own that `snapshot` references: its fold state or
// parts file, and the files the states name (fold_state.h). Empty for a
// snapshot cqlite did not write.
Result<std::vector<std::string>> FoldStateFilesOf(FileSystem& fs, const iceberg::Snapshot& snapshot);

// Writes (and syncs) the fold state, manifests and manifest list of the
// snapshot after `base`'s current one, and makes the table metadata that
// adds it; the catalog's commit writes that where it must (catalog.h).
Result<WrittenSnapshot> WriteSnapshot(FileSystem& fs, const Baseline& base, const NextSnapshot& next,
                                      RunFiles& files);

}  // namespace cqlite::materialize
