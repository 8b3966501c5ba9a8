#include "materialize/materializer.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <map>
#include <optional>
#include <set>

#include "cassandra/sstable.h"
#include "cassandra/table_sstables.h"
#include "cassandra/value_format.h"
#include "envelope/envelope_merge.h"
#include "envelope/envelope_reader.h"
#include "envelope/envelope_schema.h"
#include "envelope/envelope_writer.h"
#include "fold/table_fold.h"
#include "fold/value_order.h"
#include "iceberg/data_files.h"
#include "iceberg/manifest.h"
#include "iceberg/table_metadata.h"
#include "io/checksum.h"
#include "materialize/fold_state.h"
#include "materialize/position_deletes.h"
#include "parquet/writer.h"
#include "util/strings.h"

namespace cqlite::materialize {

namespace {

// Snapshot summary properties (DESIGN D8).
constexpr char kFoldStateKey[] = "cqlite.fold-state";
constexpr char kGenerationsKey[] = "cqlite.generations";
constexpr char kDeltaHorizonKey[] = "cqlite.delta-horizon-micros";
constexpr char kLineageKey[] = "cqlite.lineage";
constexpr char kNowKey[] = "cqlite.ttl-evaluated-at";
constexpr char kEngineVersion[] = "0.1.0";
// The envelope prefix used when a table column starts with the default one.
constexpr char kAlternatePrefix[] = "_cqlite_envelope_";
constexpr int64_t kProgressEvery = 200000;
// Smaller row groups than delta-export's: the fold holds one row group's
// decoded values per consumed generation.
constexpr int64_t kFactsRowGroupRows = 4096;

const std::set<std::string>& SystemKeyspaces() {
  static const std::set<std::string> names = {"system", "system_schema", "system_auth", "system_distributed",
                                              "system_traces", "system_virtual_schema", "system_views",
                                              "system_cluster_metadata"};
  return names;
}

int64_t WallClockSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int64_t WallClockMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// "<table id>/<sstable>/<CRC32 of Data.db>": a generation, wherever it lies.
// Digest.crc32 holds the CRC32 Cassandra computed; without it we compute it.
Result<std::string> GenerationIdentity(FileSystem& fs, const SSTable& sstable) {
  const SSTableLocation& location = sstable.location();
  std::string name = location.name.prefix;
  if (!name.empty() && name.back() == '-') name.pop_back();
  std::string digest_path = location.ComponentPath("Digest.crc32");
  std::string digest;
  if (fs.Exists(digest_path)) {
    ASSIGN_OR_RETURN(std::string text, fs.ReadFileToString(digest_path));
    digest = std::string(Trim(text));
  } else {
    ASSIGN_OR_RETURN(auto file, fs.OpenForRead(location.DataPath()));
    std::vector<uint8_t> buffer(1 << 20);
    uint32_t crc = 0;
    for (uint64_t offset = 0; offset < file->Size();) {
      size_t n = static_cast<size_t>(std::min<uint64_t>(buffer.size(), file->Size() - offset));
      RETURN_IF_ERROR(file->ReadExactly(offset, std::span<uint8_t>(buffer.data(), n)));
      crc = Crc32Extend(crc, std::span<const uint8_t>(buffer.data(), n));
      offset += n;
    }
    digest = std::to_string(crc);
  }
  std::string table = location.table_id.empty() ? StrCat(location.keyspace, ".", location.table) : location.table_id;
  return StrCat(table, "/", name, "/", digest);
}

// The files one attempt writes: removed again if it does not commit.
class AttemptFiles {
 public:
  explicit AttemptFiles(FileSystem& fs) : fs_(fs) {}
  ~AttemptFiles() {
    if (!kept_) {
      for (const std::string& path : paths_) (void)fs_.Remove(path);
    }
  }
  std::string Add(std::string path) {
    paths_.push_back(path);
    return path;
  }
  void Keep() { kept_ = true; }

