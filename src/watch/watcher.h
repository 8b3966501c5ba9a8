// `cqlite watch`: materializes the tables of a live Cassandra data directory
// continuously, as the node flushes and compacts.
//
// The loop: tables are found under the data directory (every user table, or
// those --tables names) and each is locked for this process (table_lock.h).
// Whenever a directory changes (dir_events.h) or the periodic rescan comes,
// each table directory is scanned for complete generations
// (generation_scan.h); a table whose set of generations changed since its
// last run (or whose last run is ten intervals old: TTLs run out) and whose
// last run started at least `interval` ago is run: its generations, and
// what its schema is read from (its keyspace's schema.cql, the data
// directory's system_schema tables), are hard-linked into a staging
// folder (staging.h), `MaterializeTable` folds them as a complete source
// (materializer.h: a compacted-away generation makes the table be folded
// anew, an empty directory is an empty table), and the staging folder is
// removed after the commit. Tables are run at once, up to --threads of
// them (each with a catalog connection of its own), so that a table whose run
// takes long holds none of the others back; the threads folding are shared
// among the runs under way (the first run gets them all, one started while
// others go on its share).
//
// Crashes: a run commits with one catalog swap or not at all, and a
// generation consumed before is recognised by its identity, so a watcher
// killed at any moment and started again loses nothing and applies nothing
// twice; it removes the staging folders a killed one left, and the data
// files of a run killed before its commit (orphans.h). A stop request
// (SIGTERM) lets the current run finish and ends the loop.
//
// A table's failure (a corrupt SSTable, a schema without an Iceberg form, a
// full or read-only warehouse) is logged with the file and place its error
// names, counted, and the table retried after a backoff that doubles from
// `interval` up to 10 minutes; the other tables go on.
//
// Maintenance: every `maintain_every` (from the watcher's start, then from
// the last maintenance), after a run of the table that succeeded, the
// watcher maintains its Iceberg table (maintain/maintainer.h: rewrite,
// expiry, orphans; it holds the table's lock, so no run of its own is
// writing), logging what it did; a failure is logged and retried at the
// next period.
//
// State: one log line per commit, and one when the schema a run resolves
// differs from the one the table's previous run resolved
// (source/schema_change.h: "shop.orders: schema changed: column note
// (text) added"); after every run a status file per table
// (`<warehouse>/.cqlite-watch/status/<keyspace>.<table>.json`, what
// `cqlite watch --status` prints) and, when asked, Prometheus metrics on
// 127.0.0.1 (metrics_server.h).
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "io/file_system.h"
#include "maintain/maintainer.h"
#include "materialize/materializer.h"
#include "util/status.h"

namespace cqlite::watch {

struct WatchOptions {
  std::string data_dir;       // a Cassandra data directory (with keyspace directories)
  std::string catalog_path;   // the catalog's address (catalog::OpenCatalog)
  std::string catalog_name = "cqlite";
  std::vector<std::string> tables;  // "keyspace.table"; empty: every user table
  double interval_seconds = 30;     // least time between two runs of a table
  double rescan_seconds = 10;       // the periodic rescan, inotify or not
  bool use_inotify = true;
  int metrics_port = -1;            // < 0: no /metrics; 0: a free port
  // What each run is given (warehouse, schema file, mapping, threads ...).
  materialize::MaterializeOptions run;
  // Seconds between two maintenances of a table; <= 0: none.
  double maintain_every_seconds = 0;
  maintain::MaintainOptions maintain;
  double orphan_age_seconds = 3 * 86400;  // orphan files younger than this stay
  // The watcher's own directory (table locks, staged SSTables, status
  // files), on the data directory's machine; empty: WatchDirectory(warehouse)
  // (staging.h). An s3:// warehouse needs one.
  std::string state_dir;
  // Where log lines go (one a call, no newline).
  std::function<void(const std::string&)> log;
};

// Runs until `stop` is set (then within a second, or when the current run
// ends). `wake_fd`, if >= 0, is polled with the loop's waits: a signal
// handler writes a byte to it to end them early. Errors only for what stops
// the whole watcher: another process holds a table's lock (Busy, naming the
// pid), the data directory cannot be listed, the catalog or the metrics port
// cannot be opened.
Status RunWatcher(FileSystem& fs, const WatchOptions& options, const std::atomic<bool>& stop, int wake_fd);

// What `cqlite watch --status` prints for the watchers whose directory is
// `watch_dir` (WatchOptions::state_dir, or WatchDirectory(warehouse)): each
// table's status file, and whether a watcher holds the table now. NotFound
// when no watcher ever ran there.
Result<std::string> DescribeStatus(FileSystem& fs, const std::string& watch_dir);

}  // namespace cqlite::watch
