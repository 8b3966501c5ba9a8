#include "watch/watcher.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "catalog/catalog.h"
#include "source/schema_change.h"
#include "cassandra/sstable.h"
#include "source/table_sstables.h"
#include "util/json_writer.h"
#include "util/strings.h"
#include "util/time_format.h"
#include "watch/dir_events.h"
#include "watch/generation_scan.h"
#include "watch/metrics_server.h"
#include "watch/orphans.h"
#include "watch/staging.h"
#include "watch/table_lock.h"

namespace cqlite::watch {

namespace {

// The longest backoff after failures, and how many intervals an unchanged
// table waits before a run that only commits rows whose TTL ran out.
constexpr double kMaxBackoffSeconds = 600;
constexpr double kUnchangedRunIntervals = 10;
// How often a run is tried again at once when compaction removed a file
// between the scan and its staging.
constexpr int kStagingRescans = 3;

// The file's modification time, or 0 where there is none.
double ModifiedOrZero(FileSystem& fs, const std::string& path) {
  auto t = fs.ModifiedTime(path);
  return t.ok() ? *t : 0;
}

double WallClock() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string Iso(double seconds) {
  if (seconds <= 0) return "never";
  auto whole = static_cast<int64_t>(std::floor(seconds));
  std::string text = FormatInstant(whole, static_cast<int32_t>((seconds - whole) * 1000) * 1000000);
  return text;
}

std::string Seconds(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.3f", value);
  return buffer;
}

std::string Field(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) return "";
  const nlohmann::json& v = j[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number()) return Seconds(v.get<double>());
  return "";
}

double Number(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return 0;
  return j[key].get<double>();
}

bool IsSystemKeyspace(const std::string& name) { return name == "system" || StartsWith(name, "system_"); }

struct TableWatch {
  std::string keyspace;
  std::string table;
  std::string key;         // keyspace.table
  std::string source_dir;  // the live table directory
  std::unique_ptr<TableLock> lock;
  std::string signature;   // the generations of the last run that succeeded
  // The schema the last run resolved (from the staged sources, as the run
  // does), to log a change at the next.
  std::optional<TableSchema> schema;
  bool ran = false;        // a run succeeded since the start
  double last_run = 0;     // when the last run started
  double retry_at = 0;     // after a failure: not before
  int consecutive_failures = 0;
  double maintain_at = 0;  // when the next maintenance is due (after a run that succeeds)
  // The Iceberg table the runs commit to, once one has.
  std::string namespace_name, table_name;
  // What the status file and /metrics show.
  int64_t commits = 0;
  int64_t failures = 0;
  int64_t generations_consumed = 0;
  int64_t rows = 0;
  int64_t snapshot_id = 0;
  int64_t generations_live = 0;
  int64_t generations_pending = 0;  // complete generations the last run did not see
  double last_commit = 0;
  double newest_flush = 0;  // the newest Data.db of the last run that committed
  double lag = -1;          // last_commit - newest_flush
  std::string last_error;
  std::string last_message;
};

class Watcher {
 public:
  Watcher(FileSystem& fs, const WatchOptions& options) : fs_(fs), options_(options) {}
  ~Watcher() {
    JoinFinished(true);
    for (int fd : wake_pipe_) {
      if (fd >= 0) ::close(fd);
    }
  }

  Status Run(const std::atomic<bool>& stop, int wake_fd);

 private:
  void Log(const std::string& line) const {
    std::lock_guard<std::mutex> lock(log_mu_);
    if (options_.log) options_.log(StrCat(Iso(WallClock()), " ", line));
  }
  // Whether `what` is reported for the first time (messages logged once).
  bool FirstReport(const std::string& what) {
    std::lock_guard<std::mutex> lock(report_mu_);
    return reported_.insert(what).second;
  }
  std::string WatchDir() const {
    return options_.state_dir.empty() ? WatchDirectory(options_.run.warehouse) : options_.state_dir;
  }
  std::string StatusPath(const TableWatch& t) const {
    return JoinPath(JoinPath(WatchDir(), "status"), t.key + ".json");
  }
  std::string StageRoot(const TableWatch& t) const { return JoinPath(JoinPath(WatchDir(), "staging"), t.key); }