 private:
  FileSystem& fs_;
  std::vector<std::string> paths_;
  bool kept_ = false;
};

struct Run {
  FileSystem& fs;
  catalog::SqlCatalog& catalog;
  const MaterializeOptions& options;
  const TableSSTables& table;
  const TableMapping& mapping;
  const std::vector<std::string>& identities;
  std::string namespace_name;
  std::string table_name;
  std::string table_dir;
};

void Progress(const MaterializeOptions& options, const std::string& line) {
  if (options.progress) options.progress(line);
}

// Row comparison in fold order: partition token and key, then clustering.
int CompareToRow(Partitioner partitioner, const ClusteringOrder& order, const RowIndexEntry& entry,
                 const std::string& key, const FoldClustering& clustering) {
  auto key_order = ComparePartitionKeys(partitioner, entry.partition_key, key);
  if (key_order != std::strong_ordering::equal) return key_order < 0 ? -1 : 1;
  return order.CompareRows(entry.clustering, clustering);
}

// The table as the catalog has it when an attempt starts.
struct Baseline {
  std::optional<std::string> metadata_location;  // none: the table does not exist yet
  std::optional<iceberg::TableMetadata> metadata;
  std::optional<iceberg::Snapshot> parent;  // the current snapshot
  FoldState state;                          // the parent's fold state
  std::string location;                     // the table's directory
};

Result<Baseline> LoadBaseline(const Run& run) {
  Baseline base;
  ASSIGN_OR_RETURN(base.metadata_location, run.catalog.LoadTable({run.namespace_name}, run.table_name));
  if (!base.metadata_location) {
    base.location = JoinPath(JoinPath(run.options.warehouse, run.namespace_name), run.table_name);
    return base;
  }
  const std::string& current = *base.metadata_location;
  ASSIGN_OR_RETURN(std::string text, run.fs.ReadFileToString(current));
  ASSIGN_OR_RETURN(base.metadata, iceberg::TableMetadataFromJson(text, current));
  base.location = base.metadata->location;
  if (!iceberg::SameStructure(*base.metadata->CurrentSchema(), run.mapping.schema)) {
    return Status::NotSupported(StrCat(current, ": the Iceberg table's schema differs from the one ",
                                       run.table.schema.table.keyspace, ".", run.table.schema.table.table,
                                       " maps to now; schema changes are not supported yet"));
  }
  const iceberg::Snapshot* parent = base.metadata->CurrentSnapshot();
  if (parent == nullptr) return base;
  base.parent = *parent;
  auto it = parent->summary.find(kFoldStateKey);
  if (it == parent->summary.end()) {
    return Status::InvalidArgument(StrCat(current, ": snapshot ", parent->snapshot_id, " was not written by cqlite (no ",
                                          kFoldStateKey, "); cqlite materializes only into tables it created"));
  }
  ASSIGN_OR_RETURN(std::string state_text, run.fs.ReadFileToString(it->second));
  ASSIGN_OR_RETURN(base.state, FoldStateFromJson(state_text, it->second));
  return base;
}

// Where one attempt writes; every name carries its run id.
struct AttemptPaths {
  std::string run_id = iceberg::RandomUuid();
  std::string data_dir, metadata_dir, state_dir, facts_dir;

