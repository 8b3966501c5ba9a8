#include "materialize/snapshot.h"

#include <algorithm>
#include <chrono>

#include <nlohmann/json.hpp>

#include "iceberg/deletion_vector.h"
#include "iceberg/manifest.h"
#include "mapping/schema_evolution.h"
#include "parquet/reader.h"
#include "util/strings.h"
#include "util/version.h"

namespace cqlite::materialize {

namespace {

// Snapshot summary properties (DESIGN D8).
constexpr char kFoldStateKey[] = "cqlite.fold-state";
constexpr char kGenerationsKey[] = "cqlite.generations";
constexpr char kDeltaHorizonKey[] = "cqlite.delta-horizon-micros";
constexpr char kLineageKey[] = "cqlite.lineage";
constexpr char kNowKey[] = "cqlite.ttl-evaluated-at";
constexpr char kFoldStatePartsKey[] = "cqlite.fold-state-parts";
constexpr char kPartsCountKey[] = "cqlite.fold-state-part-count";
constexpr char kStagedRunsKey[] = "cqlite.staged-runs";
constexpr int kPartsFormat = 1;

std::string PartsToJson(const std::vector<FoldStatePart>& parts) {
  nlohmann::json list = nlohmann::json::array();
  for (const FoldStatePart& part : parts) {
    list.push_back({{"token-ranges", part.ranges.ToString()}, {"fold-state", part.fold_state},
                    {"lineage", part.lineage}});
  }
  return nlohmann::json{{"format", kPartsFormat}, {"parts", list}}.dump(2);
}

Result<std::vector<FoldStatePart>> PartsFromJson(const std::string& text, const std::string& path) {
  auto bad = [&](const std::string& why) {
    return Status::Corruption(StrCat(path, ": not a fold state parts file: ", why));
  };
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return bad("not a JSON object");
  if (!doc.contains("format") || !doc["format"].is_number_integer() || doc["format"].get<int64_t>() != kPartsFormat) {
    return bad(StrCat("format is not ", kPartsFormat));
  }
  if (!doc.contains("parts") || !doc["parts"].is_array()) return bad("no parts array");
  std::vector<FoldStatePart> parts;
  for (const nlohmann::json& entry : doc["parts"]) {
    if (!entry.is_object()) return bad(StrCat("part ", parts.size(), " is not an object"));
    for (const char* key : {"token-ranges", "fold-state", "lineage"}) {
      if (!entry.contains(key) || !entry[key].is_string()) return bad(StrCat("part ", parts.size(), " has no ", key));
    }
    FoldStatePart part;
    auto ranges = Murmur3RangeSet::Parse(entry["token-ranges"].get<std::string>());
    if (!ranges.ok()) return bad(StrCat("part ", parts.size(), ": ", ranges.status().message()));
    part.ranges = std::move(*ranges);
    part.fold_state = entry["fold-state"].get<std::string>();
    part.lineage = entry["lineage"].get<std::string>();
    for (const FoldStatePart& other : parts) {
      if (other.ranges.Intersects(part.ranges)) return bad(StrCat("part ", parts.size(), " overlaps an earlier one"));
    }
    parts.push_back(std::move(part));
  }
  return parts;
}

int64_t WallClockMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}



// The delete entries of a v3 snapshot that deletes `deleted` positions on
// top of `parent_deletes` (the parent's delete manifests): a deletion vector
// per data file, holding its new positions and the ones it had (its vector,
// position delete files), in one Puffin file; the entries they replace
// DELETED, every other live one EXISTING.
struct DeletionVectorPlan {
  std::vector<iceberg::ManifestEntry> entries;
  std::vector<iceberg::DataFile> added, removed;
};

Result<DeletionVectorPlan> PlanDeletionVectors(FileSystem& fs, const std::vector<iceberg::ManifestFile>& parent_deletes,
                                               const DeletedPositions& deleted, int64_t snapshot_id,
                                               RunFiles& files) {
  DeletionVectorPlan plan;
  std::map<std::string, iceberg::DeletionVector> vectors;
  for (const auto& [data_file, positions] : deleted) {
    iceberg::DeletionVector& vector = vectors[data_file];
    for (int64_t position : positions) RETURN_IF_ERROR(vector.Delete(position).WithContext(data_file));
  }
  for (const iceberg::ManifestFile& manifest : parent_deletes) {
    ASSIGN_OR_RETURN(std::vector<iceberg::ManifestEntry> entries, iceberg::ReadManifest(fs, manifest));
    for (iceberg::ManifestEntry& entry : entries) {
      if (entry.status == iceberg::ManifestEntryStatus::kDeleted) continue;
      const iceberg::DataFile& file = entry.data_file;
      if (!file.referenced_data_file) {
        return Status::NotSupported(StrCat(file.file_path, ": a delete file that names no one data file; cqlite "
                                                           "writes only into tables it created"));
      }
      auto touched = vectors.find(*file.referenced_data_file);
      if (touched == vectors.end()) {
        entry.status = iceberg::ManifestEntryStatus::kExisting;
        plan.entries.push_back(std::move(entry));
        continue;
      }
      // Its positions go into the data file's new vector.
      if (iceberg::IsDeletionVector(file)) {
        ASSIGN_OR_RETURN(iceberg::DeletionVector old,
                         iceberg::ReadDeletionVector(fs, file.file_path, file.content_offset.value_or(0),
                                                     file.content_size_in_bytes.value_or(0)));
        for (int64_t position : old.Positions()) RETURN_IF_ERROR(touched->second.Delete(position));
      } else {
        ASSIGN_OR_RETURN(auto reader, parquet::ParquetReader::Open(fs, file.file_path));
        ASSIGN_OR_RETURN(std::vector<parquet::Value> rows, reader->ReadAll());
        for (const parquet::Value& row : rows) {
          if (row.fields().size() != 2 || row.fields()[1].kind() != parquet::Value::Kind::kInt64) {
            return Status::Corruption(StrCat(file.file_path, ": not a position delete file (file_path, pos)"));
          }
          if (row.fields()[0].bytes() == touched->first) {
            RETURN_IF_ERROR(touched->second.Delete(row.fields()[1].int64_value()));
          }
        }
      }
      plan.removed.push_back(file);
      entry.status = iceberg::ManifestEntryStatus::kDeleted;
      entry.snapshot_id = snapshot_id;
      plan.entries.push_back(std::move(entry));
    }
  }
  std::vector<std::pair<std::string, iceberg::DeletionVector>> ordered(vectors.begin(), vectors.end());
  const std::string path = files.DeletionVectors();
  ASSIGN_OR_RETURN(std::vector<iceberg::DeletionVectorFile> written,
                   iceberg::WriteDeletionVectorFile(fs, path, ordered));
  for (const iceberg::DeletionVectorFile& dv : written) {
    iceberg::DataFile file;
    file.content = iceberg::FileContent::kPositionDeletes;
    file.file_path = dv.file_path;
    file.file_format = "puffin";
    file.record_count = dv.record_count;
    file.file_size_in_bytes = dv.file_size_in_bytes;
    file.referenced_data_file = dv.referenced_data_file;
    file.content_offset = dv.content_offset;
    file.content_size_in_bytes = dv.content_size_in_bytes;
    iceberg::ManifestEntry entry;
    entry.status = iceberg::ManifestEntryStatus::kAdded;
    entry.data_file = file;
    plan.entries.push_back(std::move(entry));
    plan.added.push_back(std::move(file));
  }
  return plan;
}

// The table (none yet: where it will be) and its current snapshot.
Result<Baseline> LoadTableAndParent(FileSystem& fs, catalog::Catalog& catalog, const std::string& warehouse,
                                    const std::string& namespace_name, const std::string& table_name) {
  Baseline base;
  ASSIGN_OR_RETURN(base.table, catalog.LoadTableMetadata(fs, {namespace_name}, table_name));
  if (!base.table) {
    base.location = TableLocation(warehouse, namespace_name, table_name);
    return base;
  }
  const iceberg::TableMetadata& metadata = base.table->metadata;
  base.location = iceberg::LocalFilePath(metadata.location);
  const iceberg::Snapshot* parent = metadata.CurrentSnapshot();
  if (parent == nullptr) return base;
  base.parent = *parent;
  return base;
}

}  // namespace

