// The watcher's private copy of what a run reads: before a run, the complete
// generations of a table (generation_scan.h) are hard-linked (copied where
// links are impossible, FileSystem::LinkOrCopy) into a staging folder in the
// warehouse, as `nodetool snapshot` links SSTables, so that compaction can
// delete the originals while the run reads them. The folder is laid out as a
// data directory of its own:
//
//   <warehouse>/.cqlite-watch/staging/<keyspace>.<table>/<keyspace>/<table>-<id>/
//   <warehouse>/.cqlite-watch/staging/<keyspace>.<table>/<keyspace>/schema.cql  (when the keyspace has one)
//   <warehouse>/.cqlite-watch/staging/<keyspace>.<table>/system_schema/<t>-<id>/  (the schema tables)
//
// holding every place the table's schema may be read from
// (SchemaCandidates, source/schema_source.h), so that the run resolves
// the schema the live table directory resolves. It is removed after the
// run's commit, and at the watcher's start (what a killed watcher left).
#pragma once

#include <string>
#include <vector>

#include "io/file_system.h"
#include "util/status.h"
#include "watch/generation_scan.h"

namespace cqlite::watch {

// `<warehouse>/.cqlite-watch`: the watcher's locks, staging folders and status files.
std::string WatchDirectory(const std::string& warehouse);

// Links every file of `generations` (in `source_dir`) into `staging_dir`,
// which is created. NotFound naming the file when one vanished before it was
// linked (compaction removed it since the scan: scan again); IOError when a
// link or copy fails (a full or read-only warehouse), naming both paths.
Status StageGenerations(FileSystem& fs, const std::string& source_dir, const std::vector<GenerationFiles>& generations,
                        const std::string& staging_dir);

// Links into `stage_root` every place the schema of the table in
// `table_dir` (a table directory `<data-dir>/<keyspace>/<table>-<id>`) may be
// read from without --schema (SchemaCandidates): its schema.cql and its
// keyspace's, and the complete generations of the data directory's
// system_schema tables, each at the same place below `stage_root` as below
// the data directory. Absent sources are left out. InvalidArgument when
// `table_dir` is not a table directory; NotFound or IOError as
// StageGenerations.
Status StageSchemaSources(FileSystem& fs, const std::string& table_dir, const std::string& stage_root);

// Removes `dir` and everything below it; OK when it does not exist.
Status RemoveTree(FileSystem& fs, const std::string& dir);

}  // namespace cqlite::watch