  explicit AttemptPaths(const std::string& location)
      : data_dir(JoinPath(location, "data")),
        metadata_dir(JoinPath(location, "metadata")),
        state_dir(JoinPath(location, "cqlite")),
        facts_dir(JoinPath(state_dir, "facts")) {}
};

Result<int64_t> FilesBytes(FileSystem& fs, const std::vector<std::string>& paths) {
  int64_t bytes = 0;
  for (const std::string& path : paths) {
    ASSIGN_OR_RETURN(auto file, fs.OpenForRead(path));
    bytes += static_cast<int64_t>(file->Size());
  }
  return bytes;
}

struct NewFacts {
  std::vector<ConsumedGeneration> generations;
  std::vector<FactsSet> facts;  // one per generation
};

// Step 2 (materializer.h): the facts of the generations not consumed before,
// one set of envelope files each.
Result<NewFacts> ExportFacts(const Run& run, const std::vector<size_t>& fresh, const AttemptPaths& paths,
                             AttemptFiles& files) {
  envelope::ExportOptions export_options;
  export_options.row_group_rows = kFactsRowGroupRows;
  if (!envelope::CheckPrefix(run.table.schema.table, export_options.prefix).ok()) {
    export_options.prefix = kAlternatePrefix;
    RETURN_IF_ERROR(envelope::CheckPrefix(run.table.schema.table, export_options.prefix));
  }
  NewFacts out;
  for (size_t k = 0; k < fresh.size(); ++k) {
    const SSTable& sstable = *run.table.sstables[fresh[k]];
    Progress(run.options,
             StrCat("reading generation ", k + 1, " of ", fresh.size(), ": ", sstable.location().DataPath()));
    auto file_path = [&](int i) { return JoinPath(paths.facts_dir, StrCat(paths.run_id, "-", k, "-", i, ".parquet")); };
    ASSIGN_OR_RETURN(std::vector<std::string> written,
                     envelope::ExportSSTableSegments(run.fs, sstable, run.table.schema.table, file_path,
                                                     run.options.facts_file_records, export_options));
    FactsSet set;
    for (std::string& path : written) {
      RETURN_IF_ERROR(run.fs.SyncFile(path));
      set.files.push_back(files.Add(std::move(path)));
    }
    ASSIGN_OR_RETURN(set.bytes, FilesBytes(run.fs, set.files));
    int64_t max_timestamp = sstable.statistics().stats ? sstable.statistics().stats->max_timestamp : 0;
    out.generations.push_back({run.identities[fresh[k]], max_timestamp});
    out.facts.push_back(std::move(set));
  }
  return out;
}

// Step 2, continued: facts sets merged, smallest first, until the fold reads
// at most fold_fan_in of them. The sets merged stay for the snapshots that
// name them.
Result<std::vector<FactsSet>> MergeFactsSets(const Run& run, std::vector<FactsSet> sets, const AttemptPaths& paths,
                                             AttemptFiles& files) {
  std::vector<int64_t> sizes;
  for (FactsSet& set : sets) {
    // Format 1 states did not record sizes.
    if (set.bytes == 0) {
      ASSIGN_OR_RETURN(set.bytes, FilesBytes(run.fs, set.files));
    }
    sizes.push_back(set.bytes);
  }
  std::vector<std::vector<size_t>> merges = PlanFactsMerges(sizes, run.options.fold_fan_in);
  if (merges.empty()) return sets;
  std::vector<bool> merged_away(sets.size() + merges.size());
  for (size_t m = 0; m < merges.size(); ++m) {
    std::vector<std::vector<std::string>> chains;
    int64_t input_bytes = 0;
    for (size_t index : merges[m]) {
      chains.push_back(sets[index].files);
      input_bytes += sets[index].bytes;
      merged_away[index] = true;
    }
    Progress(run.options, StrCat("merging facts (at most ", run.options.fold_fan_in, " are folded at once): ",
                                 chains.size(), " sets, ", input_bytes, " bytes, into one; merge ", m + 1, " of ",
                                 merges.size()));
    envelope::MergeOptions merge_options;
    merge_options.row_group_rows = kFactsRowGroupRows;
    merge_options.max_records_per_file = run.options.facts_file_records;
    auto file_path = [&](int i) {
      return JoinPath(paths.facts_dir, StrCat(paths.run_id, "-merge", m, "-", i, ".parquet"));
    };
    ASSIGN_OR_RETURN(envelope::MergeResult result, envelope::MergeFacts(run.fs, chains, file_path, merge_options));
    FactsSet set;
    set.generations = result.generations;
    for (std::string& path : result.files) {
      RETURN_IF_ERROR(run.fs.SyncFile(path));
      set.files.push_back(files.Add(std::move(path)));
    }
    ASSIGN_OR_RETURN(set.bytes, FilesBytes(run.fs, set.files));
    sets.push_back(std::move(set));
  }
  std::vector<FactsSet> left;
  for (size_t i = 0; i < sets.size(); ++i) {
    if (!merged_away[i]) left.push_back(std::move(sets[i]));
  }
  return left;
}

// What step 3 leaves for the snapshot.
struct MergedFold {
  std::vector<std::string> row_index;                   // the new row index's files
  std::vector<iceberg::DataFile> data_files;            // the run's data file, if it wrote a row
  std::vector<iceberg::DataFile> delete_files;          // positions no longer current
  int64_t next_expiry = INT64_MAX;                      // when the next TTL runs out
};

// Step 3: every fact (those of the baseline and the new ones) folded as of
// `now`, merged with the baseline's row index in fold order: unchanged rows
// keep their location, new and changed rows go to a new data file, rows
// changed or gone are position-deleted where they were.
Result<MergedFold> FoldAndMerge(const Run& run, const Baseline& base, const std::vector<FactsSet>& facts,
                                int64_t now, const AttemptPaths& paths, AttemptFiles& files, TableReport* report) {
  std::vector<std::vector<std::string>> chains;
  for (const FactsSet& set : facts) chains.push_back(set.files);

  const TableSchema* fold_schema = &run.table.schema.table;
  std::optional<Partitioner> partitioner = run.table.partitioner;
  std::vector<std::unique_ptr<FoldSource>> sources;
  envelope::EnvelopeInputs inputs;
  // The envelope files carry the schema they were written with; its columns
  // may be ordered otherwise than the SSTables' schema, so rows are converted
  // with a mapping made from it (after checking it maps to the same table).
  TableMapping fold_mapping = run.mapping;
  if (!chains.empty()) {
    ASSIGN_OR_RETURN(inputs, envelope::OpenEnvelopeChains(run.fs, chains, {}));
    fold_schema = inputs.schema.get();
    partitioner = inputs.partitioner;
    sources = std::move(inputs.sources);
    ASSIGN_OR_RETURN(fold_mapping, MapTable(*fold_schema, run.options.mapping));
    if (!iceberg::SameStructure(fold_mapping.schema, run.mapping.schema)) {
      return Status::NotSupported(StrCat(base.location, ": the schema of the consumed generations differs from ",
                                         run.table_dir, "'s; schema changes are not supported yet"));
    }
  }
  if (!partitioner) {
    return Status::NotSupported(StrCat(run.table_dir, ": written by a partitioner whose key order cqlite does not "
                                                      "know; materialize needs Murmur3, Random or ByteOrdered"));
  }
  ASSIGN_OR_RETURN(auto fold, TableFold::Make(*fold_schema, partitioner, std::move(sources), now));
  RowConverter converter(*fold_schema, fold_mapping, run.options.mapping);
  std::vector<CqlTypePtr> clustering_types;
  for (const ColumnSchema* column : fold_schema->ClusteringColumns()) {
    auto type = std::make_shared<CqlType>(*column->type);
    type->reversed = column->reversed;
    clustering_types.push_back(type);
  }
  ClusteringOrder order(clustering_types);
  // A COMPACT STORAGE table without (visible) clustering columns keeps its
  // rows as static rows: SELECT shows each as the partition's one row.
  const auto clustering_columns = fold_schema->ClusteringColumns();
  const bool static_rows_are_rows =
      !clustering_columns.empty() &&
      std::all_of(clustering_columns.begin(), clustering_columns.end(), [](const ColumnSchema* c) { return c->hidden; });
  const std::vector<FoldRow> static_row_as_row(1);

  MergedFold merged;
  ASSIGN_OR_RETURN(auto old_index, RowIndexReader::Open(run.fs, base.state.row_index));
  auto new_index = std::make_unique<RowIndexWriter>(run.fs, [&](int i) {
    return files.Add(JoinPath(paths.state_dir, StrCat("rows-", paths.run_id, "-", i, ".parquet")));
  });
  std::string data_path = JoinPath(paths.data_dir, StrCat(paths.run_id, "-0.parquet"));
  std::unique_ptr<parquet::ParquetWriter> data_writer;

  PositionDeleteWriter deletes(
      run.fs,
      [&](int i) { return files.Add(JoinPath(paths.data_dir, StrCat(paths.run_id, "-deletes-", i, ".parquet"))); },
      run.options.compression);

  RowIndexEntry old;
  ASSIGN_OR_RETURN(bool has_old, old_index->Next(&old));
  auto drop_old = [&]() -> Status {
    RETURN_IF_ERROR(deletes.Add(old.data_file, old.position));
    ++report->rows_deleted;
    ASSIGN_OR_RETURN(has_old, old_index->Next(&old));
    return Status::OK();
  };

  FoldedPartition partition;
  int64_t rows_seen = 0;
  while (true) {
    ASSIGN_OR_RETURN(bool more, fold->Next(&partition));
    if (!more) break;
    const std::vector<FoldRow>* rows = &partition.rows;
    if (rows->empty()) {
      if (!partition.has_static_row) continue;
      if (!static_rows_are_rows) {
        ++report->static_only_partitions;
        continue;
      }
      rows = &static_row_as_row;
    }
    const FoldRow* static_row = partition.has_static_row ? &partition.static_row : nullptr;
    if (static_row) merged.next_expiry = std::min(merged.next_expiry, RowConverter::EarliestExpiry(*static_row));
    for (const FoldRow& row : *rows) {
      auto value = converter.Convert(partition.key, static_row, row);
      if (!value.ok()) {
        auto key = PartitionKeyStrings(*fold_schema->PartitionKeyType(), partition.key);
        return value.status().WithContext(
            StrCat(run.table_dir, ": partition ", key.ok() ? Join(*key, ":") : ToHex(partition.key)));
      }
      uint64_t hash = HashValue(*value);
      merged.next_expiry = std::min(merged.next_expiry, RowConverter::EarliestExpiry(row));
      while (has_old && CompareToRow(*partitioner, order, old, partition.key, row.clustering) < 0) {
        RETURN_IF_ERROR(drop_old());
      }
      bool same_key = has_old && CompareToRow(*partitioner, order, old, partition.key, row.clustering) == 0;
      if (same_key && old.hash == hash) {
        RETURN_IF_ERROR(new_index->Add(old));
        ASSIGN_OR_RETURN(has_old, old_index->Next(&old));
      } else {
        if (same_key) RETURN_IF_ERROR(drop_old());
        if (!data_writer) {
          files.Add(data_path);
          parquet::WriterOptions writer_options;
          writer_options.compression = run.options.compression;
          if (run.options.compression == parquet::CompressionCodec::kZstd) {
            writer_options.compression_level = run.options.compression_level;
          }
          ASSIGN_OR_RETURN(data_writer, parquet::ParquetWriter::Open(run.fs, data_path,
                                                                     iceberg::ToParquetSchema(run.mapping.schema),
                                                                     writer_options));
        }
        RowIndexEntry entry{partition.key, row.clustering, data_path, data_writer->num_rows(), hash};
        RETURN_IF_ERROR(data_writer->WriteRow(*value));
        RETURN_IF_ERROR(new_index->Add(entry));
        ++report->rows_appended;
      }
      if (++rows_seen % kProgressEvery == 0) {
        Progress(run.options, StrCat(rows_seen, " rows folded, ", report->rows_appended, " written, ",
                                     report->rows_deleted, " deleted"));
      }
    }
  }
  while (has_old) RETURN_IF_ERROR(drop_old());
  ASSIGN_OR_RETURN(merged.row_index, new_index->Close());
  for (const std::string& path : merged.row_index) RETURN_IF_ERROR(run.fs.SyncFile(path));
  report->rows_total = new_index->count();
  if (data_writer) {
    ASSIGN_OR_RETURN(parquet::WriteResult written, data_writer->Close());
    RETURN_IF_ERROR(run.fs.SyncFile(data_path));
    merged.data_files.push_back(iceberg::DescribeDataFile(data_path, written, run.mapping.schema));
  }
  ASSIGN_OR_RETURN(merged.delete_files, deletes.Finish());
  return merged;
}

// Step 4: the fold state, manifests for the added files, a manifest list
// that keeps the parent's manifests, and the next table metadata file.
// Returns the new metadata file's path; the snapshot's id goes to `report`.
Result<std::string> WriteSnapshot(const Run& run, const Baseline& base, const FoldState& next,
                                  const std::vector<iceberg::DataFile>& added,
                                  const std::vector<ConsumedGeneration>& new_generations, int64_t now,
                                  const AttemptPaths& paths, AttemptFiles& files, TableReport* report) {
  FileSystem& fs = run.fs;
  std::string state_path = files.Add(JoinPath(paths.state_dir, StrCat("state-", paths.run_id, ".json")));
  RETURN_IF_ERROR(fs.WriteStringToFile(state_path, FoldStateToJson(next)));

  const iceberg::Snapshot* parent = base.parent ? &*base.parent : nullptr;
  int64_t snapshot_id = iceberg::RandomSnapshotId();
  int64_t sequence_number = (base.metadata ? base.metadata->last_sequence_number : 0) + 1;
  std::vector<iceberg::ManifestFile> manifests;
  if (parent) {
    ASSIGN_OR_RETURN(manifests, iceberg::ReadManifestList(fs, parent->manifest_list));
  }
  std::string schema_json = iceberg::SchemaToJson(run.mapping.schema).dump();
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
    manifest_options.content = content;
    std::string path = files.Add(JoinPath(
        paths.metadata_dir, StrCat(paths.run_id, content == iceberg::ManifestContent::kData ? "-m0.avro" : "-m1.avro")));
    ASSIGN_OR_RETURN(iceberg::ManifestFile manifest,
                     iceberg::WriteManifest(fs, path, manifest_options, entries, snapshot_id, sequence_number));
    manifests.push_back(std::move(manifest));
  }
  std::string list_path =
      files.Add(JoinPath(paths.metadata_dir, StrCat("snap-", snapshot_id, "-1-", paths.run_id, ".avro")));
  RETURN_IF_ERROR(iceberg::WriteManifestList(fs, list_path, snapshot_id,
                                             parent ? std::optional<int64_t>(parent->snapshot_id) : std::nullopt,
                                             sequence_number, manifests));
  RETURN_IF_ERROR(fs.SyncFile(list_path));