Result<Baseline> LoadPartsBaseline(FileSystem& fs, catalog::Catalog& catalog, const std::string& warehouse,
                                   const std::string& namespace_name, const std::string& table_name) {
  ASSIGN_OR_RETURN(Baseline base, LoadTableAndParent(fs, catalog, warehouse, namespace_name, table_name));
  if (!base.parent) return base;
  const std::string& current = base.table->metadata_location;
  const iceberg::Snapshot* parent = &*base.parent;
  auto parts = parent->summary.find(kFoldStatePartsKey);
  if (parts == parent->summary.end()) {
    return Status::InvalidArgument(StrCat(current, ": snapshot ", parent->snapshot_id, " is not of a table published "
                                          "by token range (no ", kFoldStatePartsKey, "); staged token ranges cannot "
                                          "go into it"));
  }
  ASSIGN_OR_RETURN(std::string parts_text, fs.ReadFileToString(parts->second));
  ASSIGN_OR_RETURN(base.parts, PartsFromJson(parts_text, parts->second));
  return base;
}

Result<Baseline> LoadBaseline(FileSystem& fs, catalog::Catalog& catalog, const std::string& warehouse,
                              const std::string& namespace_name, const std::string& table_name,
                              const Murmur3RangeSet& ranges) {
  ASSIGN_OR_RETURN(Baseline base, LoadTableAndParent(fs, catalog, warehouse, namespace_name, table_name));
  if (!base.parent) return base;
  const std::string& current = base.table->metadata_location;
  const iceberg::Snapshot* parent = &*base.parent;
  auto whole = parent->summary.find(kFoldStateKey);
  auto parts = parent->summary.find(kFoldStatePartsKey);
  if (whole == parent->summary.end() && parts == parent->summary.end()) {
    return Status::InvalidArgument(StrCat(current, ": snapshot ", parent->snapshot_id, " was not written by cqlite (no ",
                                          kFoldStateKey, "); cqlite materializes only into tables it created"));
  }
  std::string state_path;
  if (whole != parent->summary.end()) {
    if (!ranges.whole_ring()) {
      return Status::InvalidArgument(StrCat(current, ": the table is published whole, not by token range; a run of "
                                                     "some token ranges (--primary-range-only) cannot go into it"));
    }
    state_path = whole->second;
  } else {
    ASSIGN_OR_RETURN(std::string parts_text, fs.ReadFileToString(parts->second));
    ASSIGN_OR_RETURN(base.parts, PartsFromJson(parts_text, parts->second));
    if (ranges.whole_ring()) {
      return Status::InvalidArgument(StrCat(current, ": the table is published by token range (", base.parts.size(),
                                            " parts, one per --primary-range-only job); a run of the whole ring "
                                            "cannot go into it"));
    }
    for (const FoldStatePart& part : base.parts) {
      if (part.ranges == ranges) {
        state_path = part.fold_state;
      } else if (part.ranges.Intersects(ranges)) {
        return Status::InvalidArgument(StrCat(current, ": the token ranges of this run overlap those of the part "
                                              "from ", part.lineage, " without being them (did the ring change?); "
                                              "materialize into a new table"));
      }
    }
    if (state_path.empty()) return base;  // a part not run before
  }
  ASSIGN_OR_RETURN(std::string state_text, fs.ReadFileToString(state_path));
  ASSIGN_OR_RETURN(base.state, FoldStateFromJson(state_text, state_path));
  base.has_fold_state = true;
  base.fold_state_path = state_path;
  return base;
}