  Status Discover(bool at_start);
  // On the loop's thread: whether `t` is to be run now, with what its
  // directory holds (or the error scanning it gave).
  std::optional<Result<TableDirectoryScan>> Check(TableWatch& t);
  // On a run's own thread: the run of `t` (with `threads` threads folding),
  // its outcome recorded and, when due, the table maintained.
  void RunTable(TableWatch& t, Result<TableDirectoryScan> scan, int threads, const std::atomic<bool>& stop);
  Status Attempt(TableWatch& t, catalog::Catalog& catalog, TableDirectoryScan scan, int threads);
  // Logs how the schema of `t`'s staged table directory differs from the
  // one its previous run resolved, and keeps it.
  void NoteSchema(TableWatch& t, const std::string& staged);
  void Maintain(TableWatch& t, catalog::Catalog& catalog);
  // Starts the runs due, at most max(1, --threads) at once; joins those done.
  void Dispatch(const std::atomic<bool>& stop);
  void JoinFinished(bool all);
  void WriteStatus(const TableWatch& t);
  std::string Metrics();
  // When the loop must look at `t` again without a notice.
  double DueAt(const TableWatch& t) const;

  FileSystem& fs_;
  const WatchOptions& options_;
  std::unique_ptr<catalog::Catalog> catalog_;  // the loop's own (runs open theirs)
  std::unique_ptr<DirectoryEvents> events_;
  // Guards tables_ against the metrics thread, and `running_` between the
  // loop and the runs. A table's fields are written by the loop while no run
  // of it is under way, and by its run while one is.
  std::mutex mu_;
  std::map<std::string, TableWatch> tables_;  // never erased: runs hold references
  struct RunningTable {
    std::thread thread;
    bool done = false;  // under mu_
  };
  std::map<std::string, RunningTable> running_;
  int wake_pipe_[2] = {-1, -1};  // a run that ends writes a byte, to wake the loop
  mutable std::mutex log_mu_;
  std::mutex report_mu_;
  std::set<std::string> reported_;  // messages logged once (busy locks, missing tables)
};

Status Watcher::Discover(bool at_start) {
  std::set<std::string> wanted(options_.tables.begin(), options_.tables.end());
  ASSIGN_OR_RETURN(std::vector<DirectoryEntry> keyspaces, fs_.ListDirectory(options_.data_dir));
  if (events_) (void)events_->Watch(options_.data_dir);
  std::map<std::string, std::vector<std::string>> found;  // keyspace.table -> its directories
  for (const DirectoryEntry& ks : keyspaces) {
    if (!ks.is_directory || IsSystemKeyspace(ks.name)) continue;
    std::string ks_dir = JoinPath(options_.data_dir, ks.name);
    auto entries = fs_.ListDirectory(ks_dir);
    if (!entries.ok()) continue;  // dropped meanwhile
    if (events_) (void)events_->Watch(ks_dir);
    for (const DirectoryEntry& e : *entries) {
      if (!e.is_directory) continue;
      std::string dir = JoinPath(ks_dir, e.name);
      std::optional<SSTableLocation> location = TableDirectoryLocation(dir);
      if (!location) continue;
      std::string key = StrCat(ks.name, ".", location->table);
      if (!wanted.empty() && !wanted.count(key)) continue;
      found[key].push_back(dir);
    }
  }
  for (const std::string& key : wanted) {
    if (!found.count(key) && FirstReport("missing " + key)) {
      Log(StrCat(key, ": no table directory in ", options_.data_dir, " yet; watching for it"));
    }
  }
  for (auto& [key, dirs] : found) {
    // A dropped and made again table leaves its old directory: the live one
    // is the one Cassandra changed last.
    std::string dir = dirs.front();
    double newest = -1;
    for (const std::string& d : dirs) {
      double t = ModifiedOrZero(fs_, d);
      if (t > newest) {
        newest = t;
        dir = d;
      }
    }
    std::lock_guard<std::mutex> lock(mu_);
    auto it = tables_.find(key);
    if (it != tables_.end()) {
      if (running_.count(key)) continue;  // the run reads it; the next Discover updates it
      it->second.source_dir = dir;
      if (events_) (void)events_->Watch(dir);
      continue;
    }
    TableWatch t;
    size_t dot = key.find('.');
    t.keyspace = key.substr(0, dot);
    t.table = key.substr(dot + 1);
    t.key = key;
    t.source_dir = dir;
    RETURN_IF_ERROR(fs_.CreateDirectories(JoinPath(WatchDir(), "locks")));
    auto taken = TableLock::Acquire(TableLockPathIn(WatchDir(), key));
    if (!taken.ok()) {
      if (at_start) return taken.status().WithContext(key);
      if (FirstReport("lock " + key)) Log(StrCat(key, ": not watched: ", taken.status().ToString()));
      continue;
    }
    t.lock = std::move(*taken);
    t.maintain_at = WallClock() + options_.maintain_every_seconds;
    // The totals and the last commit a previous watcher of the table wrote.
    if (auto text = fs_.ReadFileToString(StatusPath(t)); text.ok()) {
      nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
      t.last_commit = Number(j, "last_commit");
      t.snapshot_id = static_cast<int64_t>(Number(j, "snapshot_id"));
      t.commits = static_cast<int64_t>(Number(j, "commits"));
      t.failures = static_cast<int64_t>(Number(j, "failures"));
      t.generations_consumed = static_cast<int64_t>(Number(j, "generations_consumed"));
      t.rows = static_cast<int64_t>(Number(j, "rows"));
      t.lag = j.is_object() && j.contains("lag_seconds") ? Number(j, "lag_seconds") : -1;
    }
    // What a killed watcher left: its staging links, and the data files of
    // a run killed before its commit.
    RETURN_IF_ERROR(RemoveTree(fs_, StageRoot(t)));
    auto swept = RemoveUnreferencedDataFiles(fs_, *catalog_, t.keyspace, t.table);
    if (!swept.ok()) {
      Log(StrCat(key, ": cannot look for unreferenced data files: ", swept.status().ToString()));
    } else if (*swept > 0) {
      Log(StrCat(key, ": removed ", *swept, " data file(s) of a run killed before its commit"));
    }
    if (events_) (void)events_->Watch(dir);
    Log(StrCat(key, ": watching ", dir));
    tables_.emplace(key, std::move(t));
  }
  return Status::OK();
}

void Watcher::NoteSchema(TableWatch& t, const std::string& staged) {
  // What the run resolves too; when that fails, the run says why.
  auto opened = OpenTableSSTables(fs_, staged, options_.run.schema_file);
  if (!opened.ok()) return;
  TableSchema& schema = opened->schema.table;
  if (t.schema) {
    std::string change = DescribeSchemaChange(*t.schema, schema);
    if (!change.empty()) Log(StrCat(t.key, ": schema changed: ", change));
  }
  t.schema = std::move(schema);
}

Status Watcher::Attempt(TableWatch& t, catalog::Catalog& catalog, TableDirectoryScan scan, int threads) {
  std::string stage_root = StageRoot(t);
  std::string staged = JoinPath(JoinPath(stage_root, t.keyspace), BaseName(t.source_dir));
  for (int rescans = 0;; ++rescans) {
    RETURN_IF_ERROR(RemoveTree(fs_, stage_root));
    Status s = StageGenerations(fs_, t.source_dir, scan.complete, staged);
    // --schema is read where it is; other schema sources are staged beside
    // the table, where the run looks for them.
    if (s.ok() && options_.run.schema_file.empty()) s = StageSchemaSources(fs_, t.source_dir, stage_root);
    if (s.ok()) break;
    (void)RemoveTree(fs_, stage_root);
    if (s.kind() != StatusKind::kNotFound || rescans == kStagingRescans) return s;
    ASSIGN_OR_RETURN(scan, ScanTableDirectory(fs_, t.source_dir));
  }
  NoteSchema(t, staged);
  std::vector<std::string> prefixes;
  double newest = 0;
  for (const GenerationFiles& g : scan.complete) {
    prefixes.push_back(g.prefix);
    newest = std::max(newest, ModifiedOrZero(fs_, JoinPath(staged, g.prefix + "Data.db")));
  }
  materialize::MaterializeOptions run = options_.run;
  run.complete_source = true;
  run.source_path = t.source_dir;
  run.threads = threads;
  run.progress = nullptr;
  auto report = materialize::MaterializeTable(fs_, catalog, staged, run);
  Status removed = RemoveTree(fs_, stage_root);
  if (!report.ok()) {
    // The run read links (staged, or kept as facts) under the warehouse:
    // name the table directory's file too.
    const std::string& message = report.status().message();
    for (const GenerationFiles& g : scan.complete) {
      for (const std::string& name : g.files) {
        std::string live = JoinPath(t.source_dir, name);
        if (message.find("/" + name) != std::string::npos && message.find(live) == std::string::npos) {
          return report.status().WithContext(StrCat(live, " (read through a link)"));
        }
      }
    }
    return report.status();
  }
  double now = WallClock();
  {
    std::lock_guard<std::mutex> lock(mu_);
    t.signature = Join(prefixes, ",");
    t.ran = true;
    t.rows = report->rows_total;
    t.generations_live = static_cast<int64_t>(prefixes.size());
    t.generations_pending = 0;
    t.last_message = report->message;
    t.last_error.clear();
    t.namespace_name = report->namespace_name;
    t.table_name = report->table_name;
    if (report->committed) {
      t.commits++;
      t.generations_consumed += report->generations_consumed;
      t.snapshot_id = report->snapshot_id;
      t.last_commit = now;
      if (newest > 0 && report->generations_consumed > 0) {
        t.newest_flush = newest;
        t.lag = std::max(0.0, now - newest);
      }
    }
  }
  if (report->committed) {
    Log(StrCat(t.key, ": ", report->message, "; ", report->generations_consumed, " generation(s) consumed of ",
               report->generations_found, "; rows ", report->rows_appended, " written, ", report->rows_deleted,
               " deleted, ", report->rows_total, " in the table; ",
               report->generations_consumed > 0 ? StrCat("lag ", Seconds(t.lag), " s; ") : std::string(),
               Seconds(now - t.last_run), " s"));
  }
  if (!report->warning.empty() && FirstReport("warning " + t.key + report->warning)) {
    Log(StrCat(t.key, ": warning: ", report->warning));
  }
  if (!removed.ok()) Log(StrCat(t.key, ": ", removed.ToString()));
  return Status::OK();
}

double Watcher::DueAt(const TableWatch& t) const {
  if (t.consecutive_failures > 0) return t.retry_at;
  if (t.ran && t.generations_pending == 0) return t.last_run + options_.interval_seconds * kUnchangedRunIntervals;
  return t.last_run + options_.interval_seconds;
}

std::optional<Result<TableDirectoryScan>> Watcher::Check(TableWatch& t) {
  double now = WallClock();
  if (now < t.retry_at) return std::nullopt;
  auto scan = ScanTableDirectory(fs_, t.source_dir);
  if (!scan.ok()) {
    t.last_run = now;
    return std::optional<Result<TableDirectoryScan>>(scan.status());
  }
  std::vector<std::string> prefixes;
  for (const GenerationFiles& g : scan->complete) prefixes.push_back(g.prefix);
  std::string signature = Join(prefixes, ",");
  std::set<std::string> seen;
  for (const std::string& p : Split(t.signature, ',')) seen.insert(p);
  {
    std::lock_guard<std::mutex> lock(mu_);
    t.generations_live = static_cast<int64_t>(prefixes.size());
    t.generations_pending =
        std::count_if(prefixes.begin(), prefixes.end(), [&](const std::string& p) { return !seen.count(p); });
    if (t.ran && signature != t.signature && t.generations_pending == 0) t.generations_pending = 1;  // removals
  }
  bool changed = !t.ran || signature != t.signature;
  if (!changed && t.consecutive_failures == 0 &&
      now - t.last_run < options_.interval_seconds * kUnchangedRunIntervals) {
    return std::nullopt;
  }
  if (now - t.last_run < options_.interval_seconds) return std::nullopt;
  t.last_run = now;
  return std::optional<Result<TableDirectoryScan>>(std::move(scan));
}

void Watcher::RunTable(TableWatch& t, Result<TableDirectoryScan> scan, int threads, const std::atomic<bool>& stop) {
  // A catalog of the run's own: runs of other tables commit at the same time.
  auto catalog = catalog::OpenCatalog(options_.catalog_path, options_.catalog_name, true);
  Status status = !scan.ok()      ? scan.status()
                  : !catalog.ok() ? catalog.status().WithContext("cannot open the catalog")
                                  : Attempt(t, **catalog, std::move(*scan), threads);
  if (status.ok()) {
    t.consecutive_failures = 0;
    t.retry_at = 0;
    if (options_.maintain_every_seconds > 0 && WallClock() >= t.maintain_at && !stop) Maintain(t, **catalog);
  } else {
    std::lock_guard<std::mutex> lock(mu_);
    t.failures++;
    t.consecutive_failures++;
    double backoff = std::min(kMaxBackoffSeconds,
                              options_.interval_seconds * std::pow(2.0, std::min(t.consecutive_failures - 1, 20)));
    t.retry_at = WallClock() + backoff;
    t.last_error = status.ToString();
    const char* outcome = status.kind() == StatusKind::kCommitUnknown ? "perhaps committed" : "nothing committed";
    Log(StrCat(t.key, ": run failed, ", outcome, ": ", t.last_error, " (failure ", t.consecutive_failures,
               " in a row; retrying in ", Seconds(backoff), " s)"));
  }
  WriteStatus(t);
}

void Watcher::Dispatch(const std::atomic<bool>& stop) {
  const int most = std::max(1, options_.run.threads);
  for (auto& [key, t] : tables_) {
    if (stop) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (static_cast<int>(running_.size()) >= most) return;
      if (running_.count(key)) continue;
    }
    std::optional<Result<TableDirectoryScan>> scan = Check(t);
    if (!scan) continue;
    std::lock_guard<std::mutex> lock(mu_);
    // The threads folding are shared among the runs under way: the first
    // gets them all, and each run started while others go on its share.
    const int threads = std::max(1, options_.run.threads / static_cast<int>(running_.size() + 1));
    RunningTable& run = running_[key];
    TableWatch* table = &t;
    run.thread = std::thread([this, table, threads, &stop, scan = std::move(*scan)]() mutable {
      RunTable(*table, std::move(scan), threads, stop);
      std::lock_guard<std::mutex> lock(mu_);
      running_[table->key].done = true;
      if (wake_pipe_[1] >= 0) (void)!::write(wake_pipe_[1], "x", 1);
    });
  }
}