  iceberg::Snapshot snapshot;
  snapshot.snapshot_id = snapshot_id;
  if (parent) snapshot.parent_snapshot_id = parent->snapshot_id;
  snapshot.sequence_number = sequence_number;
  snapshot.timestamp_ms = WallClockMillis();
  if (base.metadata && snapshot.timestamp_ms <= base.metadata->last_updated_ms) {
    snapshot.timestamp_ms = base.metadata->last_updated_ms + 1;
  }
  snapshot.manifest_list = list_path;
  snapshot.schema_id = 0;
  snapshot.summary = iceberg::SummaryMetrics(added, parent ? parent->summary : std::map<std::string, std::string>());
  bool adds_data = report->data_files > 0, adds_deletes = report->delete_files > 0;
  snapshot.summary["operation"] = adds_data && adds_deletes ? "overwrite" : adds_deletes ? "delete" : "append";
  snapshot.summary["engine-name"] = "cqlite";
  snapshot.summary["engine-version"] = kEngineVersion;
  std::vector<std::string> consumed_now;
  for (const ConsumedGeneration& g : new_generations) consumed_now.push_back(g.identity);
  snapshot.summary[kGenerationsKey] = Join(consumed_now, ",");
  snapshot.summary[kDeltaHorizonKey] = std::to_string(next.DeltaHorizonMicros());
  snapshot.summary[kLineageKey] = run.table_dir;
  snapshot.summary[kNowKey] = std::to_string(now);
  snapshot.summary[kFoldStateKey] = state_path;