Result<SnapshotFoldStates> ReadSnapshotFoldStates(FileSystem& fs, const iceberg::Snapshot& snapshot,
                                                  const std::string& table) {
  SnapshotFoldStates read;
  auto whole = snapshot.summary.find(kFoldStateKey);
  auto parts = snapshot.summary.find(kFoldStatePartsKey);
  if (whole != snapshot.summary.end()) {
    ASSIGN_OR_RETURN(std::string text, fs.ReadFileToString(whole->second));
    ASSIGN_OR_RETURN(FoldState state, FoldStateFromJson(text, whole->second));
    read.states.push_back(std::move(state));
    return read;
  }
  if (parts == snapshot.summary.end()) {
    return Status::InvalidArgument(StrCat(table, ": snapshot ", snapshot.snapshot_id, " was not written by cqlite (no ",
                                          kFoldStateKey, ")"));
  }
  read.by_parts = true;
  ASSIGN_OR_RETURN(std::string parts_text, fs.ReadFileToString(parts->second));
  ASSIGN_OR_RETURN(read.parts, PartsFromJson(parts_text, parts->second));
  for (const FoldStatePart& part : read.parts) {
    ASSIGN_OR_RETURN(std::string text, fs.ReadFileToString(part.fold_state));
    ASSIGN_OR_RETURN(FoldState state, FoldStateFromJson(text, part.fold_state));
    read.states.push_back(std::move(state));
  }
  return read;
}

