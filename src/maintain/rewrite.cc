#include "maintain/rewrite.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <unordered_map>

#include "iceberg/data_files.h"
#include "iceberg/manifest.h"
#include "iceberg/schema.h"
#include "maintain/table_files.h"
#include "fold_state/fold_state.h"
#include "materialize/snapshot.h"
#include "parquet/reader.h"
#include "parquet/writer.h"
#include "util/strings.h"
#include "util/version.h"

namespace cqlite::maintain {

namespace {

using iceberg::ManifestEntry;
using iceberg::ManifestEntryStatus;

// The deletes that apply to one live data file.
struct DataFileDeletes {
  std::vector<int64_t> positions;     // ascending, distinct
  std::vector<size_t> delete_files;   // indexes into LiveFiles::deletes
};

// Where the live rows of a rewritten data file went.
struct NewPlace {
  std::string file;                           // the new data file
  int64_t offset = 0;                         // the position of its first live row there
  const std::vector<int64_t>* deleted = nullptr;  // its deleted positions
  // The new position of live row `position`.
  int64_t Of(int64_t position) const {
    auto before = std::lower_bound(deleted->begin(), deleted->end(), position) - deleted->begin();
    return offset + position - before;
  }
  bool IsDeleted(int64_t position) const { return std::binary_search(deleted->begin(), deleted->end(), position); }
};

int64_t WallClockMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Calls `visit` with each row of `reader`'s file in order, a row group's
// values decoded at a time.
Status ForEachRow(parquet::ParquetReader& reader, const std::function<Status(const parquet::Value&)>& visit) {
  parquet::Value row;
  for (int g = 0; g < reader.num_row_groups(); ++g) {
    RETURN_IF_ERROR(reader.StartRowGroup(g));
    while (true) {
      ASSIGN_OR_RETURN(bool more, reader.NextRow(&row));
      if (!more) break;
      RETURN_IF_ERROR(visit(row));
    }
  }
  return Status::OK();
}

// `value`, of field `from` of a data file written with an earlier schema, as
// a value of `to`, the same field (by id) in the current schema: struct
// fields found by their ids, those the file lacks (added since) null, those
// the current schema lacks (dropped since) left out.
parquet::Value ProjectById(const parquet::Value& value, const parquet::Field& from, const parquet::Field& to) {
  using Kind = parquet::Field::Kind;
  if (value.is_null() || to.kind == Kind::kPrimitive) return value;
  if (to.kind == Kind::kList) {
    std::vector<parquet::Value> elements;
    for (const parquet::Value& e : value.elements()) elements.push_back(ProjectById(e, from.children[0], to.children[0]));
    return parquet::Value::List(std::move(elements));
  }
  if (to.kind == Kind::kMap) {
    std::vector<std::pair<parquet::Value, parquet::Value>> entries;
    for (size_t i = 0; i < value.map_size(); ++i) {
      entries.emplace_back(ProjectById(value.map_key(i), from.children[0], to.children[0]),
                           ProjectById(value.map_value(i), from.children[1], to.children[1]));
    }
    return parquet::Value::Map(std::move(entries));
  }
  std::vector<parquet::Value> fields;
  for (const parquet::Field& field : to.children) {
    parquet::Value projected;
    for (size_t i = 0; i < from.children.size() && i < value.fields().size(); ++i) {
      if (from.children[i].field_id == field.field_id) projected = ProjectById(value.fields()[i], from.children[i], field);
    }
    fields.push_back(std::move(projected));
  }
  return parquet::Value::Struct(std::move(fields));
}

parquet::WriterOptions DataFileWriterOptions(const iceberg::TableMetadata& metadata) {
  parquet::WriterOptions options;
  auto codec = metadata.properties.find("write.parquet.compression-codec");
  if (codec != metadata.properties.end()) {
    if (codec->second == "snappy") options.compression = parquet::CompressionCodec::kSnappy;
    if (codec->second == "uncompressed") options.compression = parquet::CompressionCodec::kUncompressed;
  }
  auto level = metadata.properties.find("write.parquet.compression-level");
  if (options.compression == parquet::CompressionCodec::kZstd && level != metadata.properties.end()) {
    options.compression_level = std::clamp(std::atoi(level->second.c_str()), 1, 22);
  }
  options.row_group_size = size_t{64} << 20;  // as a run with two threads writes them
  return options;
}

// Reads the positions every live position delete file deletes, by the
// data file they apply to (a delete applies to a data file of a data
// sequence number no greater than its own, spec "Scan Planning").
Result<std::unordered_map<std::string, DataFileDeletes>> ReadDeletes(FileSystem& fs, const LiveFiles& live,
                                                                     const std::string& name) {
  std::unordered_map<std::string, int64_t> data_sequence;
  for (const ManifestEntry& e : live.data) data_sequence[e.data_file.file_path] = e.sequence_number.value_or(0);
  std::unordered_map<std::string, DataFileDeletes> deletes;
  for (size_t i = 0; i < live.deletes.size(); ++i) {
    const iceberg::DataFile& file = live.deletes[i].data_file;
    if (file.content != iceberg::FileContent::kPositionDeletes || ToLowerAscii(file.file_format) != "parquet") {
      return Status::NotSupported(StrCat(name, ": ", file.file_path,
                                         " is not a Parquet position delete file; cqlite maintains only the tables "
                                         "it writes"));
    }
    const int64_t sequence = live.deletes[i].sequence_number.value_or(0);
    ASSIGN_OR_RETURN(auto reader, parquet::ParquetReader::Open(fs, file.file_path));
    std::string last_path;
    DataFileDeletes* target = nullptr;
    int64_t row_number = 0;
    RETURN_IF_ERROR(ForEachRow(*reader, [&](const parquet::Value& row) -> Status {
      if (row.fields().size() != 2 || row.fields()[0].kind() != parquet::Value::Kind::kBytes ||
          row.fields()[1].kind() != parquet::Value::Kind::kInt64) {
        return Status::Corruption(StrCat(file.file_path, ": row ", row_number,
                                         ": not a position delete file (file_path, pos)"));
      }
      ++row_number;
      std::string path = iceberg::LocalFilePath(row.fields()[0].bytes());
      if (target == nullptr || path != last_path) {
        auto applies = data_sequence.find(path);
        target = applies != data_sequence.end() && applies->second <= sequence ? &deletes[path] : nullptr;
        if (target && (target->delete_files.empty() || target->delete_files.back() != i)) {
          target->delete_files.push_back(i);
        }
        last_path = path;
      }
      if (target) target->positions.push_back(row.fields()[1].int64_value());
      return Status::OK();
    }));
  }
  for (auto& [path, d] : deletes) {
    std::sort(d.positions.begin(), d.positions.end());
    d.positions.erase(std::unique(d.positions.begin(), d.positions.end()), d.positions.end());
  }
  return deletes;
}

// Rewrites one layer of a row index, naming rewritten rows' new places. A
// base entry of a deleted position is one the update layer replaced or
// removed: it goes. An update entry of one is a broken index.
Result<std::vector<std::string>> RemapRowIndexLayer(FileSystem& fs, const std::vector<std::string>& layer,
                                                    bool is_base,
                                                    const std::unordered_map<std::string, NewPlace>& places,
                                                    const std::function<std::string(int)>& file_path,
                                                    int64_t* entries) {
  *entries = 0;
  if (layer.empty()) return std::vector<std::string>();
  ASSIGN_OR_RETURN(auto reader, materialize::RowIndexReader::Open(fs, layer));
  materialize::RowIndexWriter writer(fs, file_path);
  materialize::RowIndexReader::EntryView entry;
  std::string last_file;
  const NewPlace* place = nullptr;
  while (true) {
    ASSIGN_OR_RETURN(bool more, reader->NextView(&entry));
    if (!more) break;
    if (entry.removes()) {
      RETURN_IF_ERROR(
          writer.AddEncoded(entry.partition_key, entry.clustering, entry.data_file, 0, entry.hash, entry.expires));
      continue;
    }
    if (place == nullptr || entry.data_file != last_file) {
      auto it = places.find(std::string(entry.data_file));
      place = it == places.end() ? nullptr : &it->second;
      last_file = entry.data_file;
    }
    if (place == nullptr) {
      RETURN_IF_ERROR(writer.AddEncoded(entry.partition_key, entry.clustering, entry.data_file, entry.position,
                                        entry.hash, entry.expires));
      continue;
    }
    if (place->IsDeleted(entry.position)) {
      if (is_base) continue;
      return Status::Corruption(StrCat(layer.front(), ": the row index's update layer names position ",
                                       entry.position, " of ", entry.data_file, ", which a delete file deletes"));
    }
    RETURN_IF_ERROR(writer.AddEncoded(entry.partition_key, entry.clustering, place->file,
                                      place->Of(entry.position), entry.hash, entry.expires));
  }
  *entries = writer.count();
  ASSIGN_OR_RETURN(std::vector<std::string> written, writer.Close());
  for (const std::string& f : written) RETURN_IF_ERROR(fs.SyncFile(f));
  return written;
}

// A manifest of `entries` (of one content) for snapshot `snapshot_id`.
Result<iceberg::ManifestFile> WriteEntries(FileSystem& fs, const std::string& path, const iceberg::Schema& schema,
                                           iceberg::ManifestContent content,
                                           const std::vector<ManifestEntry>& entries, int64_t snapshot_id,
                                           int64_t sequence_number) {
  iceberg::ManifestWriteOptions options;
  options.table_schema_json = iceberg::SchemaToJson(schema).dump();
  options.schema_id = schema.schema_id;
  options.content = content;
  return iceberg::WriteManifest(fs, path, options, entries, snapshot_id, sequence_number);
}

}  // namespace

Result<std::optional<PlannedVersion>> RewriteDataFiles(FileSystem& fs, const catalog::LoadedTable& table,
                                                       const std::string& name, const RewriteOptions& options,
                                                       materialize::RunFiles& files, RewriteReport* report) {
  const iceberg::TableMetadata& metadata = table.metadata;
  const iceberg::Snapshot* current = metadata.CurrentSnapshot();
  if (current == nullptr) return std::optional<PlannedVersion>();
  if (metadata.format_version >= 3) {
    return Status::NotSupported(StrCat(name, ": a v3 table (deletion vectors); maintain rewrites v2 tables only "
                                             "for now (--skip rewrite expires and removes orphans)"));
  }
  auto progress = [&](const std::string& line) {
    if (options.progress) options.progress(line);
  };
  ASSIGN_OR_RETURN(materialize::SnapshotFoldStates states, materialize::ReadSnapshotFoldStates(fs, *current, name));
  ASSIGN_OR_RETURN(LiveFiles live, ReadLiveFiles(fs, *current));
  ASSIGN_OR_RETURN(auto deletes, ReadDeletes(fs, live, name));
  static const DataFileDeletes kNoDeletes;
  auto deletes_of = [&](const std::string& path) -> const DataFileDeletes& {
    auto it = deletes.find(path);
    return it == deletes.end() ? kNoDeletes : it->second;
  };

  // Which data files go, and which keep their place with their deletes merged.
  std::vector<size_t> rewrite, merge;
  for (size_t i = 0; i < live.data.size(); ++i) {
    const iceberg::DataFile& f = live.data[i].data_file;
    const DataFileDeletes& d = deletes_of(f.file_path);
    const double share = f.record_count > 0 ? static_cast<double>(d.positions.size()) / f.record_count : 1.0;
    if ((!d.positions.empty() && share >= options.delete_threshold) || f.file_size_in_bytes < options.small_file_bytes) {
      rewrite.push_back(i);
    } else if (d.delete_files.size() > 1) {
      merge.push_back(i);
    }
  }
  // A lone small file without deletes would be written again as it is.
  if (rewrite.size() == 1 && deletes_of(live.data[rewrite[0]].data_file.file_path).positions.empty()) {
    rewrite.clear();
  }
  // Delete files that apply to no live data file any more.
  std::vector<bool> delete_used(live.deletes.size(), false);
  for (const auto& [path, d] : deletes) {
    for (size_t i : d.delete_files) delete_used[i] = true;
  }
  const bool dangling = std::find(delete_used.begin(), delete_used.end(), false) != delete_used.end();
  if (rewrite.empty() && merge.empty() && !dangling) return std::optional<PlannedVersion>();

  const iceberg::Schema& schema = *metadata.CurrentSchema();
  const parquet::WriterOptions writer_options = DataFileWriterOptions(metadata);
  const parquet::Schema parquet_schema = iceberg::ToParquetSchema(schema);
  parquet::RowBatch batch(parquet_schema);  // one input row group's live rows at a time
  std::vector<iceberg::DataFile> added, removed;
  std::vector<bool> data_removed(live.data.size(), false), delete_removed(live.deletes.size(), false);
  for (size_t i = 0; i < live.deletes.size(); ++i) delete_removed[i] = !delete_used[i];

  // The live rows of the files rewritten, one input file after another.
  std::unordered_map<std::string, NewPlace> places;
  std::unique_ptr<parquet::ParquetWriter> writer;
  std::string writer_path;
  int outputs = 0;
  int64_t estimated_bytes = 0;
  auto close_output = [&]() -> Status {
    if (!writer) return Status::OK();
    ASSIGN_OR_RETURN(parquet::WriteResult written, writer->Close());
    writer.reset();
    RETURN_IF_ERROR(fs.SyncFile(writer_path));
    added.push_back(iceberg::DescribeDataFile(writer_path, written, schema));
    report->bytes_written += static_cast<int64_t>(written.file_size);
    ++report->data_files_written;
    estimated_bytes = 0;
    return Status::OK();
  };
  for (size_t n = 0; n < rewrite.size(); ++n) {
    const iceberg::DataFile& input = live.data[rewrite[n]].data_file;
    const DataFileDeletes& d = deletes_of(input.file_path);
    progress(StrCat("rewriting data file ", n + 1, " of ", rewrite.size(), " (", input.record_count - d.positions.size(),
                    " live rows of ", input.record_count, ")"));
    data_removed[rewrite[n]] = true;
    removed.push_back(input);
    ++report->data_files_rewritten;
    for (size_t i : d.delete_files) delete_removed[i] = true;
    if (static_cast<int64_t>(d.positions.size()) >= input.record_count) continue;  // no live row
    if (writer && estimated_bytes >= options.target_file_bytes) RETURN_IF_ERROR(close_output());
    if (!writer) {
      writer_path = files.DataFile(outputs++);
      ASSIGN_OR_RETURN(writer, parquet::ParquetWriter::Open(fs, writer_path, parquet_schema, writer_options));
    }
    places[input.file_path] = NewPlace{writer_path, writer->num_rows(), &d.positions};
    ASSIGN_OR_RETURN(auto reader, parquet::ParquetReader::Open(fs, input.file_path));
    if (reader->num_rows() != input.record_count) {
      return Status::Corruption(StrCat(input.file_path, ": holds ", reader->num_rows(), " rows, its manifest entry ",
                                       input.record_count));
    }
    if (reader->schema() == parquet_schema) {
      // Leaf column by leaf column, without assembling rows.
      int64_t first = 0;
      for (int g = 0; g < reader->num_row_groups(); ++g) {
        batch.Clear();
        RETURN_IF_ERROR(reader
                            ->AppendRowGroup(g, [&](int64_t row) {
                              return !std::binary_search(d.positions.begin(), d.positions.end(), first + row);
                            }, &batch)
                            .WithContext(StrCat(input.file_path, ": row group ", g)));
        first += reader->metadata().row_groups[g].num_rows;
        report->rows_rewritten += batch.num_rows();
        RETURN_IF_ERROR(writer->WriteBatch(batch).WithContext(StrCat(input.file_path, ": row group ", g)));
      }
      batch.Clear();
    } else {
      // Written with an earlier schema (the Cassandra table was altered, or
      // a key column made optional since): row by row, each read by field
      // id into the current schema and checked against it.
      parquet::Field file_row = parquet::Field::Struct("row", parquet::Repetition::kRequired, std::nullopt,
                                                       reader->schema().fields);
      parquet::Field table_row = parquet::Field::Struct("row", parquet::Repetition::kRequired, std::nullopt,
                                                        parquet_schema.fields);
      int64_t position = 0;
      auto next_deleted = d.positions.begin();
      RETURN_IF_ERROR(ForEachRow(*reader, [&](const parquet::Value& row) -> Status {
        if (next_deleted != d.positions.end() && *next_deleted == position) {
          ++next_deleted;
        } else {
          RETURN_IF_ERROR(writer->WriteRow(ProjectById(row, file_row, table_row))
                              .WithContext(StrCat(input.file_path, ": row ", position)));
          ++report->rows_rewritten;
        }
        ++position;
        return Status::OK();
      }));
    }
    estimated_bytes += input.file_size_in_bytes * (input.record_count - static_cast<int64_t>(d.positions.size())) /
                       std::max<int64_t>(1, input.record_count);
  }
  RETURN_IF_ERROR(close_output());

  // One delete file for each data file that keeps its place and had several.
  for (size_t n = 0; n < merge.size(); ++n) {
    const iceberg::DataFile& data = live.data[merge[n]].data_file;
    const DataFileDeletes& d = deletes_of(data.file_path);
    ASSIGN_OR_RETURN(iceberg::DataFile merged,
                     iceberg::WritePositionDeleteFile(fs, files.DeleteFile(0, static_cast<int>(n)), data.file_path,
                                                      d.positions, writer_options.compression));
    added.push_back(std::move(merged));
    ++report->delete_files_written;
    for (size_t i : d.delete_files) delete_removed[i] = true;
  }
  // A delete file that also applies to a data file that keeps its place
  // without merged deletes stays (only files of other writers apply to
  // several data files).
  {
    std::unordered_map<std::string, bool> replaced;  // data file -> its deletes now live elsewhere
    for (size_t r : rewrite) replaced[live.data[r].data_file.file_path] = true;
    for (size_t m : merge) replaced[live.data[m].data_file.file_path] = true;
    for (const auto& [path, d] : deletes) {
      if (replaced.count(path)) continue;
      for (size_t i : d.delete_files) delete_removed[i] = false;
    }
  }
  // A rewritten data file with every row deleted has no place, but its
  // positions must not be named by the row index either.
  for (size_t i : rewrite) {
    const std::string& path = live.data[i].data_file.file_path;
    if (!places.count(path)) places[path] = NewPlace{std::string(), 0, &deletes_of(path).positions};
  }

  // The fold states, naming the rows' new places.
  progress("rewriting the row index");
  for (size_t p = 0; p < states.states.size(); ++p) {
    materialize::FoldState& state = states.states[p];
    int64_t count = 0;
    ASSIGN_OR_RETURN(state.row_index,
                     RemapRowIndexLayer(fs, state.row_index, true, places,
                                        [&](int i) { return files.RowIndexFile(static_cast<int>(p), i); }, &count));
    ASSIGN_OR_RETURN(state.row_index_updates,
                     RemapRowIndexLayer(fs, state.row_index_updates, false, places,
                                        [&](int i) { return files.RowIndexUpdateFile(static_cast<int>(p), i); },
                                        &count));
    state.row_index_update_count = count;
  }

  // The snapshot: every live file listed anew, the removed ones as DELETED.
  const int64_t snapshot_id = iceberg::RandomSnapshotId();
  const int64_t sequence_number = metadata.last_sequence_number + 1;
  std::vector<ManifestEntry> data_entries, delete_entries;
  auto list = [&](const ManifestEntry& old, bool gone, std::vector<ManifestEntry>* out) {
    ManifestEntry entry = old;
    entry.status = gone ? ManifestEntryStatus::kDeleted : ManifestEntryStatus::kExisting;
    if (gone) entry.snapshot_id = snapshot_id;
    out->push_back(std::move(entry));
  };
  for (size_t i = 0; i < live.data.size(); ++i) list(live.data[i], data_removed[i], &data_entries);
  for (size_t i = 0; i < live.deletes.size(); ++i) {
    list(live.deletes[i], delete_removed[i], &delete_entries);
    if (delete_removed[i]) {
      removed.push_back(live.deletes[i].data_file);
      ++report->delete_files_removed;
    }
  }
  for (const iceberg::DataFile& f : added) {
    ManifestEntry entry;
    entry.status = ManifestEntryStatus::kAdded;
    entry.data_file = f;
    (f.content == iceberg::FileContent::kData ? data_entries : delete_entries).push_back(std::move(entry));
  }
  std::vector<iceberg::ManifestFile> manifests;
  ASSIGN_OR_RETURN(iceberg::ManifestFile data_manifest,
                   WriteEntries(fs, files.DataManifest(), schema, iceberg::ManifestContent::kData, data_entries,
                                snapshot_id, sequence_number));
  manifests.push_back(std::move(data_manifest));
  if (!delete_entries.empty()) {
    ASSIGN_OR_RETURN(iceberg::ManifestFile delete_manifest,
                     WriteEntries(fs, files.DeleteManifest(), schema, iceberg::ManifestContent::kDeletes,
                                  delete_entries, snapshot_id, sequence_number));
    manifests.push_back(std::move(delete_manifest));
  }
  std::string list_path = files.ManifestList(snapshot_id);
  RETURN_IF_ERROR(iceberg::WriteManifestList(fs, list_path, snapshot_id, current->snapshot_id, sequence_number,
                                             manifests));
  RETURN_IF_ERROR(fs.SyncFile(list_path));

  iceberg::Snapshot snapshot;
  snapshot.snapshot_id = snapshot_id;
  snapshot.parent_snapshot_id = current->snapshot_id;
  snapshot.sequence_number = sequence_number;
  snapshot.timestamp_ms = std::max(WallClockMillis(), metadata.last_updated_ms + 1);
  snapshot.manifest_list = list_path;
  snapshot.schema_id = metadata.current_schema_id;
  snapshot.summary = iceberg::SummaryMetrics(added, current->summary, removed);
  snapshot.summary["operation"] = "replace";
  snapshot.summary["engine-name"] = "cqlite";
  snapshot.summary["engine-version"] = kCqliteVersion;
  ASSIGN_OR_RETURN(auto state_summary, materialize::WriteUnchangedRowsFoldStates(fs, *current, states, files));
  for (auto& [key, value] : state_summary) snapshot.summary[key] = std::move(value);

  PlannedVersion planned;
  planned.metadata = metadata;
  iceberg::AddSnapshot(&planned.metadata, snapshot, table.metadata_location);
  int previous = iceberg::MetadataFileVersion(table.metadata_location);
  planned.metadata_file = files.MetadataFile(previous >= 0 ? previous + 1
                                                           : static_cast<int>(planned.metadata.metadata_log.size()));
  planned.snapshot_id = snapshot_id;
  return std::optional<PlannedVersion>(std::move(planned));
}

}  // namespace cqlite::maintain
