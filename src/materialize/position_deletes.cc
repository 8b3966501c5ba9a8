#include "materialize/position_deletes.h"

#include <algorithm>

namespace cqlite::materialize {

PositionDeleteWriter::PositionDeleteWriter(FileSystem& fs, std::function<std::string(int)> file_path,
                                           parquet::CompressionCodec compression, int64_t max_buffered,
                                           Output output)
    : fs_(fs),
      file_path_(std::move(file_path)),
      compression_(compression),
      max_buffered_(std::max<int64_t>(1, max_buffered)),
      output_(output) {}

void MergeDeletedPositions(DeletedPositions from, DeletedPositions* into) {
  for (auto& [data_file, positions] : from) {
    std::vector<int64_t>& merged = (*into)[data_file];
    size_t middle = merged.size();
    merged.insert(merged.end(), positions.begin(), positions.end());
    std::inplace_merge(merged.begin(), merged.begin() + static_cast<std::ptrdiff_t>(middle), merged.end());
  }
}

Status PositionDeleteWriter::Add(const std::string& data_file, int64_t position) {
  buffered_[data_file].push_back(position);
  ++positions_;
  if (++buffered_count_ >= max_buffered_ && output_ == Output::kDeleteFiles) return Flush();
  return Status::OK();
}

Status PositionDeleteWriter::Flush() {
  if (output_ == Output::kInMemory) return Status::OK();
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

DeletedPositions PositionDeleteWriter::TakePositions() {
  for (auto& [data_file, positions] : buffered_) std::sort(positions.begin(), positions.end());
  DeletedPositions taken = std::move(buffered_);
  buffered_.clear();
  buffered_count_ = 0;
  return taken;
}

}  // namespace cqlite::materialize