Result<std::map<std::string, std::string>> WriteUnchangedRowsFoldStates(FileSystem& fs,
                                                                       const iceberg::Snapshot& parent,
                                                                       const SnapshotFoldStates& states,
                                                                       RunFiles& files) {
  std::map<std::string, std::string> summary;
  for (const char* key : {kDeltaHorizonKey, kLineageKey, kNowKey, kColumnDropsKey}) {
    auto it = parent.summary.find(key);
    if (it != parent.summary.end()) summary[key] = it->second;
  }
  summary[kGenerationsKey] = "";
  if (!states.by_parts) {
    std::string path = files.FoldState();
    RETURN_IF_ERROR(fs.WriteStringToFile(path, FoldStateToJson(states.states.at(0))));
    summary[kFoldStateKey] = path;
    return summary;
  }
  std::vector<FoldStatePart> parts = states.parts;
  for (size_t p = 0; p < parts.size(); ++p) {
    parts[p].fold_state = files.FoldStateOfPart(static_cast<int>(p));
    RETURN_IF_ERROR(fs.WriteStringToFile(parts[p].fold_state, FoldStateToJson(states.states.at(p))));
  }
  std::string parts_path = files.FoldStateParts();
  RETURN_IF_ERROR(fs.WriteStringToFile(parts_path, PartsToJson(parts)));
  summary[kFoldStatePartsKey] = parts_path;
  summary[kPartsCountKey] = std::to_string(parts.size());
  return summary;
}

std::vector<std::string> StagedRunsOf(const iceberg::Snapshot& snapshot) {
  auto it = snapshot.summary.find(kStagedRunsKey);
  if (it == snapshot.summary.end() || it->second.empty()) return {};
  return Split(it->second, ',');
}

Result<std::vector<std::string>> FoldStateFilesOf(FileSystem& fs, const iceberg::Snapshot& snapshot) {
  std::vector<std::string> files;
  auto whole = snapshot.summary.find(kFoldStateKey);
  auto parts = snapshot.summary.find(kFoldStatePartsKey);
  if (whole == snapshot.summary.end() && parts == snapshot.summary.end()) return files;
  ASSIGN_OR_RETURN(SnapshotFoldStates read, ReadSnapshotFoldStates(fs, snapshot, ""));
  if (read.by_parts) {
    files.push_back(parts->second);
    for (const FoldStatePart& part : read.parts) files.push_back(part.fold_state);
  } else {
    files.push_back(whole->second);
  }
  for (const FoldState& state : read.states) {
    std::vector<std::string> named = state.ReferencedFiles();
    files.insert(files.end(), named.begin(), named.end());
  }
  return files;
}

