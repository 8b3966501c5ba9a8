// `cqlite materialize` for one table: folds the fold state of the table's
// current Iceberg snapshot with every SSTable generation not consumed
// before, and commits one snapshot that makes the Iceberg table equal to the
// new state (DESIGN D5, D6, D8):
//
//   1. the table's schema is mapped to Iceberg before anything is written,
//      and the table loaded from the catalog (snapshot.h);
//   2. the SSTables of new generations are kept in the warehouse (linked or
//      copied: the facts the fold state keeps, facts.h), and facts sets are
//      merged until at most fold_fan_in are left;
//   3. all facts are folded as of `now` (or only the rows the new ones
//      touch: touched_rows.h), and the fold output is
//      merged with the row index of the last run: new rows are appended to a new data
//      file, changed rows are written anew and their old position deleted,
//      vanished rows (deleted, expired) are position-deleted; with
//      `threads` ranges of the token ring at once (row_changes.h);
//   4. data files, file-scoped position delete files, the new row index and
//      fold state, manifests and manifest list are written and synced, and
//      the next table metadata made (snapshot.h);
//   5. one atomic commit in the catalog makes them visible (catalog.h: a SQL
//      catalog writes the metadata file and swaps it in, a REST catalog sends
//      requirements and updates). On a conflict (another writer committed
//      first) the run's files are removed and the run starts again from the
//      new current snapshot; when the outcome cannot be learned, they are
//      kept.
//
// A primary key column in which the fold finds an empty value (Cassandra
// accepts `blobAsInt(0x)` for any type, and SELECT shows it as "") cannot go
// into a required Iceberg field: the attempt's files are removed, the column
// becomes optional (the empty value null; no other key value is ever null),
// the table loses its identifier fields, which Iceberg requires to be
// required, and the attempt starts again. The table's next metadata file adds
// that schema; later runs keep it.
//
// A crash at any point before step 5 leaves the table at its previous
// snapshot; the files already written are unreferenced and harmless.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cassandra/token.h"
#include "catalog/catalog.h"
#include "io/file_system.h"
#include "mapping/iceberg_rows.h"
#include "parquet/parquet_format.h"
#include "util/status.h"

