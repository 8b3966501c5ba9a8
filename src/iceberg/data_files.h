// What a commit says about the files it adds: data files described from
// what the Parquet writer measured (record count, size, per-column value,
// null and NaN counts, lower and upper bounds in the spec's single-value
// serialization, https://iceberg.apache.org/spec/#appendix-d-single-value-serialization),
// file-scoped position delete files
// (https://iceberg.apache.org/spec/#position-delete-files), and the standard
// snapshot summary metrics.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "iceberg/manifest.h"
#include "iceberg/schema.h"
#include "io/file_system.h"
#include "parquet/writer.h"
#include "util/status.h"

namespace cqlite::iceberg {

// Reserved field ids of position delete files (spec: "Reserved Field IDs").
inline constexpr int32_t kPosDeleteFilePathFieldId = 2147483546;
inline constexpr int32_t kPosDeletePosFieldId = 2147483545;

// The manifest description of a data file of `schema` that the Parquet writer
// wrote at `path`. Bounds are given for top-level columns whose Parquet
// statistics order is Iceberg's (numbers, dates, times, timestamps, booleans)
// and for strings and binaries up to 16 bytes; other bounds are left out,
// which readers take as unknown.
DataFile DescribeDataFile(const std::string& path, const parquet::WriteResult& written, const Schema& schema);

// Writes a position delete file at `path` deleting `positions` (ascending)
// of `data_file`, and returns its description (referenced_data_file set).
Result<DataFile> WritePositionDeleteFile(FileSystem& fs, const std::string& path, const std::string& data_file,
                                         const std::vector<int64_t>& positions,
                                         parquet::CompressionCodec compression);

// The standard summary metrics of a snapshot that adds `added` files to a
// table whose previous snapshot's summary is `previous` (empty for the first),
// and takes `removed` files out of it (a rewrite).
std::map<std::string, std::string> SummaryMetrics(const std::vector<DataFile>& added,
                                                  const std::map<std::string, std::string>& previous,
                                                  const std::vector<DataFile>& removed = {});

}  // namespace cqlite::iceberg