void Watcher::JoinFinished(bool all) {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = running_.begin(); it != running_.end();) {
      if (!all && !it->second.done) {
        ++it;
        continue;
      }
      threads.push_back(std::move(it->second.thread));
      // A run not done yet still marks its entry: it goes once joined.
      it = it->second.done ? running_.erase(it) : std::next(it);
    }
  }
  for (std::thread& thread : threads) thread.join();
  if (all) {
    std::lock_guard<std::mutex> lock(mu_);
    running_.clear();
  }
}

void Watcher::Maintain(TableWatch& t, catalog::Catalog& catalog) {
  t.maintain_at = WallClock() + options_.maintain_every_seconds;
  if (t.table_name.empty()) return;  // no table yet
  const double start = WallClock();
  maintain::MaintainReport report;
  Status status = maintain::MaintainTable(fs_, catalog, t.namespace_name, t.table_name, options_.maintain, &report);
  if (status.ok()) {
    status = maintain::RemoveTableOrphans(fs_, catalog, t.namespace_name, t.table_name,
                                          WallClock() - options_.orphan_age_seconds, &report);
  }
  if (!status.ok()) {
    Log(StrCat(t.key, ": maintenance failed (retried in ", Seconds(options_.maintain_every_seconds),
               " s): ", status.ToString()));
    return;
  }
  Log(StrCat(t.key, ": maintained: ", report.rewrite.data_files_rewritten, " data file(s) rewritten into ",
             report.rewrite.data_files_written, ", ", report.rewrite.delete_files_written,
             " delete file(s) merged; ", report.snapshots_expired, " snapshot(s) expired, ", report.files_removed,
             " of their files and ", report.orphans_removed, " orphan(s) removed; ", Seconds(WallClock() - start),
             " s"));
}

