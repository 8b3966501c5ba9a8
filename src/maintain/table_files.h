// What a table's snapshots reference, as maintenance needs to know it: the
// files a snapshot's manifests list as live, and every file a set of
// snapshots keeps (manifest lists, manifests, data and delete files, and
// cqlite's fold state files). Paths are local paths (file: URIs made plain)
// or s3:// URIs, as FileSystem takes them.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "iceberg/manifest.h"
#include "iceberg/table_metadata.h"
#include "io/file_system.h"
#include "util/status.h"

namespace cqlite::maintain {

// The entries of a snapshot's manifests that are ADDED or EXISTING, with
// their snapshot ids and sequence numbers as inherited.
struct LiveFiles {
  std::vector<iceberg::ManifestEntry> data;     // data files
  std::vector<iceberg::ManifestEntry> deletes;  // delete files
};
Result<LiveFiles> ReadLiveFiles(FileSystem& fs, const iceberg::Snapshot& snapshot);

// Every file `snapshots` reference: their manifest lists and manifests, the
// live data and delete files of each, and the fold state files each names
// (materialize/snapshot.h). A manifest shared by several is read once.
Result<std::set<std::string>> FilesReferencedBy(FileSystem& fs, const std::vector<iceberg::Snapshot>& snapshots);

}  // namespace cqlite::maintain