  iceberg::TableMetadata next_metadata;
  if (base.metadata) {
    next_metadata = *base.metadata;
  } else {
    const TableSchema& t = run.table.schema.table;
    std::map<std::string, std::string> properties = {
        {"cqlite.source.keyspace", t.keyspace},
        {"cqlite.source.table", t.table},
        {"cqlite.source.path", run.table_dir},
        {"write.parquet.compression-codec", run.options.compression == parquet::CompressionCodec::kZstd ? "zstd"
                                            : run.options.compression == parquet::CompressionCodec::kSnappy
                                                ? "snappy"
                                                : "uncompressed"},
    };
    if (run.options.compression == parquet::CompressionCodec::kZstd) {
      properties["write.parquet.compression-level"] = std::to_string(run.options.compression_level);
    }
    next_metadata = iceberg::NewTableMetadata(base.location, run.mapping.schema, std::move(properties),
                                              WallClockMillis());
  }
  iceberg::AddSnapshot(&next_metadata, snapshot, base.metadata_location.value_or(""));
  int version = 0;
  if (base.metadata_location) {
    int previous = iceberg::MetadataFileVersion(*base.metadata_location);
    version = previous >= 0 ? previous + 1 : static_cast<int>(next_metadata.metadata_log.size());
  }
  std::string metadata_path = files.Add(iceberg::MetadataFilePath(base.location, version));
  RETURN_IF_ERROR(fs.WriteStringToFile(metadata_path, iceberg::TableMetadataToJson(next_metadata)));
  report->snapshot_id = snapshot_id;
  return metadata_path;
}

// One attempt: the steps of materializer.h, then the compare-and-swap.
Status RunOnce(const Run& run, TableReport* report) {
  ASSIGN_OR_RETURN(Baseline base, LoadBaseline(run));
  std::set<std::string> consumed;
  for (const ConsumedGeneration& g : base.state.generations) consumed.insert(g.identity);
  std::vector<size_t> fresh;
  for (size_t i = 0; i < run.identities.size(); ++i) {
    if (!consumed.count(run.identities[i])) fresh.push_back(i);
  }
  int64_t now = run.options.now_seconds >= 0 ? run.options.now_seconds : WallClockSeconds();
  report->generations_found = static_cast<int>(run.identities.size());
  report->now_seconds = now;
  report->rows_total = base.state.row_count;
  if (base.metadata && fresh.empty() && now < base.state.next_expiry) {
    report->message = "nothing new: every generation was consumed before and no row has expired since";
    report->metadata_location = *base.metadata_location;
    return Status::OK();
  }

  AttemptFiles files(run.fs);
  AttemptPaths paths(base.location);
  for (const std::string& dir : {paths.data_dir, paths.metadata_dir, paths.facts_dir}) {
    RETURN_IF_ERROR(run.fs.CreateDirectories(dir));
  }
  ASSIGN_OR_RETURN(NewFacts new_facts, ExportFacts(run, fresh, paths, files));
  const std::vector<ConsumedGeneration>& new_generations = new_facts.generations;
  std::vector<FactsSet> facts = base.state.facts;
  for (FactsSet& set : new_facts.facts) facts.push_back(std::move(set));
  ASSIGN_OR_RETURN(facts, MergeFactsSets(run, std::move(facts), paths, files));
  ASSIGN_OR_RETURN(MergedFold merged, FoldAndMerge(run, base, facts, now, paths, files, report));
  std::vector<iceberg::DataFile> added = std::move(merged.data_files);
  for (iceberg::DataFile& f : merged.delete_files) added.push_back(std::move(f));
  for (const iceberg::DataFile& f : added) {
    report->bytes_written += f.file_size_in_bytes;
    (f.content == iceberg::FileContent::kData ? report->data_files : report->delete_files)++;
  }
  if (base.metadata && fresh.empty() && added.empty()) {
    report->message = "nothing new: no generation to consume, and no row changed since the last snapshot";
    report->metadata_location = *base.metadata_location;
    return Status::OK();
  }

  FoldState next = base.state;
  next.generations.insert(next.generations.end(), new_generations.begin(), new_generations.end());
  next.facts = std::move(facts);
  next.row_index = merged.row_index;
  next.row_count = report->rows_total;
  next.next_expiry = merged.next_expiry;
  next.folded_at = now;
  ASSIGN_OR_RETURN(std::string metadata_path,
                   WriteSnapshot(run, base, next, added, new_generations, now, paths, files, report));

  // Step 5: the one change that makes it all visible.
  Progress(run.options, "committing");
  catalog::Namespace ns{run.namespace_name};
  if (base.metadata_location) {
    RETURN_IF_ERROR(run.catalog.CommitTable(ns, run.table_name, *base.metadata_location, metadata_path));
  } else {
    RETURN_IF_ERROR(run.catalog.CreateNamespace(ns));
    RETURN_IF_ERROR(run.catalog.CreateTable(ns, run.table_name, metadata_path));
  }
  files.Keep();
  report->committed = true;
  report->metadata_location = metadata_path;
  report->generations_consumed = static_cast<int>(new_generations.size());
  report->message = StrCat("committed snapshot ", report->snapshot_id);
  return Status::OK();
}

}  // namespace