Result<WrittenSnapshot> WriteSnapshot(FileSystem& fs, const Baseline& base, const NextSnapshot& next,
                                      RunFiles& files) {
  const std::vector<iceberg::DataFile>& added = next.added;
  const bool staged = !next.staged_parts.empty();
  std::string state_path;
  if (!staged) {
    state_path = files.FoldState();
    RETURN_IF_ERROR(fs.WriteStringToFile(state_path, FoldStateToJson(next.state)));
  }

  const iceberg::Snapshot* parent = base.parent ? &*base.parent : nullptr;
  int64_t snapshot_id = iceberg::RandomSnapshotId();
  const iceberg::TableMetadata* base_metadata = base.table ? &base.table->metadata : nullptr;
  int64_t sequence_number = (base_metadata ? base_metadata->last_sequence_number : 0) + 1;
  std::vector<iceberg::ManifestFile> manifests;
  if (parent) {
    ASSIGN_OR_RETURN(manifests, iceberg::ReadManifestList(fs, parent->manifest_list));
  }
  // A schema that differs from the table's current one (schema_evolution.h:
  // its ids are the table's, new fields' after its last-column-id) becomes
  // the table's next.
  std::optional<iceberg::Schema> evolved;
  if (base_metadata && !iceberg::SameStructure(*base_metadata->CurrentSchema(), *next.schema)) {
    evolved = *next.schema;
    evolved->schema_id = 0;
    for (const iceberg::Schema& s : base_metadata->schemas) {
      evolved->schema_id = std::max(evolved->schema_id, s.schema_id + 1);
    }
  }
  iceberg::Schema manifest_schema = evolved ? *evolved : *next.schema;
  if (!evolved && base_metadata) manifest_schema.schema_id = base_metadata->current_schema_id;
  std::string schema_json = iceberg::SchemaToJson(manifest_schema).dump();
  const bool v3 = next.format_version >= 3;
  const int32_t manifest_format = v3 ? iceberg::kManifestFormatV3 : iceberg::kManifestFormatV2;
  for (iceberg::ManifestContent content : {iceberg::ManifestContent::kData, iceberg::ManifestContent::kDeletes}) {
    std::vector<iceberg::ManifestEntry> entries;
    for (const iceberg::DataFile& f : added) {
      bool is_data = f.content == iceberg::FileContent::kData;
      if (is_data == (content == iceberg::ManifestContent::kData)) {
        iceberg::ManifestEntry entry;
        entry.status = iceberg::ManifestEntryStatus::kAdded;
        entry.data_file = f;
        entries.push_back(std::move(entry));
      }
    }
    if (entries.empty()) continue;
    iceberg::ManifestWriteOptions manifest_options;
    manifest_options.table_schema_json = schema_json;
    manifest_options.schema_id = manifest_schema.schema_id;
    manifest_options.content = content;
    manifest_options.format_version = manifest_format;
    std::string path =
        content == iceberg::ManifestContent::kData ? files.DataManifest() : files.DeleteManifest();
    ASSIGN_OR_RETURN(iceberg::ManifestFile manifest,
                     iceberg::WriteManifest(fs, path, manifest_options, entries, snapshot_id, sequence_number));
    manifests.push_back(std::move(manifest));
  }
  // v3: the run's deletes as deletion vectors, and every live delete entry
  // listed anew in one manifest (the vectors replaced, DELETED).
  std::vector<iceberg::DataFile> summary_added = added, summary_removed;
  if (v3 && !next.deleted_positions.empty()) {
    std::vector<iceberg::ManifestFile> parent_deletes;
    std::erase_if(manifests, [&](const iceberg::ManifestFile& m) {
      if (m.content != iceberg::ManifestContent::kDeletes) return false;
      parent_deletes.push_back(m);
      return true;
    });
    ASSIGN_OR_RETURN(DeletionVectorPlan plan,
                     PlanDeletionVectors(fs, parent_deletes, next.deleted_positions, snapshot_id, files));
    iceberg::ManifestWriteOptions manifest_options;
    manifest_options.table_schema_json = schema_json;
    manifest_options.schema_id = manifest_schema.schema_id;
    manifest_options.content = iceberg::ManifestContent::kDeletes;
    manifest_options.format_version = manifest_format;
    ASSIGN_OR_RETURN(iceberg::ManifestFile manifest,
                     iceberg::WriteManifest(fs, files.DeleteManifest(), manifest_options, plan.entries, snapshot_id,
                                            sequence_number));
    manifests.push_back(std::move(manifest));
    summary_added.insert(summary_added.end(), plan.added.begin(), plan.added.end());
    summary_removed = std::move(plan.removed);
  }
  // v3 row lineage: row ids for the rows of every data manifest without
  // them (all of a table's manifests when it was v2 until now).
  const int64_t first_row_id = base_metadata && base_metadata->format_version >= 3 ? base_metadata->next_row_id : 0;
  int64_t added_rows = 0;
  if (v3) {
    ASSIGN_OR_RETURN(added_rows, iceberg::AssignFirstRowIds(&manifests, first_row_id));
  }
  std::string list_path = files.ManifestList(snapshot_id);
  RETURN_IF_ERROR(iceberg::WriteManifestList(fs, list_path, snapshot_id,
                                             parent ? std::optional<int64_t>(parent->snapshot_id) : std::nullopt,
                                             sequence_number, manifests, manifest_format,
                                             v3 ? std::optional<int64_t>(first_row_id) : std::nullopt));
  RETURN_IF_ERROR(fs.SyncFile(list_path));

  iceberg::Snapshot snapshot;
  snapshot.snapshot_id = snapshot_id;
  if (parent) snapshot.parent_snapshot_id = parent->snapshot_id;
  snapshot.sequence_number = sequence_number;
  snapshot.timestamp_ms = WallClockMillis();
  if (base_metadata && snapshot.timestamp_ms <= base_metadata->last_updated_ms) {
    snapshot.timestamp_ms = base_metadata->last_updated_ms + 1;
  }
  snapshot.manifest_list = list_path;
  snapshot.summary = iceberg::SummaryMetrics(
      summary_added, parent ? parent->summary : std::map<std::string, std::string>(), summary_removed);
  bool adds_data = false, adds_deletes = false;
  for (const iceberg::DataFile& f : summary_added) {
    if (f.content == iceberg::FileContent::kData) {
      adds_data = true;
    } else {
      adds_deletes = true;
    }
  }
  snapshot.summary["operation"] = adds_data && adds_deletes ? "overwrite" : adds_deletes ? "delete" : "append";
  snapshot.summary["engine-name"] = "cqlite";
  snapshot.summary["engine-version"] = kCqliteVersion;
  std::vector<std::string> consumed_now;
  for (const ConsumedGeneration& g : next.generations) consumed_now.push_back(g.identity);
  snapshot.summary[kGenerationsKey] = Join(consumed_now, ",");
  snapshot.summary[kDeltaHorizonKey] =
      std::to_string(staged ? next.staged_delta_horizon_micros : next.state.DeltaHorizonMicros());
  snapshot.summary[kLineageKey] = next.lineage;
  snapshot.summary[kNowKey] = std::to_string(next.now_seconds);
  if (next.column_drops) {
    snapshot.summary[kColumnDropsKey] = *next.column_drops;
  } else if (parent && parent->summary.count(kColumnDropsKey)) {
    snapshot.summary[kColumnDropsKey] = parent->summary.at(kColumnDropsKey);
  }
  if (staged) snapshot.summary[kStagedRunsKey] = Join(next.staged_runs, ",");
  if (next.ranges.whole_ring() && !staged) {
    snapshot.summary[kFoldStateKey] = state_path;
  } else {
    const std::vector<FoldStatePart> replacing =
        staged ? next.staged_parts : std::vector<FoldStatePart>{{next.ranges, state_path, next.lineage}};
    std::vector<FoldStatePart> parts;
    for (const FoldStatePart& part : base.parts) {
      bool replaced = std::any_of(replacing.begin(), replacing.end(),
                                  [&](const FoldStatePart& r) { return r.ranges == part.ranges; });
      if (!replaced) parts.push_back(part);
    }
    parts.insert(parts.end(), replacing.begin(), replacing.end());
    std::sort(parts.begin(), parts.end(), [](const FoldStatePart& a, const FoldStatePart& b) {
      return a.ranges.ranges().front().first < b.ranges.ranges().front().first;
    });
    std::string parts_path = files.FoldStateParts();
    RETURN_IF_ERROR(fs.WriteStringToFile(parts_path, PartsToJson(parts)));
    snapshot.summary[kFoldStatePartsKey] = parts_path;
    snapshot.summary[kPartsCountKey] = std::to_string(parts.size());
  }

  WrittenSnapshot written;
  iceberg::TableMetadata& next_metadata = written.metadata;
  if (base_metadata) {
    next_metadata = *base_metadata;
  } else {
    next_metadata = iceberg::NewTableMetadata(base.location, *next.schema, next.new_table_properties,
                                              WallClockMillis(), v3 ? 3 : 2);
  }
  if (v3 && next_metadata.format_version < 3) {  // upgraded in place: no row has an id yet
    next_metadata.format_version = 3;
    next_metadata.next_row_id = 0;
  }
  if (evolved) {
    next_metadata.current_schema_id = evolved->schema_id;
    next_metadata.schemas.push_back(*evolved);
    next_metadata.last_column_id = std::max(next_metadata.last_column_id, evolved->HighestFieldId());
  }
  snapshot.schema_id = next_metadata.current_schema_id;
  if (v3) iceberg::AssignSnapshotRowIds(next_metadata, added_rows, &snapshot);
  iceberg::AddSnapshot(&next_metadata, snapshot, base.table ? base.table->metadata_location : "");
  int version = 0;
  if (base.table) {
    int previous = iceberg::MetadataFileVersion(base.table->metadata_location);
    version = previous >= 0 ? previous + 1 : static_cast<int>(next_metadata.metadata_log.size());
  }
  written.metadata_file = files.MetadataFile(version);
  written.snapshot_id = snapshot_id;
  return written;
}


}  // namespace cqlite::materialize
