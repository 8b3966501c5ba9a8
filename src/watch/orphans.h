// Data files no snapshot references: what a materialize run killed before
// its commit leaves in a table's data/ directory (a run that fails on its
// own removes its files, materializer.h). The watcher removes them when it
// takes a table's lock (table_lock.h), before its first run, so that after
// any number of SIGKILLs the table's data/ directory holds only files its
// snapshots name.
//
// REQUIRES: no other process writes the table meanwhile (an in-flight run's
// files are unreferenced too): the watcher holds the table's lock, and other
// writers (`cqlite materialize`) must not run on a watched table.
#pragma once

#include <string>

#include "catalog/catalog.h"
#include "io/file_system.h"
#include "util/status.h"

namespace cqlite::watch {

// Removes the Parquet files in `<table location>/data/` that no manifest of
// any snapshot of the table lists; returns how many. 0 when the table does
// not exist yet. Errors name the metadata, manifest or file that failed.
Result<int> RemoveUnreferencedDataFiles(FileSystem& fs, catalog::Catalog& catalog,
                                        const std::string& namespace_name, const std::string& table_name);

}  // namespace cqlite::watch