namespace {

// What a run needs to know before it writes anything; errors here refuse the
// table with nothing written.
struct TablePlan {
  TableSSTables table;
  TableMapping mapping;
  TableReport report;
};

Result<TablePlan> PlanTable(FileSystem& fs, const std::string& table_dir, const MaterializeOptions& options) {
  TablePlan plan;
  ASSIGN_OR_RETURN(plan.table, OpenTableSSTables(fs, table_dir, options.schema_file));
  const TableSchema& schema = plan.table.schema.table;
  ASSIGN_OR_RETURN(plan.mapping, MapTable(schema, options.mapping));
  TableReport& report = plan.report;
  report.source = table_dir;
  report.namespace_name = options.namespace_name.empty() ? schema.keyspace : options.namespace_name;
  report.table_name = options.table_name.empty() ? schema.table : options.table_name;
  report.warning = plan.mapping.identifier_warning;
  if (report.namespace_name.empty() || report.table_name.empty()) {
    return Status::InvalidArgument(StrCat(table_dir, ": cannot tell the keyspace and table from the path; give "
                                                     "--namespace and --table"));
  }
  RETURN_IF_ERROR(catalog::ValidateNamespace({report.namespace_name}));
  RETURN_IF_ERROR(catalog::ValidateTableName(report.table_name));
  return plan;
}

}  // namespace