void Watcher::WriteStatus(const TableWatch& t) {
  std::ostringstream out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    JsonWriter w(out, 2);
    w.BeginObject();
    w.Key("table"); w.String(t.key);
    w.Key("source"); w.String(t.source_dir);
    w.Key("pid"); w.Int(static_cast<int64_t>(::getpid()));
    w.Key("updated"); w.Raw(Seconds(WallClock()));
    w.Key("last_commit"); w.Raw(Seconds(t.last_commit));
    w.Key("snapshot_id"); w.Int(t.snapshot_id);
    w.Key("commits"); w.Int(t.commits);
    w.Key("generations_consumed"); w.Int(t.generations_consumed);
    w.Key("generations_live"); w.Int(t.generations_live);
    w.Key("generations_pending"); w.Int(t.generations_pending);
    w.Key("rows"); w.Int(t.rows);
    w.Key("lag_seconds"); w.Raw(Seconds(t.lag));
    w.Key("failures"); w.Int(t.failures);
    w.Key("consecutive_failures"); w.Int(t.consecutive_failures);
    w.Key("retry_at"); w.Raw(Seconds(t.retry_at));
    w.Key("last_error"); w.String(t.last_error);
    w.Key("last_message"); w.String(t.last_message);
    w.EndObject();
  }
  out << "\n";
  std::string dir = JoinPath(WatchDir(), "status");
  std::string path = StatusPath(t);
  Status s = fs_.CreateDirectories(dir);
  if (s.ok()) s = fs_.WriteStringToFile(path + ".tmp", out.str());
  if (s.ok()) s = fs_.Rename(path + ".tmp", path);
  if (!s.ok() && FirstReport("status " + s.message())) {
    Log(StrCat(t.key, ": cannot write the status file: ", s.ToString()));
  }
}

