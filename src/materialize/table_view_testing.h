// For tests of materialize runs: what an Iceberg table a run committed
// shows, read with our own readers (the integration tests ask PyIceberg,
// DuckDB and Iceberg Java), and every file of a directory tree.
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "catalog/sql_catalog.h"
#include "iceberg/deletion_vector.h"
#include "iceberg/manifest.h"
#include "iceberg/table_metadata.h"
#include "io/file_system.h"
#include "fold_state/fold_state.h"
#include "parquet/reader.h"
#include "util/strings.h"

namespace cqlite::materialize {

// Every file at or below `dir`, by path.
inline std::map<std::string, std::string> AllFiles(FileSystem& fs, const std::string& dir) {
  std::map<std::string, std::string> files;
  auto entries = fs.ListDirectory(dir);
  if (!entries.ok()) return files;
  for (const DirectoryEntry& entry : *entries) {
    std::string path = JoinPath(dir, entry.name);
    if (entry.is_directory) {
      files.merge(AllFiles(fs, path));
    } else {
      auto contents = fs.ReadFileToString(path);
      files[path] = contents.ok() ? *contents : StrCat("<", contents.status().ToString(), ">");
    }
  }
  return files;
}

// What the table shows: the current snapshot's data file rows less its
// position deletes, rendered and sorted; or an error naming what could not
// be read (a file the snapshot names that is missing or cut short).
struct TableView {
  std::optional<std::string> metadata_location;  // none: no such table
  std::vector<std::string> rows;
  std::vector<std::string> generations;  // the fold state's consumed generations
  int64_t fold_state_rows = 0;
};

inline Result<TableView> ReadTable(FileSystem& fs, catalog::SqlCatalog& catalog, const std::string& namespace_name = "shop",
                                   const std::string& table_name = "orders") {
  TableView view;
  ASSIGN_OR_RETURN(view.metadata_location, catalog.LoadTable({namespace_name}, table_name));
  if (!view.metadata_location) return view;
  const std::string& location = *view.metadata_location;
  ASSIGN_OR_RETURN(std::string text, fs.ReadFileToString(location));
  ASSIGN_OR_RETURN(iceberg::TableMetadata metadata, iceberg::TableMetadataFromJson(text, location, 3));
  const iceberg::Snapshot* snapshot = metadata.CurrentSnapshot();
  if (snapshot == nullptr) return Status::Corruption(StrCat(location, ": no current snapshot"));
  ASSIGN_OR_RETURN(auto manifests, iceberg::ReadManifestList(fs, snapshot->manifest_list));
  std::vector<std::string> data_files;
  std::set<std::pair<std::string, int64_t>> deleted;
  for (const iceberg::ManifestFile& manifest : manifests) {
    ASSIGN_OR_RETURN(std::vector<iceberg::ManifestEntry> entries, iceberg::ReadManifest(fs, manifest));
    for (const iceberg::ManifestEntry& entry : entries) {
      if (entry.status == iceberg::ManifestEntryStatus::kDeleted) continue;
      if (entry.data_file.content == iceberg::FileContent::kData) {
        data_files.push_back(entry.data_file.file_path);
        continue;
      }
      if (iceberg::IsDeletionVector(entry.data_file)) {  // a deletion vector (v3)
        ASSIGN_OR_RETURN(iceberg::DeletionVector vector,
                         iceberg::ReadDeletionVector(fs, entry.data_file.file_path,
                                                     entry.data_file.content_offset.value_or(-1),
                                                     entry.data_file.content_size_in_bytes.value_or(-1)));
        for (int64_t position : vector.Positions()) deleted.emplace(*entry.data_file.referenced_data_file, position);
        continue;
      }
      ASSIGN_OR_RETURN(auto reader, parquet::ParquetReader::Open(fs, entry.data_file.file_path));
      ASSIGN_OR_RETURN(std::vector<parquet::Value> positions, reader->ReadAll());
      for (const parquet::Value& position : positions) {
        deleted.emplace(position.fields()[0].bytes(), position.fields()[1].int64_value());
      }
    }
  }
  for (const std::string& path : data_files) {
    ASSIGN_OR_RETURN(auto reader, parquet::ParquetReader::Open(fs, path));
    ASSIGN_OR_RETURN(std::vector<parquet::Value> rows, reader->ReadAll());
    for (size_t i = 0; i < rows.size(); ++i) {
      if (!deleted.count({path, static_cast<int64_t>(i)})) view.rows.push_back(rows[i].ToString());
    }
  }
  std::sort(view.rows.begin(), view.rows.end());
  // A table published by token ranges has a fold state per part instead.
  if (!snapshot->summary.count("cqlite.fold-state")) return view;
  const std::string& state_path = snapshot->summary.at("cqlite.fold-state");
  ASSIGN_OR_RETURN(std::string state_text, fs.ReadFileToString(state_path));
  ASSIGN_OR_RETURN(FoldState state, FoldStateFromJson(state_text, state_path));
  for (const ConsumedGeneration& consumed : state.generations) view.generations.push_back(consumed.identity);
  view.fold_state_rows = state.row_count;
  return view;
}

}  // namespace cqlite::materialize