Status CheckTable(FileSystem& fs, const std::string& table_dir, const MaterializeOptions& options) {
  return PlanTable(fs, table_dir, options).status();
}

Result<TableReport> MaterializeTable(FileSystem& fs, catalog::SqlCatalog& catalog, const std::string& table_dir,
                                     const MaterializeOptions& options) {
  // Everything that can be refused is refused before any file is written.
  ASSIGN_OR_RETURN(TablePlan plan, PlanTable(fs, table_dir, options));
  const TableSSTables& table = plan.table;
  const TableMapping& mapping = plan.mapping;
  TableReport& report = plan.report;
  std::vector<std::string> identities;
  for (const auto& sstable : table.sstables) {
    ASSIGN_OR_RETURN(std::string identity, GenerationIdentity(fs, *sstable));
    identities.push_back(std::move(identity));
  }
  Run run{fs, catalog, options, table, mapping, identities, report.namespace_name, report.table_name, table_dir};
  for (int attempt = 1; attempt <= std::max(1, options.max_attempts); ++attempt) {
    TableReport attempt_report = report;
    attempt_report.attempts = attempt;
    Status status = RunOnce(run, &attempt_report);
    if (status.ok()) return attempt_report;
    if (status.kind() != StatusKind::kCommitConflict) return status;
    Progress(options, StrCat("another writer committed first; trying again (attempt ", attempt + 1, ")"));
  }
  return Status::CommitConflict(StrCat(report.namespace_name, ".", report.table_name, ": gave up after ",
                                       options.max_attempts, " attempts, each losing to another writer"));
}

Result<std::vector<std::string>> FindTableDirectories(FileSystem& fs, const std::string& path) {
  ASSIGN_OR_RETURN(auto locations, FindSSTables(fs, path));
  std::vector<std::string> directories;
  for (const SSTableLocation& location : locations) {
    if (SystemKeyspaces().count(location.keyspace) && !location.table_id.empty()) continue;
    if (std::find(directories.begin(), directories.end(), location.directory) == directories.end()) {
      directories.push_back(location.directory);
    }
  }
  if (directories.empty()) {
    return Status::NotFound(StrCat(path, ": holds only Cassandra's system tables; nothing to materialize"));
  }
  return directories;
}

}  // namespace cqlite::materialize