std::string Watcher::Metrics() {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out;
  auto family = [&](const char* name, const char* type, const char* help, auto value) {
    out += StrCat("# HELP ", name, " ", help, "\n# TYPE ", name, " ", type, "\n");
    for (const auto& [key, t] : tables_) {
      std::string escaped;
      for (char c : key) {
        if (c == '\\' || c == '"') escaped.push_back('\\');
        escaped.push_back(c == '\n' ? 'n' : c);
      }
      out += StrCat(name, "{table=\"", escaped, "\"} ", value(t), "\n");
    }
  };
  family("cqlite_watch_last_commit_timestamp_seconds", "gauge",
         "When the table's last snapshot was committed (Unix seconds; 0: none yet).",
         [](const TableWatch& t) { return Seconds(t.last_commit); });
  family("cqlite_watch_lag_seconds", "gauge",
         "Seconds between the newest SSTable generation (flush or compaction output) of the last commit and "
         "that commit; -1 before the first.",
         [](const TableWatch& t) { return Seconds(t.lag); });
  family("cqlite_watch_newest_generation_timestamp_seconds", "gauge",
         "When the newest generation of the last commit was written (its Data.db's modification time).",
         [](const TableWatch& t) { return Seconds(t.newest_flush); });
  family("cqlite_watch_generations_consumed_total", "counter", "Generations consumed by the watcher's commits.",
         [](const TableWatch& t) { return std::to_string(t.generations_consumed); });
  family("cqlite_watch_generations_pending", "gauge",
         "Complete generations in the table directory that no run has read yet.",
         [](const TableWatch& t) { return std::to_string(t.generations_pending); });
  family("cqlite_watch_rows", "gauge", "Rows the Iceberg table shows after the last run.",
         [](const TableWatch& t) { return std::to_string(t.rows); });
  family("cqlite_watch_commits_total", "counter", "Snapshots the watcher committed.",
         [](const TableWatch& t) { return std::to_string(t.commits); });
  family("cqlite_watch_failures_total", "counter", "Runs that failed (nothing committed).",
         [](const TableWatch& t) { return std::to_string(t.failures); });
  family("cqlite_watch_last_snapshot_id", "gauge", "The snapshot id of the last commit.",
         [](const TableWatch& t) { return std::to_string(t.snapshot_id); });
  return out;
}

