// `cqlite watch <data-dir>`: materializes the tables of a live Cassandra data
// directory continuously (src/watch/watcher.h), until SIGTERM or SIGINT; and
// `cqlite watch --status`, what the watchers of a warehouse last did.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <iostream>
#include <memory>
#include <thread>

#include "catalog/catalog.h"
#include "cli/commands.h"
#include "cli/source_tables.h"
#include "util/strings.h"
#include "watch/staging.h"
#include "watch/watcher.h"

namespace cqlite {

namespace {

std::atomic<bool> stop_requested{false};
int wake_pipe[2] = {-1, -1};

void OnStopSignal(int) {
  stop_requested = true;
  if (wake_pipe[1] >= 0) {
    char byte = 1;
    ssize_t ignored = ::write(wake_pipe[1], &byte, 1);
    (void)ignored;
  }
}

struct WatchCommandOptions {
  std::string data_dir;
  std::string warehouse = "warehouse";
  std::string state_dir;
  std::string catalog;
  std::string catalog_name;  // CatalogName
  std::string tables;
  std::string schema_file;
  double interval = 30;
  double rescan = 10;
  int metrics_port = -1;
  bool status = false;
  bool no_inotify = false;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  int32_t decimal_scale = 18;
  bool truncate_time = false;
  std::string time_as;  // empty: not given
  int64_t maintain_every = 86400;  // seconds; 0: never
  int64_t expire_older_than = 7 * 86400;
  int retain_last = 5;
};

int Watch(const WatchCommandOptions& options) {
  std::string warehouse = WarehousePath(options.warehouse);
  auto fail = [](const Status& status) {
    std::cout.flush();
    std::cerr << "cqlite watch: " << status.ToString() << "\n";
    return 1;
  };
  // The watcher's table locks (flock) and the SSTables it stages (hard links)
  // must be on the data directory's machine: not in an s3:// warehouse.
  const bool s3_warehouse = StartsWith(warehouse, "s3://");
  if (s3_warehouse && options.state_dir.empty()) {
    return fail(Status::InvalidArgument(StrCat("--warehouse ", warehouse, ": an s3:// warehouse needs --state-dir, "
                                               "a directory on the data directory's file system")));
  }
  const std::string state_dir = options.state_dir.empty() ? watch::WatchDirectory(warehouse)
                                                          : AbsolutePath(options.state_dir);
  auto warehouse_fs = WarehouseFileSystem(warehouse);
  if (!warehouse_fs.ok()) return fail(warehouse_fs.status().WithContext(StrCat("--warehouse ", warehouse)));
  FileSystem& fs = **warehouse_fs;
  if (options.status) {
    auto text = watch::DescribeStatus(fs, state_dir);
    if (!text.ok()) return fail(text.status());
    std::cout << *text;
    return 0;
  }
  if (options.data_dir.empty()) return fail(Status::InvalidArgument("give the Cassandra data directory to watch"));
  if (s3_warehouse && options.catalog.empty()) {
    return fail(Status::InvalidArgument(StrCat("--warehouse ", warehouse, ": an s3:// warehouse needs --catalog")));
  }
  watch::WatchOptions watch;
  watch.data_dir = AbsolutePath(options.data_dir);
  watch.catalog_path = CatalogAddress(options.catalog, warehouse);
  auto catalog_name = CatalogName(options.catalog_name, watch.catalog_path);
  if (!catalog_name.ok()) return fail(catalog_name.status());
  watch.catalog_name = *catalog_name;
  auto only = ParseTableList(options.tables);
  if (!only.ok()) return fail(only.status());
  watch.tables.assign(only->begin(), only->end());
  watch.interval_seconds = options.interval;
  watch.rescan_seconds = std::min(options.rescan, std::max(options.interval, 0.5));
  watch.use_inotify = !options.no_inotify;
  watch.metrics_port = options.metrics_port;
  watch.run.warehouse = warehouse;
  watch.state_dir = state_dir;
  watch.run.schema_file = options.schema_file.empty() ? "" : AbsolutePath(options.schema_file);
  watch.run.mapping.decimal_scale = options.decimal_scale;
  watch.run.mapping.truncate_time = options.truncate_time;
  if (!options.time_as.empty()) {
    watch.run.mapping.time_as = *materialize::ParseTimeAs(options.time_as);  // checked by the option
    watch.run.mapping.time_as_given = true;
  }
  watch.run.threads = options.threads;
  watch.maintain_every_seconds = static_cast<double>(options.maintain_every);
  watch.maintain.retention_ms = options.expire_older_than * 1000;
  watch.maintain.retain_last = options.retain_last;
  watch.log = [](const std::string& line) { std::cout << line << std::endl; };
  if (Status s = fs.CreateDirectories(warehouse); !s.ok()) return fail(s.WithContext("cannot create the warehouse"));

  if (::pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return fail(Status::IOError("cannot make a pipe"));
  struct sigaction action {};
  action.sa_handler = OnStopSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a wait ends at once
  ::sigaction(SIGTERM, &action, nullptr);
  ::sigaction(SIGINT, &action, nullptr);
  Status status = watch::RunWatcher(fs, watch, stop_requested, wake_pipe[0]);
  if (!status.ok()) return fail(status);
  return 0;
}

}  // namespace

CommandRunner AddWatchCommand(CLI::App& app) {
  auto options = std::make_shared<WatchCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "watch",
      "Materialize the tables of a live Cassandra data directory continuously, as the node flushes and compacts.\n"
      "A long-running process: it notices new SSTable generations (inotify, and a periodic rescan), reads only "
      "complete ones (TOC.txt written, no unfinished transaction log adding them, no tmp- files), hard-links "
      "them into a staging folder in the warehouse (so compaction may delete the originals meanwhile) and "
      "commits each table at most once per --interval, as `cqlite materialize` would. Killed at any moment "
      "(SIGKILL), it starts again with nothing lost or applied twice; SIGTERM or SIGINT lets the current run "
      "finish and exits 0. One watcher per warehouse table: a second says which process holds it and exits 1. "
      "A failing table (corrupt SSTable, unmappable schema, full warehouse) is logged and retried with backoff "
      "while the others go on.\n"
      "State: one log line per commit on stdout; `cqlite watch --status --warehouse W`; with --metrics-port, "
      "Prometheus metrics at http://127.0.0.1:<port>/metrics.\n"
      "Under systemd: a Type=simple service running `cqlite watch /var/lib/cassandra/data --warehouse "
      "/srv/iceberg` as the cassandra user (hard links need the same file system and the right to read the "
      "SSTables), Restart=on-failure, KillSignal=SIGTERM; README.md and docs/watch.md show a unit file.");
  cmd->add_option("data-dir", options->data_dir,
                  "The Cassandra data directory (data_file_directories: the folder of the keyspace folders)");
  cmd->add_option("--warehouse", options->warehouse, kWarehouseHelp)->capture_default_str();
  cmd->add_option("--state-dir", options->state_dir,
                  "The watcher's own directory: table locks, staged SSTables (hard links) and status files, on the "
                  "data directory's file system (default: <warehouse>/.cqlite-watch; needed with an s3:// "
                  "warehouse; give it to --status too)");
  cmd->add_option("--catalog", options->catalog, kCatalogHelp);
  cmd->add_option("--catalog-name", options->catalog_name, kCatalogNameHelp);
  cmd->add_option("--tables", options->tables,
                  "keyspace.table,... to watch (default: every table outside Cassandra's system keyspaces)");
  cmd->add_option("--interval", options->interval, "Least seconds between two runs of one table")
      ->check(CLI::Range(0.1, 86400.0))
      ->capture_default_str();
  cmd->add_option("--rescan", options->rescan,
                  "Seconds between rescans of the data directory when no change notice comes")
      ->check(CLI::Range(0.1, 3600.0))
      ->capture_default_str();
  cmd->add_flag("--no-inotify", options->no_inotify, "Rescan only; no change notices");
  cmd->add_option("--metrics-port", options->metrics_port,
                  "Serve Prometheus metrics on 127.0.0.1:<port>/metrics (0: a free port, logged)")
      ->check(CLI::Range(0, 65535));
  cmd->add_flag("--status", options->status,
                "Print what the watchers of --warehouse last did, table by table, and exit");
  cmd->add_option("--schema", options->schema_file,
                  "A CQL file with the tables' CREATE TABLE (and CREATE TYPE) statements; default as for dump "
                  "(a table's or its keyspace's schema.cql, else the data directory's system_schema tables)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--threads", options->threads,
                  "Tables run at once, and threads folding and writing them: the first run under way gets them all, "
                  "a run started while others go on its share")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cmd->add_option("--maintain-every", options->maintain_every,
                  "Maintain each table this often (as `cqlite maintain` with its default thresholds): rewrite data "
                  "files with many deleted rows or few rows, expire snapshots, remove orphan files; 0: never "
                  "(default 1d)")
      ->transform(DurationOption());
  cmd->add_option("--expire-older-than", options->expire_older_than,
                  "Snapshots older than this expire at maintenance (default 7d)")
      ->transform(DurationOption());
  cmd->add_option("--retain-last", options->retain_last, "Snapshots kept at maintenance however old")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--decimal-scale", options->decimal_scale,
                  "Scale of the Iceberg decimal(38, s) that CQL decimals map to (as for materialize)")
      ->check(CLI::Range(0, 38))
      ->capture_default_str();
  cmd->add_flag("--truncate-time", options->truncate_time,
                "Drop the sub-microsecond digits of CQL time values instead of failing the run");
  cmd->add_option("--time-as", options->time_as, kTimeAsHelp)->check(CLI::IsMember({"time", "long", "string"}));
  return [options] { return Watch(*options); };
}

}  // namespace cqlite
