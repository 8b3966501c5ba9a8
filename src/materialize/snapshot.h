// The Iceberg side of a materialize run (materializer.h, steps 1 and 4):
// the table as the catalog shows it when an attempt starts (its metadata,
// current snapshot and the fold state that snapshot names), and the files
// that make a run's data and delete files the table's next snapshot: the
// new fold state, manifests of the added files, a manifest list that keeps
// the parent's manifests, and the next table metadata file. Nothing here is
// visible until the catalog's compare-and-swap (materializer.cc, step 5).
//
// Snapshot summaries carry, besides Iceberg's metrics (DESIGN D8):
// cqlite.fold-state (the fold state file), cqlite.generations (the
// identities consumed by this snapshot), cqlite.delta-horizon-micros,
// cqlite.lineage (the table directory read) and cqlite.ttl-evaluated-at.
//
// The one schema change a run makes is a primary key column made optional
// (MappingOptions::nullable_keys): the next metadata file then adds that
// schema and makes it current.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "catalog/sql_catalog.h"
#include "iceberg/data_files.h"
#include "iceberg/schema.h"
#include "iceberg/table_metadata.h"
#include "io/file_system.h"
#include "materialize/fold_state.h"
#include "materialize/warehouse_files.h"
#include "util/status.h"

namespace cqlite::materialize {

// The table as the catalog has it when an attempt starts.
struct Baseline {
  std::optional<std::string> metadata_location;  // none: the table does not exist yet
  std::optional<iceberg::TableMetadata> metadata;
  std::optional<iceberg::Snapshot> parent;  // the current snapshot
  FoldState state;                          // the parent's fold state
  std::string location;                     // the table's directory
};

// Loads `namespace_name`.`table_name` from `catalog`; a table that does not
// exist yet is to be made at TableLocation(warehouse, ...). NotSupported when
// its schema differs from `schema` (what `source_name`, keyspace.table, maps
// to now); InvalidArgument when its current snapshot was not written by
// CQLite.
Result<Baseline> LoadBaseline(FileSystem& fs, catalog::SqlCatalog& catalog, const std::string& warehouse,
                              const std::string& namespace_name, const std::string& table_name,
                              const iceberg::Schema& schema, const std::string& source_name);

// What the next snapshot holds.
struct NextSnapshot {
  const iceberg::Schema* schema = nullptr;
  FoldState state;                             // the fold state after the run
  std::vector<iceberg::DataFile> added;        // data and delete files
  std::vector<ConsumedGeneration> generations;  // consumed by this run
  int64_t now_seconds = 0;                     // when TTLs were evaluated
  std::string lineage;                         // the table directory read
  // Properties of a table made by this snapshot (ignored for an existing one).
  std::map<std::string, std::string> new_table_properties;
};

struct WrittenSnapshot {
  std::string metadata_file;  // to swap into the catalog
  int64_t snapshot_id = 0;
};

// Writes (and syncs) the fold state, manifests, manifest list and metadata
// file of the snapshot after `base`'s current one.
Result<WrittenSnapshot> WriteSnapshot(FileSystem& fs, const Baseline& base, const NextSnapshot& next,
                                      RunFiles& files);

}  // namespace cqlite::materialize
