#include "iceberg/data_files.h"

#include "util/strings.h"

namespace cqlite::iceberg {

namespace {

bool BoundsFollowIcebergOrder(Type::Kind kind) {
  switch (kind) {
    case Type::Kind::kBoolean:
    case Type::Kind::kInt:
    case Type::Kind::kLong:
    case Type::Kind::kFloat:
    case Type::Kind::kDouble:
    case Type::Kind::kDate:
    case Type::Kind::kTime:
    case Type::Kind::kTimestamp:
    case Type::Kind::kTimestamptz:
    case Type::Kind::kString:
    case Type::Kind::kBinary:
      return true;
    default:  // decimals and uuids: Parquet orders their bytes otherwise
      return false;
  }
}

constexpr size_t kMaxVariableBoundBytes = 16;

int64_t Metric(const std::map<std::string, std::string>& summary, const std::string& key) {
  auto it = summary.find(key);
  if (it == summary.end()) return 0;
  try {
    return std::stoll(it->second);
  } catch (...) {
    return 0;
  }
}

}  // namespace

DataFile DescribeDataFile(const std::string& path, const parquet::WriteResult& written, const Schema& schema) {
  DataFile file;
  file.content = FileContent::kData;
  file.file_path = path;
  file.record_count = written.num_rows;
  file.file_size_in_bytes = static_cast<int64_t>(written.file_size);
  file.sort_order_id = 0;
  for (const parquet::ColumnMetrics& column : written.columns) {
    if (!column.field_id || column.path.size() != 1) continue;
    const NestedField* field = nullptr;
    for (const NestedField& f : schema.fields) {
      if (f.id == *column.field_id) field = &f;
    }
    if (!field || !field->type->is_primitive()) continue;
    int32_t id = *column.field_id;
    file.value_counts[id] = column.value_count;
    file.null_value_counts[id] = column.null_count;
    Type::Kind kind = field->type->kind;
    if (kind == Type::Kind::kFloat || kind == Type::Kind::kDouble) file.nan_value_counts[id] = column.nan_count;
    if (!BoundsFollowIcebergOrder(kind)) continue;
    bool variable = kind == Type::Kind::kString || kind == Type::Kind::kBinary;
    if (column.lower_bound && (!variable || column.lower_bound->size() <= kMaxVariableBoundBytes)) {
      file.lower_bounds[id] = *column.lower_bound;
    }
    if (column.upper_bound && (!variable || column.upper_bound->size() <= kMaxVariableBoundBytes)) {
      file.upper_bounds[id] = *column.upper_bound;
    }
  }
  return file;
}

Result<DataFile> WritePositionDeleteFile(FileSystem& fs, const std::string& path, const std::string& data_file,
                                         const std::vector<int64_t>& positions,
                                         parquet::CompressionCodec compression) {
  parquet::Schema schema;
  schema.root_name = "position_deletes";
  schema.fields = {
      parquet::Field::String("file_path", parquet::Repetition::kRequired, kPosDeleteFilePathFieldId),
      parquet::Field::Int64("pos", parquet::Repetition::kRequired, kPosDeletePosFieldId)};
  parquet::WriterOptions options;
  options.compression = compression;
  ASSIGN_OR_RETURN(auto writer, parquet::ParquetWriter::Open(fs, path, schema, options));
  for (int64_t position : positions) {
    RETURN_IF_ERROR(writer->WriteRow(parquet::Value::Struct(
        {parquet::Value::String(data_file), parquet::Value::Int64(position)})));
  }
  ASSIGN_OR_RETURN(parquet::WriteResult written, writer->Close());
  RETURN_IF_ERROR(fs.SyncFile(path));
  DataFile file;
  file.content = FileContent::kPositionDeletes;
  file.file_path = path;
  file.record_count = written.num_rows;
  file.file_size_in_bytes = static_cast<int64_t>(written.file_size);
  file.referenced_data_file = data_file;
  return file;
}

std::map<std::string, std::string> SummaryMetrics(const std::vector<DataFile>& added,
                                                  const std::map<std::string, std::string>& previous,
                                                  const std::vector<DataFile>& removed) {
  struct Counts {
    int64_t data_files = 0, delete_files = 0, records = 0, position_deletes = 0, size = 0;
  };
  auto count = [](const std::vector<DataFile>& files) {
    Counts c;
    for (const DataFile& f : files) {
      c.size += f.file_size_in_bytes;
      if (f.content == FileContent::kData) {
        ++c.data_files;
        c.records += f.record_count;
      } else {
        ++c.delete_files;
        c.position_deletes += f.record_count;
      }
    }
    return c;
  };
  const Counts in = count(added), out = count(removed);
  std::map<std::string, std::string> s;
  auto put = [&s](const char* key, int64_t v) { s[key] = std::to_string(v); };
  if (in.data_files) put("added-data-files", in.data_files);
  if (in.records) put("added-records", in.records);
  if (in.delete_files) {
    put("added-delete-files", in.delete_files);
    put("added-position-delete-files", in.delete_files);
    put("added-position-deletes", in.position_deletes);
  }
  if (in.size) put("added-files-size", in.size);
  if (out.data_files) put("deleted-data-files", out.data_files);
  if (out.records) put("deleted-records", out.records);
  if (out.delete_files) {
    put("removed-delete-files", out.delete_files);
    put("removed-position-delete-files", out.delete_files);
    put("removed-position-deletes", out.position_deletes);
  }
  if (out.size) put("removed-files-size", out.size);
  put("total-data-files", Metric(previous, "total-data-files") + in.data_files - out.data_files);
  put("total-delete-files", Metric(previous, "total-delete-files") + in.delete_files - out.delete_files);
  put("total-records", Metric(previous, "total-records") + in.records - out.records);
  put("total-files-size", Metric(previous, "total-files-size") + in.size - out.size);
  put("total-position-deletes",
      Metric(previous, "total-position-deletes") + in.position_deletes - out.position_deletes);
  put("total-equality-deletes", Metric(previous, "total-equality-deletes"));
  bool changed = in.data_files || in.delete_files || out.data_files || out.delete_files;
  put("changed-partition-count", changed ? 1 : 0);
  return s;
}

}  // namespace cqlite::iceberg
