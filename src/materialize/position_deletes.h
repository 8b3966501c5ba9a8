// The position deletes of one materialization run (DESIGN D6): for each data
// file, the positions of rows that are no longer current, written as
// file-scoped position delete files (referenced_data_file set).
//
// Memory stays bounded whatever the number of rows a run changes: positions
// are buffered up to a limit, then every buffered data file's positions are
// written out as a delete file of its own and the buffer starts again. A data
// file may so get several delete files, which Iceberg readers apply together.
//
// A table of format version 3 takes deletion vectors instead (one per data
// file, merged with the one it has, snapshot.h): there the writer keeps
// every position in memory and hands them over by data file.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "iceberg/data_files.h"
#include "io/file_system.h"
#include "parquet/parquet_format.h"
#include "util/status.h"

namespace cqlite::materialize {

// Deleted positions by data file, each list ascending.
using DeletedPositions = std::map<std::string, std::vector<int64_t>>;

// Adds `from`'s positions to `into`'s, keeping each list ascending.
void MergeDeletedPositions(DeletedPositions from, DeletedPositions* into);

class PositionDeleteWriter {
 public:
  enum class Output { kDeleteFiles, kInMemory };

  // `file_path(i)` names the i-th delete file written. `max_buffered`
  // positions (at least 1) are held before a flush.
  // With Output::kInMemory nothing is written and nothing is flushed.
  PositionDeleteWriter(FileSystem& fs, std::function<std::string(int)> file_path,
                       parquet::CompressionCodec compression, int64_t max_buffered = kDefaultMaxBuffered,
                       Output output = Output::kDeleteFiles);

  // Marks `position` of `data_file` deleted.
  Status Add(const std::string& data_file, int64_t position);
  // Writes what is buffered; returns every delete file written, in order
  // (none with Output::kInMemory).
  Result<std::vector<iceberg::DataFile>> Finish();
  // Output::kInMemory: every position added, by data file (then empty).
  DeletedPositions TakePositions();

  int64_t positions() const { return positions_; }
  static constexpr int64_t kDefaultMaxBuffered = int64_t{1} << 22;  // 32 MiB of positions

 private:
  Status Flush();

  FileSystem& fs_;
  std::function<std::string(int)> file_path_;
  parquet::CompressionCodec compression_;
  int64_t max_buffered_;
  Output output_;
  std::map<std::string, std::vector<int64_t>> buffered_;  // data file -> positions
  int64_t buffered_count_ = 0;
  int64_t positions_ = 0;
  std::vector<iceberg::DataFile> written_;
};

}  // namespace cqlite::materialize