namespace cqlite::materialize {

struct MaterializeOptions {
  std::string warehouse;          // absolute; tables go to <warehouse>/<namespace>/<table>
  std::string schema_file;        // optional CQL schema (see `cqlite select --schema`)
  std::string namespace_name;     // empty: the Cassandra keyspace
  std::string table_name;         // empty: the Cassandra table
  int64_t now_seconds = -1;       // when TTLs are evaluated; < 0: the wall clock
  MappingOptions mapping;
  parquet::CompressionCodec compression = parquet::CompressionCodec::kZstd;
  int compression_level = 3;      // ZSTD only, 1 to 22
  // The Iceberg format version of a new table: 2, or 3 (deletion vectors in
  // Puffin files instead of position delete files, row lineage). A v2
  // table is upgraded to v3 in place by a run with 3; a v3 table stays v3.
  int format_version = 2;
  int max_attempts = 5;           // commits tried before giving up on conflicts
  // The most facts sets (fold_state.h) the fold reads at once; beyond it the
  // smallest are merged first. Bounds a run's memory whatever the number of
  // generations. With replica_dirs, this many per replica.
  int fold_fan_in = 16;
  // Facts files end at the first partition boundary past this many records,
  // so that no footer grows with the size of a generation.
  int64_t facts_file_records = 1 << 20;
  // Threads folding and writing the table at once, each over its own range
  // of the token ring (row_changes.h).
  int threads = 1;
  // The table directory holds every SSTable the table has now (a live data
  // directory, or the watcher's staged links of one), not only newer ones
  // (an incremental backup). When a consumed generation is no longer there,
  // Cassandra compacted it away, and the tombstones it held may have been
  // purged together with what they deleted: the run then folds the
  // directory's generations alone, not the fold state's facts (a cost that
  // follows the table's size), and an empty directory is an empty table.
  bool complete_source = false;
  // Fold only the rows the new generations touch, where that is possible
  // (touched_rows.h), and look them up in the row index, instead of folding
  // every kept generation again.
  bool fold_touched_rows = true;
  // The table directories of the table's other replicas (materialize
  // --cluster: the same table on other nodes of the cluster). Their
  // generations are folded together with the table directory's, as
  // Cassandra's read at ALL merges replicas; each row comes out once. Their
  // schemas must agree with the table directory's.
  std::vector<std::string> replica_dirs;
  // Only SSTables that incremental repair has marked repaired (Statistics.db:
  // repairedAt set, no pending repair); the others are left out and counted
  // in the report. Repaired data agrees on every replica.
  bool repaired_only = false;
  // The part of the token ring to publish (of a Murmur3 table): a job per
  // node, each with the ranges it is primary replica for
  // (--primary-range-only), publishes disjoint rows into one table. Such a
  // table keeps a fold state per part (snapshot.h); a run of one part
  // replaces only its rows. The whole ring: the table as one.
  Murmur3RangeSet token_ranges = Murmur3RangeSet::WholeRing();
  // Stage the run instead of committing it (materialize --stage; staged.h):
  // the stage directory its staged result goes to, for `cqlite commit
  // --staged` to commit with the other parts' runs. Needs token_ranges
  // other than the whole ring, and a v2 table.
  std::string stage_dir;
  // What the snapshot's cqlite.lineage and a new table's cqlite.source.path
  // name; empty: the table directory read (the watcher reads links of the
  // live directory it names here).
  std::string source_path;
  // Called with a line of progress now and then (may be empty).
  std::function<void(const std::string&)> progress;
};

struct TableReport {
  std::string namespace_name;
  std::string table_name;
  std::string source;             // the table directory
  int generations_found = 0;
  int generations_consumed = 0;   // new this run
  int64_t rows_appended = 0;      // new or changed rows written
  int64_t rows_deleted = 0;       // positions deleted (changed or removed rows)
  int64_t rows_total = 0;         // rows the table shows after the run (in token_ranges, of a part run)
  // The run published part of the ring (MaterializeOptions::token_ranges):
  // rows_total counts that part's rows, not the whole table's.
  bool part_of_ring = false;
  int64_t static_only_partitions = 0;  // partitions with static data only: no row
  int unrepaired_left_out = 0;         // generations (MaterializeOptions::repaired_only)
  int64_t unrepaired_bytes_left_out = 0;  // their Data.db bytes
  int data_files = 0;
  int delete_files = 0;
  int64_t bytes_written = 0;
  bool committed = false;
  bool staged = false;            // MaterializeOptions::stage_dir: staged, for a commit to come
  // Only the rows the new generations touch were folded
  // (MaterializeOptions::fold_touched_rows): from the new generations alone,
  // or, for the reason given, from every facts set at those rows.
  bool folded_touched_rows = false;
  // Nothing was folded: every generation was consumed before and no row
  // has expired since (nor did the schema change).
  bool folded_nothing = false;
  std::string read_kept_facts_because;
  // Why a run with new generations folded every kept one instead, if it did.
  std::string folded_everything_because;
  // How the Iceberg schema followed the Cassandra table's since the last
  // snapshot (schema_evolution.h), one phrase each; empty: unchanged.
  std::vector<std::string> schema_changes;
  int64_t snapshot_id = 0;
  int attempts = 0;
  int64_t now_seconds = 0;
  std::string metadata_location;
  std::string warning;            // e.g. no identifier fields
  std::string message;            // what happened, for people
};

// Refuses what MaterializeTable would refuse before writing anything: SSTables
// that cannot be opened, a column type without an Iceberg form, names the
// catalog cannot hold. OK does not promise the run succeeds (bad values and
// I/O errors are found while writing).
Status CheckTable(FileSystem& fs, const std::string& table_dir, const MaterializeOptions& options);

// Materializes the table at `table_dir` into `catalog`.
Result<TableReport> MaterializeTable(FileSystem& fs, catalog::Catalog& catalog, const std::string& table_dir,
                                     const MaterializeOptions& options);

// The table directories (each holding the SSTables of one table) at or below
// `path`, leaving out Cassandra's own system keyspaces. In a live data
// directory (or a keyspace of one) they include the table directories that
// compaction left without any SSTable, when the data directory's schema has
// the table: an empty table, not a missing one.

Result<std::vector<std::string>> FindTableDirectories(FileSystem& fs, const std::string& path);

// Whether `table_dir` is `<data>/<keyspace>/<table>-<id>` of a Cassandra data
// directory (one with a system or system_schema keyspace): a complete source
// (MaterializeOptions::complete_source).
bool InLiveDataDirectory(FileSystem& fs, const std::string& table_dir);

}  // namespace cqlite::materialize