Status Watcher::Run(const std::atomic<bool>& stop, int wake_fd) {
  if (!fs_.IsDirectory(options_.data_dir)) {
    return Status::NotFound(StrCat(options_.data_dir, ": not a directory; give a Cassandra data directory"));
  }
  RETURN_IF_ERROR(fs_.CreateDirectories(WatchDir()).WithContext("cannot create the watcher's directory"));
  if (options_.use_inotify) {
    auto events = DirectoryEvents::Open();
    if (events.ok()) {
      events_ = std::move(*events);
    } else {
      Log(StrCat("no directory notices (", events.status().message(), "); rescanning every ",
                 Seconds(options_.rescan_seconds), " s"));
    }
  }
  ASSIGN_OR_RETURN(catalog_, catalog::OpenCatalog(options_.catalog_path, options_.catalog_name, true));
  if (::pipe2(wake_pipe_, O_NONBLOCK | O_CLOEXEC) != 0) return Status::IOError("cannot make a pipe");
  RETURN_IF_ERROR(Discover(true));
  std::unique_ptr<MetricsServer> metrics;
  if (options_.metrics_port >= 0) {
    ASSIGN_OR_RETURN(metrics, MetricsServer::Start(options_.metrics_port, [this] { return Metrics(); }));
    Log(StrCat("metrics on http://127.0.0.1:", metrics->port(), "/metrics"));
  }
  Log(StrCat("watching ", options_.data_dir, " (", tables_.size(), " table(s)), interval ",
             Seconds(options_.interval_seconds), " s, warehouse ", options_.run.warehouse));
  double next_discovery = WallClock() + options_.rescan_seconds;
  while (!stop) {
    JoinFinished(false);
    Dispatch(stop);
    if (stop) break;
    double now = WallClock();
    double wake = next_discovery;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const auto& [key, t] : tables_) {
        if (!running_.count(key)) wake = std::min(wake, DueAt(t));  // a run's end wakes the loop
      }
    }
    int timeout_ms = static_cast<int>(std::clamp(wake - now, 0.05, options_.rescan_seconds) * 1000);
    pollfd fds[3];
    int n = 0;
    int events_at = -1, runs_at = -1;
    if (events_) {
      events_at = n;
      fds[n++] = {events_->fd(), POLLIN, 0};
    }
    runs_at = n;
    fds[n++] = {wake_pipe_[0], POLLIN, 0};
    if (wake_fd >= 0) fds[n++] = {wake_fd, POLLIN, 0};
    int ready = ::poll(fds, n, timeout_ms);
    if (ready > 0 && (fds[runs_at].revents & POLLIN)) {
      char drained[64];
      while (::read(wake_pipe_[0], drained, sizeof(drained)) > 0) {
      }
    }
    if (ready > 0 && events_at >= 0 && (fds[events_at].revents & POLLIN)) {
      // A flush or compaction writes many files at once: let them settle.
      ::poll(nullptr, 0, 200);
      events_->Drain();
    }
    if (WallClock() >= next_discovery || ready > 0) {
      if (Status s = Discover(false); !s.ok() && FirstReport("discover " + s.message())) {
        Log(StrCat("cannot list the data directory: ", s.ToString()));
      }
      next_discovery = WallClock() + options_.rescan_seconds;
    }
  }
  Log("stopping: waiting for the runs under way");
  JoinFinished(true);
  Log("stopping: no run under way; exiting");
  return Status::OK();
}

}  // namespace

