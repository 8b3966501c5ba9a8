#include "materialize/staged.h"

#include <algorithm>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "catalog/commit_retry.h"
#include "fold_state/warehouse_files.h"
#include "mapping/iceberg_rows.h"
#include "mapping/schema_evolution.h"
#include "materialize/snapshot.h"
#include "util/strings.h"

namespace cqlite::materialize {

namespace {

constexpr int kStagedFormat = 1;
constexpr char kStartedSuffix[] = ".started";
constexpr char kStagedSuffix[] = ".staged.json";

std::string RunFileName(const std::string& run_id, const char* suffix) { return StrCat(run_id, suffix); }

nlohmann::json ManifestToJson(const iceberg::ManifestFile& m) {
  return {{"path", m.manifest_path},
          {"length", m.manifest_length},
          {"content", m.content == iceberg::ManifestContent::kData ? "data" : "deletes"},
          {"files", m.added_files_count},
          {"rows", m.added_rows_count}};
}

std::string StagedResultToJson(const StagedResult& r, bool started_only) {
  nlohmann::json doc = {{"format", kStagedFormat},
                        {"run", r.run_id},
                        {"namespace", r.namespace_name},
                        {"table", r.table_name},
                        {"location", r.location},
                        {"token-ranges", r.ranges.ToString()}};
  if (started_only) return doc.dump(2);
  nlohmann::json generations = nlohmann::json::array();
  for (const ConsumedGeneration& g : r.generations) {
    generations.push_back({{"identity", g.identity}, {"max-timestamp", g.max_timestamp}});
  }
  nlohmann::json manifests = nlohmann::json::array();
  for (const iceberg::ManifestFile& m : r.manifests) manifests.push_back(ManifestToJson(m));
  doc["source-table"] = r.source_table;
  doc["base-fold-state"] = r.base_fold_state;
  doc["changed"] = r.changed;
  doc["fold-state"] = r.fold_state;
  doc["lineage"] = r.lineage;
  doc["now"] = r.now_seconds;
  doc["delta-horizon-micros"] = r.delta_horizon_micros;
  doc["generations"] = generations;
  doc["schema"] = iceberg::SchemaToJson(r.schema);
  doc["format-version"] = r.format_version;
  doc["new-table-properties"] = r.new_table_properties;
  doc["manifests"] = manifests;
  doc["rows-appended"] = r.rows_appended;
  doc["rows-deleted"] = r.rows_deleted;
  doc["rows-total"] = r.rows_total;
  doc["data-files"] = r.data_files;
  doc["delete-files"] = r.delete_files;
  doc["bytes-written"] = r.bytes_written;
  return doc.dump(2);
}

// A started mark (`started_only`) or a staged result read back.
Result<StagedResult> StagedResultFromJson(const std::string& text, const std::string& path, bool started_only) {
  auto bad = [&](const std::string& why) {
    return Status::Corruption(StrCat(path, ": not a staged result of cqlite: ", why));
  };
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return bad("not a JSON object");
  if (!doc.contains("format") || !doc["format"].is_number_integer() || doc["format"].get<int64_t>() != kStagedFormat) {
    return bad(StrCat("format is not ", kStagedFormat));
  }
  auto text_field = [&](const char* key, std::string* out) -> Status {
    if (!doc.contains(key) || !doc[key].is_string()) return bad(StrCat("no ", key));
    *out = doc[key].get<std::string>();
    return Status::OK();
  };
  auto int_field = [&](const char* key, int64_t* out) -> Status {
    if (!doc.contains(key) || !doc[key].is_number_integer()) return bad(StrCat("no integer ", key));
    *out = doc[key].get<int64_t>();
    return Status::OK();
  };
  StagedResult r;
  std::string ranges;
  RETURN_IF_ERROR(text_field("run", &r.run_id));
  RETURN_IF_ERROR(text_field("namespace", &r.namespace_name));
  RETURN_IF_ERROR(text_field("table", &r.table_name));
  RETURN_IF_ERROR(text_field("location", &r.location));
  RETURN_IF_ERROR(text_field("token-ranges", &ranges));
  auto parsed = Murmur3RangeSet::Parse(ranges);
  if (!parsed.ok()) return bad(parsed.status().message());
  r.ranges = std::move(*parsed);
  if (r.run_id.empty() || r.location.empty()) return bad("an empty run or location");
  if (started_only) return r;

  RETURN_IF_ERROR(text_field("source-table", &r.source_table));
  RETURN_IF_ERROR(text_field("base-fold-state", &r.base_fold_state));
  RETURN_IF_ERROR(text_field("fold-state", &r.fold_state));
  RETURN_IF_ERROR(text_field("lineage", &r.lineage));
  if (!doc.contains("changed") || !doc["changed"].is_boolean()) return bad("no changed");
  r.changed = doc["changed"].get<bool>();
  int64_t format_version = 0, data_files = 0, delete_files = 0;
  RETURN_IF_ERROR(int_field("now", &r.now_seconds));
  RETURN_IF_ERROR(int_field("delta-horizon-micros", &r.delta_horizon_micros));
  RETURN_IF_ERROR(int_field("format-version", &format_version));
  RETURN_IF_ERROR(int_field("rows-appended", &r.rows_appended));
  RETURN_IF_ERROR(int_field("rows-deleted", &r.rows_deleted));
  RETURN_IF_ERROR(int_field("rows-total", &r.rows_total));
  RETURN_IF_ERROR(int_field("data-files", &data_files));
  RETURN_IF_ERROR(int_field("delete-files", &delete_files));
  RETURN_IF_ERROR(int_field("bytes-written", &r.bytes_written));
  r.format_version = static_cast<int>(format_version);
  r.data_files = static_cast<int>(data_files);
  r.delete_files = static_cast<int>(delete_files);
  if (!doc.contains("schema")) return bad("no schema");
  auto schema = iceberg::SchemaFromJson(doc["schema"]);
  if (!schema.ok()) return bad(StrCat("its schema: ", schema.status().message()));
  r.schema = std::move(*schema);
  if (!doc.contains("new-table-properties") || !doc["new-table-properties"].is_object()) {
    return bad("no new-table-properties");
  }
  for (const auto& [key, value] : doc["new-table-properties"].items()) {
    if (!value.is_string()) return bad(StrCat("new-table-properties.", key, " is not a string"));
    r.new_table_properties[key] = value.get<std::string>();
  }
  if (!doc.contains("generations") || !doc["generations"].is_array()) return bad("no generations");
  for (const nlohmann::json& g : doc["generations"]) {
    if (!g.is_object() || !g.contains("identity") || !g["identity"].is_string() || !g.contains("max-timestamp") ||
        !g["max-timestamp"].is_number_integer()) {
      return bad(StrCat("generation ", r.generations.size(), " is not {identity, max-timestamp}"));
    }
    r.generations.push_back({g["identity"].get<std::string>(), g["max-timestamp"].get<int64_t>()});
  }
  if (!doc.contains("manifests") || !doc["manifests"].is_array()) return bad("no manifests");
  for (const nlohmann::json& m : doc["manifests"]) {
    if (!m.is_object() || !m.contains("path") || !m["path"].is_string() || !m.contains("length") ||
        !m["length"].is_number_integer() || !m.contains("content") || !m["content"].is_string()) {
      return bad(StrCat("manifest ", r.manifests.size(), " is not {path, length, content}"));
    }
    iceberg::ManifestFile manifest;
    manifest.manifest_path = m["path"].get<std::string>();
    manifest.manifest_length = m["length"].get<int64_t>();
    const std::string content = m["content"].get<std::string>();
    if (content != "data" && content != "deletes") return bad(StrCat("manifest content ", content));
    manifest.content = content == "data" ? iceberg::ManifestContent::kData : iceberg::ManifestContent::kDeletes;
    r.manifests.push_back(std::move(manifest));
  }
  if (r.changed && r.fold_state.empty()) return bad("changed, and no fold state");
  return r;
}

// Writes `contents` so that a reader finds the whole file or none: to a
// temporary name, then renamed.
Status WriteWhole(FileSystem& fs, const std::string& path, const std::string& contents) {
  const std::string temporary = path + ".tmp";
  RETURN_IF_ERROR(fs.WriteStringToFile(temporary, contents));
  return fs.Rename(temporary, path);
}

// Every run a table's stage directories know of: its mark, its result if
// it staged one, and the stage files to remove once the commit is done.
struct StagedRun {
  std::string run_id;
  std::string location;
  std::optional<StagedResult> result;
  std::vector<std::string> stage_files;
};

struct StagedTable {
  std::string namespace_name, table_name;
  std::map<std::string, StagedRun> runs;  // by run id
};

// The runs under `stage_dirs`, by table ("namespace.table").
Result<std::map<std::string, StagedTable>> ReadStageDirectories(FileSystem& fs,
                                                                const std::vector<std::string>& stage_dirs) {
  std::map<std::string, StagedTable> tables;
  for (const std::string& stage_dir : stage_dirs) {
    if (!fs.IsDirectory(stage_dir)) return Status::NotFound(StrCat(stage_dir, ": no such stage directory"));
    ASSIGN_OR_RETURN(std::vector<DirectoryEntry> table_dirs, fs.ListDirectory(stage_dir));
    for (const DirectoryEntry& table_dir : table_dirs) {
      if (!table_dir.is_directory) continue;
      const std::string dir = JoinPath(stage_dir, table_dir.name);
      ASSIGN_OR_RETURN(std::vector<DirectoryEntry> entries, fs.ListDirectory(dir));
      for (const DirectoryEntry& entry : entries) {
        if (entry.is_directory) continue;
        const std::string path = JoinPath(dir, entry.name);
        const std::string run_id = entry.name.substr(0, entry.name.find('.'));
        const bool started = EndsWith(entry.name, kStartedSuffix);
        const bool staged = EndsWith(entry.name, kStagedSuffix);
        if (!started && !staged) {
          // A result whose rename never happened: its run counts as unfinished
          // through its mark.
          if (EndsWith(entry.name, ".tmp")) continue;
          return Status::InvalidArgument(StrCat(path, ": not a file a staged run writes"));
        }
        ASSIGN_OR_RETURN(std::string text, fs.ReadFileToString(path));
        ASSIGN_OR_RETURN(StagedResult read, StagedResultFromJson(text, path, started));
        if (read.run_id != run_id) return Status::Corruption(StrCat(path, ": names run ", read.run_id));
        StagedTable& table = tables[StrCat(read.namespace_name, ".", read.table_name)];
        table.namespace_name = read.namespace_name;
        table.table_name = read.table_name;
        StagedRun& run = table.runs[run_id];
        if (!run.location.empty() && run.location != read.location) {
          return Status::Corruption(StrCat(path, ": run ", run_id, " names two table locations"));
        }
        run.run_id = run_id;
        run.location = read.location;
        if (staged) run.result = std::move(read);
      }
      // Every file of the directory goes once its table is done (.tmp ones too).
      for (const DirectoryEntry& entry : entries) {
        if (entry.is_directory) continue;
        const std::string run_id = entry.name.substr(0, entry.name.find('.'));
        for (auto& [key, table] : tables) {
          auto run = table.runs.find(run_id);
          if (run != table.runs.end()) run->second.stage_files.push_back(JoinPath(dir, entry.name));
        }
      }
    }
  }
  return tables;
}

// The schema that every staged run's schema is, or relaxes into: a key
// column optional in one run (MappingOptions::nullable_keys) is optional,
// and then no field is an identifier.
Result<iceberg::Schema> MergedSchema(const std::vector<const StagedResult*>& results) {
  iceberg::Schema merged = results.front()->schema;
  for (const StagedResult* r : results) {
    if (r->schema.fields.size() != merged.fields.size()) {
      return Status::InvalidArgument(StrCat("run ", r->run_id, " of ", r->source_table, " has another schema than run ",
                                            results.front()->run_id, " (was the table altered while it was staged?)"));
    }
    for (size_t i = 0; i < merged.fields.size(); ++i) {
      if (!r->schema.fields[i].required) merged.fields[i].required = false;
    }
    if (r->schema.identifier_field_ids.empty()) merged.identifier_field_ids.clear();
  }
  for (const StagedResult* r : results) {
    iceberg::Schema relaxed = r->schema;
    for (size_t i = 0; i < relaxed.fields.size(); ++i) relaxed.fields[i].required = merged.fields[i].required;
    relaxed.identifier_field_ids = merged.identifier_field_ids;
    if (!iceberg::SameStructure(relaxed, merged)) {
      return Status::InvalidArgument(StrCat("run ", r->run_id, " of ", r->source_table, " has another schema than run ",
                                            results.front()->run_id, " (was the table altered while it was staged?)"));
    }
  }
  return merged;
}

// The fold state file the table's part with exactly `ranges` names (empty:
// no such part yet); InvalidArgument when a part overlaps them otherwise.
Result<std::string> PartFoldState(const Baseline& base, const Murmur3RangeSet& ranges, const std::string& table) {
  for (const FoldStatePart& part : base.parts) {
    if (part.ranges == ranges) return part.fold_state;
    if (part.ranges.Intersects(ranges)) {
      return Status::InvalidArgument(StrCat(table, ": staged token ranges ", ranges.ToString(),
                                            " overlap the table's part ", part.ranges.ToString(), " (from ",
                                            part.lineage, ") without being it; a job must split the ring as the "
                                            "table's parts do (cqlite plan)"));
    }
  }
  return std::string();
}

// One part's staged runs, and the one whose files the commit uses.
struct PartRuns {
  Murmur3RangeSet ranges;
  std::vector<const StagedResult*> staged;  // by run id
  const StagedResult* winner = nullptr;
  bool committed_before = false;  // the winner was committed by an earlier commit
};

// Picks each part's winner among runs staged against the part's state in
// `base`. CommitConflict naming the part when none was (another job
// committed the part since).
Status PickWinners(FileSystem& fs, const Baseline& base, const std::string& table, std::vector<PartRuns>* parts) {
  for (PartRuns& part : *parts) {
    if (part.committed_before) continue;
    ASSIGN_OR_RETURN(std::string current, PartFoldState(base, part.ranges, table));
    part.winner = nullptr;
    for (const StagedResult* r : part.staged) {
      if (r->base_fold_state != current || r->location != base.location) continue;
      bool whole = !r->changed || fs.Exists(r->fold_state);
      for (const iceberg::ManifestFile& m : r->manifests) whole = whole && fs.Exists(m.manifest_path);
      if (whole) {
        part.winner = r;
        break;
      }
    }
    if (part.winner == nullptr) {
      return Status::CommitConflict(StrCat(table, ": no run of token ranges ", part.ranges.ToString(),
                                           " was staged against the part's state the table has now (",
                                           current.empty() ? "none" : current,
                                           "); another job committed it since, or its files are gone: discard this "
                                           "stage directory (cqlite commit --discard) and run the job again"));
    }
  }
  return Status::OK();
}

void Progress(const CommitStagedOptions& options, const std::string& line) {
  if (options.progress) options.progress(line);
}

// Commits (or discards) one table's staged runs.
Result<StagedTableReport> CommitTable(FileSystem& fs, catalog::Catalog& catalog, const StagedTable& table,
                                      const CommitStagedOptions& options) {
  StagedTableReport report;
  report.namespace_name = table.namespace_name;
  report.table_name = table.table_name;
  const std::string name = StrCat(table.namespace_name, ".", table.table_name);
  std::string location;
  for (const auto& [run_id, run] : table.runs) {
    if (!location.empty() && run.location != location) {
      return Status::InvalidArgument(StrCat(name, ": staged runs wrote to two table locations, ", location, " and ",
                                            run.location, " (stage directories of different warehouses?)"));
    }
    location = run.location;
  }

  // The parts, each with its staged runs in run id order.
  std::map<std::string, PartRuns> by_ranges;
  for (const auto& [run_id, run] : table.runs) {
    if (!run.result) continue;
    PartRuns& part = by_ranges[run.result->ranges.ToString()];
    part.ranges = run.result->ranges;
    part.staged.push_back(&*run.result);
  }
  std::vector<PartRuns> parts;
  for (auto& [key, part] : by_ranges) {
    for (const PartRuns& other : parts) {
      if (other.ranges.Intersects(part.ranges)) {
        return Status::InvalidArgument(StrCat(name, ": staged token ranges ", part.ranges.ToString(), " and ",
                                              other.ranges.ToString(), " overlap (stage directories of two jobs "
                                              "that split the ring differently?)"));
      }
    }
    parts.push_back(std::move(part));
  }
  report.parts_staged = static_cast<int>(parts.size());

  // Runs an earlier commit took: named by a snapshot's cqlite.staged-runs.
  ASSIGN_OR_RETURN(std::optional<catalog::LoadedTable> loaded,
                   catalog.LoadTableMetadata(fs, {table.namespace_name}, table.table_name));
  std::set<std::string> committed_runs;
  if (loaded) {
    for (const iceberg::Snapshot& snapshot : loaded->metadata.snapshots) {
      for (std::string& run : StagedRunsOf(snapshot)) committed_runs.insert(std::move(run));
    }
  }
  for (PartRuns& part : parts) {
    for (const StagedResult* r : part.staged) {
      if (committed_runs.count(r->run_id)) {
        part.winner = r;
        part.committed_before = true;
      }
    }
  }
  const bool any_committed_before =
      std::any_of(parts.begin(), parts.end(), [](const PartRuns& p) { return p.committed_before; });
  const bool all_committed_before =
      !parts.empty() && std::all_of(parts.begin(), parts.end(), [](const PartRuns& p) { return p.committed_before; });

  std::optional<RunFiles> commit_files;
  if (!options.discard && !parts.empty() && !all_committed_before) {
    std::vector<const StagedResult*> all;
    for (const PartRuns& part : parts) all.insert(all.end(), part.staged.begin(), part.staged.end());
    const StagedResult& first = *all.front();
    ASSIGN_OR_RETURN(iceberg::Schema schema, MergedSchema(all));
    // The table, if these runs create it, records one time mapping.
    auto time_as = [](const StagedResult& r) {
      auto it = r.new_table_properties.find(kTimeAsProperty);
      return it == r.new_table_properties.end() ? std::string(TimeAsName(TimeAs::kTime)) : it->second;
    };
    for (const StagedResult* r : all) {
      if (time_as(*r) != time_as(first)) {
        return Status::InvalidArgument(StrCat(name, ": run ", r->run_id, " was staged with --time-as ", time_as(*r),
                                              ", run ", first.run_id, " with --time-as ", time_as(first),
                                              "; stage every range of a table alike"));
      }
    }
    auto load = [&]() {
      return LoadPartsBaseline(fs, catalog, options.warehouse, table.namespace_name, table.table_name);
    };
    ASSIGN_OR_RETURN(Baseline base, load());
    if (base.table) RETURN_IF_ERROR(CheckEvolvesFrom(base.table->metadata, schema, name));
    if (base.location != location) {
      return Status::InvalidArgument(StrCat(name, ": the runs were staged for a table at ", location,
                                            ", but the table is at ", base.location));
    }
    if (base.table && base.table->metadata.format_version >= 3) {
      return Status::NotSupported(StrCat(name, ": a v3 table; staged runs write v2 position delete files"));
    }
    RETURN_IF_ERROR(PickWinners(fs, base, name, &parts));

    NextSnapshot next;
    next.schema = &schema;
    next.format_version = 2;
    next.lineage = first.lineage;
    next.new_table_properties = first.new_table_properties;
    std::set<std::string> consumed;
    for (const PartRuns& part : parts) {
      const StagedResult& r = *part.winner;
      if (part.committed_before || !r.changed) continue;
      ++report.parts_changed;
      next.staged_parts.push_back({r.ranges, r.fold_state, r.lineage});
      next.staged_runs.push_back(r.run_id);
      next.now_seconds = std::max(next.now_seconds, r.now_seconds);
      next.staged_delta_horizon_micros = std::max(next.staged_delta_horizon_micros, r.delta_horizon_micros);
      for (const ConsumedGeneration& g : r.generations) {
        if (consumed.insert(g.identity).second) next.generations.push_back(g);
      }
      for (const iceberg::ManifestFile& m : r.manifests) {
        ASSIGN_OR_RETURN(std::vector<iceberg::ManifestEntry> entries, iceberg::ReadManifest(fs, m));
        for (iceberg::ManifestEntry& entry : entries) next.added.push_back(std::move(entry.data_file));
      }
      report.rows_appended += r.rows_appended;
      report.rows_deleted += r.rows_deleted;
      report.data_files += r.data_files;
      report.delete_files += r.delete_files;
      report.bytes_written += r.bytes_written;
    }
    report.generations_consumed = static_cast<int>(next.generations.size());
    if (!next.staged_parts.empty()) {
      commit_files.emplace(fs, base.location);
      RunFiles& files = *commit_files;
      for (const std::string& dir : files.Directories()) RETURN_IF_ERROR(fs.CreateDirectories(dir));
      Progress(options, StrCat(name, ": committing ", next.staged_parts.size(), " staged part(s)"));
      // Another writer committed first: the staged parts go on top of its
      // snapshot as they are, when their states are still the table's.
      WrittenSnapshot written;
      auto plan = [&](int attempt, const Status&) -> Result<std::optional<catalog::TableCommit>> {
        report.attempts = attempt;
        if (attempt > 1) {
          Progress(options, StrCat(name, ": another writer committed first; committing on top of its snapshot"));
          ASSIGN_OR_RETURN(base, load());
          for (const PartRuns& part : parts) {
            if (part.committed_before) continue;
            ASSIGN_OR_RETURN(std::string current, PartFoldState(base, part.ranges, name));
            if (current != part.winner->base_fold_state) {
              return Status::CommitConflict(StrCat(name, ": token ranges ", part.ranges.ToString(),
                                                   " were committed by another job while this one was staged; "
                                                   "discard this stage directory and run the job again"));
            }
          }
          files.NextCommitAttempt();
        }
        ASSIGN_OR_RETURN(written, WriteSnapshot(fs, base, next, files));
        return std::optional<catalog::TableCommit>(
            catalog::TableCommit{{table.namespace_name}, table.table_name, base.table ? &*base.table : nullptr,
                                 &written.metadata, written.metadata_file});
      };
      catalog::CommitRetryOptions retry;
      retry.max_attempts = options.max_attempts;
      retry.table = name;
      retry.what = "the commit";
      auto committed = catalog::CommitWithRetry(fs, catalog, plan, retry);
      if (!committed.ok()) {
        if (committed.status().kind() == StatusKind::kCommitUnknown) {
          files.Keep();
          return committed.status().WithContext(StrCat(name, ": run the commit again to learn whether it took effect"));
        }
        if (committed.status().kind() == StatusKind::kCommitConflict) return committed.status();
        return committed.status().WithContext(name);
      }
      report.metadata_location = (*committed)->metadata_location;
      files.Keep();
      report.committed = true;
      report.snapshot_id = written.snapshot_id;
    }
  }
  report.already_committed = any_committed_before && !report.committed;

  // Every run but the winners goes; so do the winners' manifests, which
  // carried their files to the commit, and every stage file.
  for (const auto& [run_id, run] : table.runs) {
    const StagedResult* result = run.result ? &*run.result : nullptr;
    bool won = result && std::any_of(parts.begin(), parts.end(), [&](const PartRuns& p) {
                 return p.winner != nullptr && p.winner->run_id == run_id && (p.committed_before || !options.discard);
               });
    if (won) {
      for (const iceberg::ManifestFile& m : result->manifests) {
        if (fs.Remove(m.manifest_path).ok()) ++report.files_removed;
      }
    } else {
      ASSIGN_OR_RETURN(int64_t removed, RemoveFilesOfRun(fs, run.location, run_id));
      report.files_removed += removed;
      ++report.runs_discarded;
    }
    for (const std::string& file : run.stage_files) (void)fs.Remove(file);
  }
  if (report.committed) {
    report.message = StrCat("committed snapshot ", report.snapshot_id, ": ", report.parts_changed, " of ",
                            report.parts_staged, " staged part(s) changed");
  } else if (report.already_committed) {
    report.message = "already committed by an earlier commit of these staged runs; cleaned up";
    report.metadata_location = loaded ? loaded->metadata_location : "";
  } else if (options.discard) {
    report.message = StrCat("discarded ", report.runs_discarded, " run(s)");
  } else if (parts.empty()) {
    report.message = "no run staged a result; removed the files of unfinished runs";
  } else {
    report.message = "nothing new: no staged part changed";
    report.metadata_location = loaded ? loaded->metadata_location : "";
  }
  return report;
}

}  // namespace

std::string StagedTableDirectory(const std::string& stage_dir, const std::string& namespace_name,
                                 const std::string& table_name) {
  return JoinPath(stage_dir, StrCat(namespace_name, ".", table_name));
}

Status MarkStagedRunStarted(FileSystem& fs, const std::string& stage_dir, const StagedResult& result) {
  const std::string dir = StagedTableDirectory(stage_dir, result.namespace_name, result.table_name);
  RETURN_IF_ERROR(fs.CreateDirectories(dir));
  return WriteWhole(fs, JoinPath(dir, RunFileName(result.run_id, kStartedSuffix)), StagedResultToJson(result, true));
}

Status WriteStagedResult(FileSystem& fs, const std::string& stage_dir, const StagedResult& result) {
  const std::string dir = StagedTableDirectory(stage_dir, result.namespace_name, result.table_name);
  RETURN_IF_ERROR(fs.CreateDirectories(dir));
  return WriteWhole(fs, JoinPath(dir, RunFileName(result.run_id, kStagedSuffix)), StagedResultToJson(result, false));
}

Status StageRun(FileSystem& fs, const std::string& stage_dir, StagedResult result, const FoldState& state,
                const std::vector<iceberg::DataFile>& added, RunFiles& files) {
  result.changed = true;
  result.fold_state = files.FoldState();
  RETURN_IF_ERROR(fs.WriteStringToFile(result.fold_state, FoldStateToJson(state)));
  result.delta_horizon_micros = state.DeltaHorizonMicros();
  result.rows_total = state.row_count;
  const std::string schema_json = iceberg::SchemaToJson(result.schema).dump();
  for (iceberg::ManifestContent content : {iceberg::ManifestContent::kData, iceberg::ManifestContent::kDeletes}) {
    std::vector<iceberg::ManifestEntry> entries;
    for (const iceberg::DataFile& f : added) {
      if ((f.content == iceberg::FileContent::kData) != (content == iceberg::ManifestContent::kData)) continue;
      iceberg::ManifestEntry entry;
      entry.data_file = f;
      entries.push_back(std::move(entry));
    }
    if (entries.empty()) continue;
    iceberg::ManifestWriteOptions manifest_options;
    manifest_options.table_schema_json = schema_json;
    manifest_options.content = content;
    const std::string path = content == iceberg::ManifestContent::kData ? files.DataManifest() : files.DeleteManifest();
    // Never part of a snapshot: the commit lists the files in manifests of its own.
    ASSIGN_OR_RETURN(iceberg::ManifestFile manifest, iceberg::WriteManifest(fs, path, manifest_options, entries,
                                                                          /*snapshot_id=*/0, /*sequence_number=*/0));
    RETURN_IF_ERROR(fs.SyncFile(path));
    result.manifests.push_back(std::move(manifest));
  }
  return WriteStagedResult(fs, stage_dir, result);
}

Result<std::vector<StagedTableReport>> CommitStaged(FileSystem& fs, catalog::Catalog& catalog,
                                                    const std::vector<std::string>& stage_dirs,
                                                    const CommitStagedOptions& options) {
  ASSIGN_OR_RETURN(auto tables, ReadStageDirectories(fs, stage_dirs));
  std::vector<StagedTableReport> reports;
  for (const auto& [key, table] : tables) {
    ASSIGN_OR_RETURN(StagedTableReport report, CommitTable(fs, catalog, table, options));
    reports.push_back(std::move(report));
  }
  // The tables' stage directories, now empty.
  for (const std::string& stage_dir : stage_dirs) {
    auto entries = fs.ListDirectory(stage_dir);
    if (!entries.ok()) continue;
    for (const DirectoryEntry& entry : *entries) {
      if (entry.is_directory) (void)fs.Remove(JoinPath(stage_dir, entry.name));
    }
  }
  return reports;
}

}  // namespace cqlite::materialize
