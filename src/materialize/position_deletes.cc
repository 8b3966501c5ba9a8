#include "materialize/position_deletes.h"

#include <algorithm>

namespace cqlite::materialize {

PositionDeleteWriter::PositionDeleteWriter(FileSystem& fs, std::function<std::string(int)> file_path,
                                           parquet::CompressionCodec compression, int64_t max_buffered)
    : fs_(fs),
      file_path_(std::move(file_path)),
      compression_(compression),
      max_buffered_(std::max<int64_t>(1, max_buffered)) {}

Status PositionDeleteWriter::Add(const std::string& data_file, int64_t position) {
  buffered_[data_file].push_back(position);
  ++positions_;
  if (++buffered_count_ >= max_buffered_) return Flush();
  return Status::OK();
}

Status PositionDeleteWriter::Flush() {
  for (auto& [data_file, positions] : buffered_) {
    // Rows come in fold order, which is each data file's row order, so the
    // positions are ascending already; sorting keeps that a local concern.
    std::sort(positions.begin(), positions.end());
    std::string path = file_path_(static_cast<int>(written_.size()));
    ASSIGN_OR_RETURN(iceberg::DataFile file,
                     iceberg::WritePositionDeleteFile(fs_, path, data_file, positions, compression_));
    RETURN_IF_ERROR(fs_.SyncFile(path));
    written_.push_back(std::move(file));
  }
  buffered_.clear();
  buffered_count_ = 0;
  return Status::OK();
}

Result<std::vector<iceberg::DataFile>> PositionDeleteWriter::Finish() {
  RETURN_IF_ERROR(Flush());
  return written_;
}

}  // namespace cqlite::materialize