Status RunWatcher(FileSystem& fs, const WatchOptions& options, const std::atomic<bool>& stop, int wake_fd) {
  Watcher watcher(fs, options);
  return watcher.Run(stop, wake_fd);
}

Result<std::string> DescribeStatus(FileSystem& fs, const std::string& watch_dir) {
  std::string dir = JoinPath(watch_dir, "status");
  if (!fs.IsDirectory(dir)) return Status::NotFound(StrCat(watch_dir, ": no watcher has run with this directory"));
  ASSIGN_OR_RETURN(std::vector<DirectoryEntry> entries, fs.ListDirectory(dir));
  std::string out;
  double now = WallClock();
  for (const DirectoryEntry& e : entries) {
    if (e.is_directory || !EndsWith(e.name, ".json")) continue;
    std::string path = JoinPath(dir, e.name);
    auto text = fs.ReadFileToString(path);
    if (!text.ok()) continue;
    nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      out += StrCat(e.name, ": unreadable status file ", path, "\n");
      continue;
    }
    std::string key = Field(j, "table");
    TableLock::Holder holder = TableLock::Probe(TableLockPathIn(watch_dir, key));
    double last_commit = Number(j, "last_commit");
    out += StrCat(key, ": ", holder.held ? StrCat("watched by process ", holder.pid) : std::string("not watched"),
                  "\n  source: ", Field(j, "source"), "\n  last commit: ", Iso(last_commit));
    if (last_commit > 0) out += StrCat(" (", Seconds(now - last_commit), " s ago), snapshot ", Field(j, "snapshot_id"));
    out += StrCat("\n  generations: ", Field(j, "generations_consumed"), " consumed, ", Field(j, "generations_live"),
                  " live, ", Field(j, "generations_pending"), " pending; rows: ", Field(j, "rows"),
                  "; lag: ", Field(j, "lag_seconds"), " s; commits: ", Field(j, "commits"),
                  "; failures: ", Field(j, "failures"), "\n");
    if (!Field(j, "last_error").empty()) {
      out += StrCat("  last error: ", Field(j, "last_error"), " (retry at ", Iso(Number(j, "retry_at")), ")\n");
    }
    out += StrCat("  status updated: ", Iso(Number(j, "updated")), "\n");
  }
  return out;
}

}  // namespace cqlite::watch
