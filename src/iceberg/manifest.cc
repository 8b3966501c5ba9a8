#include "iceberg/manifest.h"

#include <algorithm>
#include <type_traits>
#include <utility>

#include "avro/container.h"
#include "avro/datum.h"
#include "util/strings.h"

namespace cqlite::iceberg {
namespace {

using avro::Datum;
using avro::Field;
using avro::Schema;

// Field ids of manifest_entry, spec "Manifests" (https://iceberg.apache.org/spec/#manifests).
constexpr int32_t kStatusFieldId = 0;
constexpr int32_t kSnapshotIdFieldId = 1;
constexpr int32_t kDataFileFieldId = 2;
constexpr int32_t kSequenceNumberFieldId = 3;
constexpr int32_t kFileSequenceNumberFieldId = 4;

// Field ids of data_file, spec "Data File Fields". 105, 106, 107 and 111 are
// v1-only or deprecated and not written; 141 is reserved.
constexpr int32_t kFilePathFieldId = 100;
constexpr int32_t kFileFormatFieldId = 101;
constexpr int32_t kPartitionFieldId = 102;
constexpr int32_t kRecordCountFieldId = 103;
constexpr int32_t kFileSizeFieldId = 104;
constexpr int32_t kColumnSizesFieldId = 108;
constexpr int32_t kColumnSizesKeyId = 117;
constexpr int32_t kColumnSizesValueId = 118;
constexpr int32_t kValueCountsFieldId = 109;
constexpr int32_t kValueCountsKeyId = 119;
constexpr int32_t kValueCountsValueId = 120;
constexpr int32_t kNullValueCountsFieldId = 110;
constexpr int32_t kNullValueCountsKeyId = 121;
constexpr int32_t kNullValueCountsValueId = 122;
constexpr int32_t kLowerBoundsFieldId = 125;
constexpr int32_t kLowerBoundsKeyId = 126;
constexpr int32_t kLowerBoundsValueId = 127;
constexpr int32_t kUpperBoundsFieldId = 128;
constexpr int32_t kUpperBoundsKeyId = 129;
constexpr int32_t kUpperBoundsValueId = 130;
constexpr int32_t kKeyMetadataFieldId = 131;
constexpr int32_t kSplitOffsetsFieldId = 132;
constexpr int32_t kSplitOffsetsElementId = 133;
constexpr int32_t kContentFieldId = 134;
constexpr int32_t kEqualityIdsFieldId = 135;
constexpr int32_t kEqualityIdsElementId = 136;
constexpr int32_t kNanValueCountsFieldId = 137;
constexpr int32_t kNanValueCountsKeyId = 138;
constexpr int32_t kNanValueCountsValueId = 139;
constexpr int32_t kSortOrderIdFieldId = 140;
constexpr int32_t kFirstRowIdFieldId = 142;  // v3
constexpr int32_t kReferencedDataFileFieldId = 143;
constexpr int32_t kContentOffsetFieldId = 144;  // v3
constexpr int32_t kContentSizeInBytesFieldId = 145;  // v3

// Field ids of manifest_file, spec "Manifest Lists" (https://iceberg.apache.org/spec/#manifest-lists).
constexpr int32_t kManifestPathFieldId = 500;
constexpr int32_t kManifestLengthFieldId = 501;
constexpr int32_t kPartitionSpecIdFieldId = 502;
constexpr int32_t kAddedSnapshotIdFieldId = 503;
constexpr int32_t kAddedFilesCountFieldId = 504;
constexpr int32_t kExistingFilesCountFieldId = 505;
constexpr int32_t kDeletedFilesCountFieldId = 506;
constexpr int32_t kPartitionsFieldId = 507;
constexpr int32_t kPartitionSummaryElementId = 508;
constexpr int32_t kContainsNullFieldId = 509;
constexpr int32_t kLowerBoundFieldId = 510;
constexpr int32_t kUpperBoundFieldId = 511;
constexpr int32_t kAddedRowsCountFieldId = 512;
constexpr int32_t kExistingRowsCountFieldId = 513;
constexpr int32_t kDeletedRowsCountFieldId = 514;
constexpr int32_t kManifestSequenceNumberFieldId = 515;
constexpr int32_t kMinSequenceNumberFieldId = 516;
constexpr int32_t kManifestContentFieldId = 517;
constexpr int32_t kContainsNanFieldId = 518;
constexpr int32_t kManifestKeyMetadataFieldId = 519;
constexpr int32_t kManifestFirstRowIdFieldId = 520;  // v3

// Avro file metadata keys, spec "Manifests" and "Manifest Lists" (values as
// Iceberg Java writes them).
// The file format of deletion vectors (spec "Deletion Vectors"); compared
// without case, as Iceberg Java reads it.
constexpr char kPuffinFormat[] = "puffin";
constexpr char kUnpartitionedSpecFields[] = "[]";

constexpr bool kOptional = true;

// An int-keyed map as Iceberg writes it in Avro: an array of key/value
// records with logicalType "map", the record named k<key id>_v<value id>
// (spec Appendix A "Avro", maps with non-string keys).
Schema IntKeyedMap(int32_t key_id, Schema value, int32_t value_id) {
  Schema entry = Schema::Record(StrCat("k", key_id, "_v", value_id),
                                {Field::WithId("key", Schema::Int(), key_id), Field::WithId("value", std::move(value), value_id)});
  return Schema::Array(std::move(entry)).WithAttr("logicalType", "map");
}

Schema ListOf(Schema element, int32_t element_id) {
  return Schema::Array(std::move(element)).WithAttr("element-id", element_id);
}

Schema DataFileSchema(int32_t format_version) {
  std::vector<Field> fields = {
      Field::WithId("content", Schema::Int(), kContentFieldId),
      Field::WithId("file_path", Schema::String(), kFilePathFieldId),
      Field::WithId("file_format", Schema::String(), kFileFormatFieldId),
      Field::WithId("partition", Schema::Record("r102", {}), kPartitionFieldId),
      Field::WithId("record_count", Schema::Long(), kRecordCountFieldId),
      Field::WithId("file_size_in_bytes", Schema::Long(), kFileSizeFieldId),
      Field::WithId("column_sizes", IntKeyedMap(kColumnSizesKeyId, Schema::Long(), kColumnSizesValueId),
                    kColumnSizesFieldId, kOptional),
      Field::WithId("value_counts", IntKeyedMap(kValueCountsKeyId, Schema::Long(), kValueCountsValueId),
                    kValueCountsFieldId, kOptional),
      Field::WithId("null_value_counts",
                    IntKeyedMap(kNullValueCountsKeyId, Schema::Long(), kNullValueCountsValueId),
                    kNullValueCountsFieldId, kOptional),
      Field::WithId("nan_value_counts", IntKeyedMap(kNanValueCountsKeyId, Schema::Long(), kNanValueCountsValueId),
                    kNanValueCountsFieldId, kOptional),
      Field::WithId("lower_bounds", IntKeyedMap(kLowerBoundsKeyId, Schema::Bytes(), kLowerBoundsValueId),
                    kLowerBoundsFieldId, kOptional),
      Field::WithId("upper_bounds", IntKeyedMap(kUpperBoundsKeyId, Schema::Bytes(), kUpperBoundsValueId),
                    kUpperBoundsFieldId, kOptional),
      Field::WithId("key_metadata", Schema::Bytes(), kKeyMetadataFieldId, kOptional),
      Field::WithId("split_offsets", ListOf(Schema::Long(), kSplitOffsetsElementId), kSplitOffsetsFieldId,
                    kOptional),
      Field::WithId("equality_ids", ListOf(Schema::Int(), kEqualityIdsElementId), kEqualityIdsFieldId, kOptional),
      Field::WithId("sort_order_id", Schema::Int(), kSortOrderIdFieldId, kOptional),
  };
  if (format_version >= kManifestFormatV3) {
    fields.push_back(Field::WithId("first_row_id", Schema::Long(), kFirstRowIdFieldId, kOptional));
  }
  fields.push_back(Field::WithId("referenced_data_file", Schema::String(), kReferencedDataFileFieldId, kOptional));
  if (format_version >= kManifestFormatV3) {
    fields.push_back(Field::WithId("content_offset", Schema::Long(), kContentOffsetFieldId, kOptional));
    fields.push_back(
        Field::WithId("content_size_in_bytes", Schema::Long(), kContentSizeInBytesFieldId, kOptional));
  }
  return Schema::Record("r2", std::move(fields));
}

// ---------------------------------------------------------------- datums

Datum Null() { return Datum::Union(0, Datum::Null()); }
Datum Some(Datum value) { return Datum::Union(1, std::move(value)); }

template <typename T>
Datum OptionalOf(const std::optional<T>& value, Datum (*make)(T)) {
  return value ? Some(make(*value)) : Null();
}

Datum MapDatum(const std::map<int32_t, int64_t>& map) {
  if (map.empty()) return Null();
  std::vector<Datum> items;
  for (const auto& [key, value] : map) items.push_back(Datum::Record({Datum::Int(key), Datum::Long(value)}));
  return Some(Datum::Array(std::move(items)));
}

Datum MapDatum(const std::map<int32_t, std::string>& map) {
  if (map.empty()) return Null();
  std::vector<Datum> items;
  for (const auto& [key, value] : map) items.push_back(Datum::Record({Datum::Int(key), Datum::Bytes(value)}));
  return Some(Datum::Array(std::move(items)));
}

Datum DataFileDatum(const DataFile& file, int32_t format_version) {
  Datum split_offsets = Null();
  if (!file.split_offsets.empty()) {
    std::vector<Datum> items;
    for (int64_t offset : file.split_offsets) items.push_back(Datum::Long(offset));
    split_offsets = Some(Datum::Array(std::move(items)));
  }
  Datum equality_ids = Null();
  if (file.content == FileContent::kEqualityDeletes) {  // required for equality deletes, null otherwise
    std::vector<Datum> items;
    for (int32_t id : file.equality_ids) items.push_back(Datum::Int(id));
    equality_ids = Some(Datum::Array(std::move(items)));
  }
  std::vector<Datum> fields = {
      Datum::Int(static_cast<int32_t>(file.content)),
      Datum::String(file.file_path),
      Datum::String(file.file_format),
      Datum::Record({}),
      Datum::Long(file.record_count),
      Datum::Long(file.file_size_in_bytes),
      MapDatum(file.column_sizes),
      MapDatum(file.value_counts),
      MapDatum(file.null_value_counts),
      MapDatum(file.nan_value_counts),
      MapDatum(file.lower_bounds),
      MapDatum(file.upper_bounds),
      Null(),  // key_metadata
      std::move(split_offsets),
      std::move(equality_ids),
      OptionalOf<int32_t>(file.sort_order_id, &Datum::Int),
  };
  if (format_version >= kManifestFormatV3) fields.push_back(OptionalOf<int64_t>(file.first_row_id, &Datum::Long));
  fields.push_back(OptionalOf<std::string>(file.referenced_data_file, &Datum::String));
  if (format_version >= kManifestFormatV3) {
    fields.push_back(OptionalOf<int64_t>(file.content_offset, &Datum::Long));
    fields.push_back(OptionalOf<int64_t>(file.content_size_in_bytes, &Datum::Long));
  }
  return Datum::Record(std::move(fields));
}

// ---------------------------------------------------------------- reading by name

// A record datum with its schema; fields are looked up by name. Errors are
// Corruption naming `context_` (file and record).
class RecordView {
 public:
  RecordView(const Schema& schema, const Datum& datum, std::string context)
      : schema_(schema), datum_(datum), context_(std::move(context)) {}

  // The field's value with any union unwrapped; nullptr when absent or null.
  const Datum* Get(const char* name, const Schema** schema_out = nullptr) const {
    int index = schema_.FieldIndex(name);
    if (index < 0 || datum_.type() != avro::Type::kRecord) return nullptr;
    const Datum* value = &datum_.fields()[index];
    const Schema* schema = &schema_.fields[index].schema;
    if (value->type() == avro::Type::kUnion) {
      schema = &schema->children[value->union_branch()];
      value = &value->union_value();
    }
    if (value->is_null()) return nullptr;
    if (schema_out) *schema_out = schema;
    return value;
  }

  Status Missing(const char* name) const { return Error(StrCat("required field ", name, " is missing or null")); }
  Status Error(const std::string& what) const { return Status::Corruption(StrCat(context_, ": ", what)); }

  Result<std::optional<int64_t>> OptionalLong(const char* name) const {
    const Datum* value = Get(name);
    if (!value) return std::optional<int64_t>();
    if (value->type() == avro::Type::kLong) return std::optional<int64_t>(value->long_value());
    if (value->type() == avro::Type::kInt) return std::optional<int64_t>(value->int_value());
    return Error(StrCat("field ", name, " is a ", avro::TypeName(value->type()), ", not a long"));
  }
  Result<int64_t> Long(const char* name) const {
    ASSIGN_OR_RETURN(std::optional<int64_t> value, OptionalLong(name));
    if (!value) return Missing(name);
    return *value;
  }
  Result<std::optional<int32_t>> OptionalInt(const char* name) const {
    const Datum* value = Get(name);
    if (!value) return std::optional<int32_t>();
    if (value->type() == avro::Type::kInt) return std::optional<int32_t>(value->int_value());
    return Error(StrCat("field ", name, " is a ", avro::TypeName(value->type()), ", not an int"));
  }
  Result<int32_t> Int(const char* name) const {
    ASSIGN_OR_RETURN(std::optional<int32_t> value, OptionalInt(name));
    if (!value) return Missing(name);
    return *value;
  }
  Result<std::optional<std::string>> OptionalString(const char* name) const {
    const Datum* value = Get(name);
    if (!value) return std::optional<std::string>();
    if (value->type() == avro::Type::kString || value->type() == avro::Type::kBytes) {
      return std::optional<std::string>(value->bytes());
    }
    return Error(StrCat("field ", name, " is a ", avro::TypeName(value->type()), ", not a string"));
  }
  Result<std::string> String(const char* name) const {
    ASSIGN_OR_RETURN(std::optional<std::string> value, OptionalString(name));
    if (!value) return Missing(name);
    return *value;
  }
  // A list of long or int values; empty when absent or null.
  Result<std::vector<int64_t>> LongList(const char* name) const {
    const Schema* schema = nullptr;
    const Datum* value = Get(name, &schema);
    std::vector<int64_t> out;
    if (!value) return out;
    if (value->type() != avro::Type::kArray) return Error(StrCat("field ", name, " is not an array"));
    for (const Datum& item : value->items()) {
      if (item.type() == avro::Type::kLong) {
        out.push_back(item.long_value());
      } else if (item.type() == avro::Type::kInt) {
        out.push_back(item.int_value());
      } else {
        return Error(StrCat("field ", name, " has a ", avro::TypeName(item.type()), " element"));
      }
    }
    return out;
  }
  // An int-keyed map written as an array of key/value records.
  template <typename V>
  Status IntKeyedMap(const char* name, std::map<int32_t, V>* out) const {
    const Schema* schema = nullptr;
    const Datum* value = Get(name, &schema);
    if (!value) return Status::OK();
    if (value->type() != avro::Type::kArray || schema->items().type != avro::Type::kRecord) {
      return Error(StrCat("field ", name, " is not an array of key/value records"));
    }
    for (size_t i = 0; i < value->items().size(); ++i) {
      RecordView entry(schema->items(), value->items()[i], StrCat(context_, ": ", name, "[", i, "]"));
      ASSIGN_OR_RETURN(int32_t key, entry.Int("key"));
      if constexpr (std::is_same_v<V, int64_t>) {
        ASSIGN_OR_RETURN((*out)[key], entry.Long("value"));
      } else {
        ASSIGN_OR_RETURN((*out)[key], entry.String("value"));
      }
    }
    return Status::OK();
  }
  Result<RecordView> Record(const char* name) const {
    const Schema* schema = nullptr;
    const Datum* value = Get(name, &schema);
    if (!value) return Missing(name);
    if (value->type() != avro::Type::kRecord) return Error(StrCat("field ", name, " is not a record"));
    return RecordView(*schema, *value, StrCat(context_, ": ", name));
  }

 private:
  const Schema& schema_;
  const Datum& datum_;
  std::string context_;
};

Result<DataFile> ReadDataFile(const RecordView& view) {
  DataFile file;
  ASSIGN_OR_RETURN(std::optional<int32_t> content, view.OptionalInt("content"));  // absent in v1: data
  int32_t content_value = content.value_or(0);
  if (content_value < 0 || content_value > 2) return view.Error(StrCat("content ", content_value, " is not 0, 1 or 2"));
  file.content = static_cast<FileContent>(content_value);
  ASSIGN_OR_RETURN(file.file_path, view.String("file_path"));
  ASSIGN_OR_RETURN(file.file_format, view.String("file_format"));
  ASSIGN_OR_RETURN(file.record_count, view.Long("record_count"));
  ASSIGN_OR_RETURN(file.file_size_in_bytes, view.Long("file_size_in_bytes"));
  RETURN_IF_ERROR(view.IntKeyedMap("column_sizes", &file.column_sizes));
  RETURN_IF_ERROR(view.IntKeyedMap("value_counts", &file.value_counts));
  RETURN_IF_ERROR(view.IntKeyedMap("null_value_counts", &file.null_value_counts));
  RETURN_IF_ERROR(view.IntKeyedMap("nan_value_counts", &file.nan_value_counts));
  RETURN_IF_ERROR(view.IntKeyedMap("lower_bounds", &file.lower_bounds));
  RETURN_IF_ERROR(view.IntKeyedMap("upper_bounds", &file.upper_bounds));
  ASSIGN_OR_RETURN(file.split_offsets, view.LongList("split_offsets"));
  ASSIGN_OR_RETURN(std::vector<int64_t> equality_ids, view.LongList("equality_ids"));
  for (int64_t id : equality_ids) file.equality_ids.push_back(static_cast<int32_t>(id));
  ASSIGN_OR_RETURN(file.sort_order_id, view.OptionalInt("sort_order_id"));
  ASSIGN_OR_RETURN(file.referenced_data_file, view.OptionalString("referenced_data_file"));
  ASSIGN_OR_RETURN(file.first_row_id, view.OptionalLong("first_row_id"));
  ASSIGN_OR_RETURN(file.content_offset, view.OptionalLong("content_offset"));
  ASSIGN_OR_RETURN(file.content_size_in_bytes, view.OptionalLong("content_size_in_bytes"));
  return file;
}

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return (x >= 'A' && x <= 'Z' ? x - 'A' + 'a' : x) == (y >= 'A' && y <= 'Z' ? y - 'A' + 'a' : y);
  });
}

Status CheckEntry(const std::string& path, size_t index, const ManifestEntry& entry, ManifestContent content,
                  int32_t format_version) {
  auto error = [&](const std::string& what) {
    return Status::InvalidArgument(StrCat(path, ": manifest entry ", index, " (", entry.data_file.file_path, "): ", what));
  };
  const DataFile& file = entry.data_file;
  bool is_data = file.content == FileContent::kData;
  if (is_data != (content == ManifestContent::kData)) {
    return error(is_data ? "a data file in a delete manifest" : "a delete file in a data manifest");
  }
  if (!file.equality_ids.empty() && file.content != FileContent::kEqualityDeletes) {
    return error("equality_ids on a file that is not an equality delete file");
  }
  if (entry.status != ManifestEntryStatus::kAdded && (!entry.snapshot_id || !entry.sequence_number)) {
    return error("EXISTING and DELETED entries need an explicit snapshot_id and sequence_number");
  }
  if (file.file_path.empty()) return error("empty file_path");
  if (format_version < kManifestFormatV3) {
    if (file.first_row_id || file.content_offset || file.content_size_in_bytes) {
      return error("first_row_id, content_offset and content_size_in_bytes are v3 fields");
    }
    return Status::OK();
  }
  if (!is_data && file.first_row_id) return error("a delete file with a first_row_id");
  bool is_vector = IsDeletionVector(file);
  if (is_vector && (file.content != FileContent::kPositionDeletes || !file.referenced_data_file ||
                    !file.content_offset || !file.content_size_in_bytes)) {
    return error("a deletion vector needs content 1, referenced_data_file, content_offset and content_size_in_bytes");
  }
  if (!is_vector && (file.content_offset || file.content_size_in_bytes)) {
    return error("content_offset and content_size_in_bytes only on deletion vectors (file_format puffin)");
  }
  return Status::OK();
}

std::string ContentName(ManifestContent content) { return content == ManifestContent::kData ? "data" : "deletes"; }

}  // namespace

avro::Schema ManifestEntrySchema(int32_t format_version) {
  return Schema::Record(
      "manifest_entry",
      {
          Field::WithId("status", Schema::Int(), kStatusFieldId),
          Field::WithId("snapshot_id", Schema::Long(), kSnapshotIdFieldId, kOptional),
          Field::WithId("sequence_number", Schema::Long(), kSequenceNumberFieldId, kOptional),
          Field::WithId("file_sequence_number", Schema::Long(), kFileSequenceNumberFieldId, kOptional),
          Field::WithId("data_file", DataFileSchema(format_version), kDataFileFieldId),
      });
}

avro::Schema ManifestFileSchema(int32_t format_version) {
  Schema field_summary = Schema::Record(
      "r508", {
                  Field::WithId("contains_null", Schema::Boolean(), kContainsNullFieldId),
                  Field::WithId("contains_nan", Schema::Boolean(), kContainsNanFieldId, kOptional),
                  Field::WithId("lower_bound", Schema::Bytes(), kLowerBoundFieldId, kOptional),
                  Field::WithId("upper_bound", Schema::Bytes(), kUpperBoundFieldId, kOptional),
              });
  std::vector<Field> fields = {
      Field::WithId("manifest_path", Schema::String(), kManifestPathFieldId),
      Field::WithId("manifest_length", Schema::Long(), kManifestLengthFieldId),
      Field::WithId("partition_spec_id", Schema::Int(), kPartitionSpecIdFieldId),
      Field::WithId("content", Schema::Int(), kManifestContentFieldId),
      Field::WithId("sequence_number", Schema::Long(), kManifestSequenceNumberFieldId),
      Field::WithId("min_sequence_number", Schema::Long(), kMinSequenceNumberFieldId),
      Field::WithId("added_snapshot_id", Schema::Long(), kAddedSnapshotIdFieldId),
      Field::WithId("added_files_count", Schema::Int(), kAddedFilesCountFieldId),
      Field::WithId("existing_files_count", Schema::Int(), kExistingFilesCountFieldId),
      Field::WithId("deleted_files_count", Schema::Int(), kDeletedFilesCountFieldId),
      Field::WithId("added_rows_count", Schema::Long(), kAddedRowsCountFieldId),
      Field::WithId("existing_rows_count", Schema::Long(), kExistingRowsCountFieldId),
      Field::WithId("deleted_rows_count", Schema::Long(), kDeletedRowsCountFieldId),
      Field::WithId("partitions", ListOf(std::move(field_summary), kPartitionSummaryElementId),
                    kPartitionsFieldId, kOptional),
      Field::WithId("key_metadata", Schema::Bytes(), kManifestKeyMetadataFieldId, kOptional),
  };
  if (format_version >= kManifestFormatV3) {
    fields.push_back(Field::WithId("first_row_id", Schema::Long(), kManifestFirstRowIdFieldId, kOptional));
  }
  return Schema::Record("manifest_file", std::move(fields));
}

Result<int64_t> AssignFirstRowIds(std::vector<ManifestFile>* manifests, int64_t snapshot_first_row_id) {
  int64_t next = snapshot_first_row_id;
  for (ManifestFile& m : *manifests) {
    if (m.content != ManifestContent::kData) {
      if (m.first_row_id) {
        return Status::InvalidArgument(StrCat(m.manifest_path, ": a delete manifest with a first_row_id"));
      }
      continue;
    }
    if (m.first_row_id) continue;  // assigned when first committed: kept
    if (m.added_rows_count < 0 || m.existing_rows_count < 0) {
      return Status::InvalidArgument(StrCat(m.manifest_path, ": negative row counts"));
    }
    m.first_row_id = next;
    next += m.added_rows_count + m.existing_rows_count;
  }
  return next - snapshot_first_row_id;
}

Result<ManifestFile> WriteManifest(FileSystem& fs, const std::string& path, const ManifestWriteOptions& options,
                                   const std::vector<ManifestEntry>& entries, int64_t snapshot_id,
                                   int64_t sequence_number) {
  if (options.table_schema_json.empty()) {
    return Status::InvalidArgument(StrCat(path, ": a manifest needs the table schema JSON"));
  }
  const int32_t version = options.format_version;
  if (version != kManifestFormatV2 && version != kManifestFormatV3) {
    return Status::InvalidArgument(StrCat(path, ": manifest format version ", version, " is not 2 or 3"));
  }
  ManifestFile result;
  result.manifest_path = path;
  result.partition_spec_id = options.partition_spec_id;
  result.content = options.content;
  result.sequence_number = sequence_number;
  result.min_sequence_number = sequence_number;
  result.added_snapshot_id = snapshot_id;
  for (size_t i = 0; i < entries.size(); ++i) {
    const ManifestEntry& entry = entries[i];
    RETURN_IF_ERROR(CheckEntry(path, i, entry, options.content, version));
    int64_t rows = entry.data_file.record_count;
    switch (entry.status) {
      case ManifestEntryStatus::kAdded:
        ++result.added_files_count;
        result.added_rows_count += rows;
        break;
      case ManifestEntryStatus::kExisting:
        ++result.existing_files_count;
        result.existing_rows_count += rows;
        result.min_sequence_number = std::min(result.min_sequence_number, *entry.sequence_number);
        break;
      case ManifestEntryStatus::kDeleted:
        ++result.deleted_files_count;
        result.deleted_rows_count += rows;
        break;
    }
  }

  avro::ContainerWriterOptions writer_options;
  writer_options.codec = avro::ContainerCodec::kDeflate;
  writer_options.metadata = {
      {"schema", options.table_schema_json},
      {"schema-id", std::to_string(options.schema_id)},
      {"partition-spec", kUnpartitionedSpecFields},
      {"partition-spec-id", std::to_string(options.partition_spec_id)},
      {"format-version", std::to_string(version)},
      {"content", ContentName(options.content)},
  };
  ASSIGN_OR_RETURN(auto writer,
                   avro::ContainerWriter::Open(fs, path, ManifestEntrySchema(version), writer_options));
  for (const ManifestEntry& entry : entries) {
    bool inherited = entry.status == ManifestEntryStatus::kAdded;
    Datum record = Datum::Record({
        Datum::Int(static_cast<int32_t>(entry.status)),
        inherited ? Null() : OptionalOf<int64_t>(entry.snapshot_id, &Datum::Long),
        inherited ? Null() : OptionalOf<int64_t>(entry.sequence_number, &Datum::Long),
        inherited ? Null() : OptionalOf<int64_t>(entry.file_sequence_number, &Datum::Long),
        DataFileDatum(entry.data_file, version),
    });
    RETURN_IF_ERROR(writer->Append(record));
  }
  ASSIGN_OR_RETURN(uint64_t length, writer->Close());
  result.manifest_length = static_cast<int64_t>(length);
  return result;
}

Result<std::vector<ManifestEntry>> ReadManifest(FileSystem& fs, const ManifestFile& manifest) {
  const std::string& path = manifest.manifest_path;
  ASSIGN_OR_RETURN(auto reader, avro::ContainerReader::Open(fs, path));
  const Schema& schema = reader->schema();
  if (schema.type != avro::Type::kRecord) {
    return Status::Corruption(StrCat(path, ": manifest records are ", avro::TypeName(schema.type), ", not records"));
  }
  std::vector<ManifestEntry> entries;
  int64_t inherited_row_id = manifest.first_row_id.value_or(0);  // spec "First Row ID Inheritance"
  while (true) {
    ASSIGN_OR_RETURN(std::optional<Datum> record, reader->Next());
    if (!record) break;
    RecordView view(schema, *record, StrCat(path, ": manifest entry ", entries.size()));
    ManifestEntry entry;
    ASSIGN_OR_RETURN(int32_t status, view.Int("status"));
    if (status < 0 || status > 2) return view.Error(StrCat("status ", status, " is not 0, 1 or 2"));
    entry.status = static_cast<ManifestEntryStatus>(status);
    ASSIGN_OR_RETURN(entry.snapshot_id, view.OptionalLong("snapshot_id"));
    ASSIGN_OR_RETURN(entry.sequence_number, view.OptionalLong("sequence_number"));
    ASSIGN_OR_RETURN(entry.file_sequence_number, view.OptionalLong("file_sequence_number"));
    ASSIGN_OR_RETURN(RecordView data_file, view.Record("data_file"));
    ASSIGN_OR_RETURN(entry.data_file, ReadDataFile(data_file));
    // Spec "Sequence Number Inheritance".
    if (!entry.snapshot_id) entry.snapshot_id = manifest.added_snapshot_id;
    if (entry.status == ManifestEntryStatus::kAdded) {
      if (!entry.sequence_number) entry.sequence_number = manifest.sequence_number;
      if (!entry.file_sequence_number) entry.file_sequence_number = manifest.sequence_number;
    }
    DataFile& file = entry.data_file;
    if (manifest.first_row_id && file.content == FileContent::kData && !file.first_row_id) {
      file.first_row_id = inherited_row_id;
      inherited_row_id += file.record_count;
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

Status WriteManifestList(FileSystem& fs, const std::string& path, int64_t snapshot_id,
                         std::optional<int64_t> parent_snapshot_id, int64_t sequence_number,
                         const std::vector<ManifestFile>& manifests, int32_t format_version,
                         std::optional<int64_t> first_row_id) {
  if (format_version != kManifestFormatV2 && format_version != kManifestFormatV3) {
    return Status::InvalidArgument(StrCat(path, ": manifest list format version ", format_version, " is not 2 or 3"));
  }
  const bool v3 = format_version == kManifestFormatV3;
  if (v3 != first_row_id.has_value()) {
    return Status::InvalidArgument(StrCat(path, ": a v3 manifest list, and only one, has a first-row-id"));
  }
  for (const ManifestFile& m : manifests) {
    bool wants_row_id = v3 && m.content == ManifestContent::kData;
    if (wants_row_id != m.first_row_id.has_value()) {
      return Status::InvalidArgument(
          StrCat(path, ": ", m.manifest_path,
                 v3 ? ": in a v3 manifest list data manifests, and only they, have a first_row_id"
                    : ": a first_row_id in a v2 manifest list"));
    }
  }
  avro::ContainerWriterOptions writer_options;
  writer_options.codec = avro::ContainerCodec::kDeflate;
  writer_options.metadata = {
      {"snapshot-id", std::to_string(snapshot_id)},
      {"parent-snapshot-id", parent_snapshot_id ? std::to_string(*parent_snapshot_id) : "null"},
      {"sequence-number", std::to_string(sequence_number)},
      {"format-version", std::to_string(format_version)},
  };
  if (v3) writer_options.metadata.emplace_back("first-row-id", std::to_string(*first_row_id));
  ASSIGN_OR_RETURN(auto writer,
                   avro::ContainerWriter::Open(fs, path, ManifestFileSchema(format_version), writer_options));
  for (const ManifestFile& m : manifests) {
    std::vector<Datum> fields = {
        Datum::String(m.manifest_path),
        Datum::Long(m.manifest_length),
        Datum::Int(m.partition_spec_id),
        Datum::Int(static_cast<int32_t>(m.content)),
        Datum::Long(m.sequence_number),
        Datum::Long(m.min_sequence_number),
        Datum::Long(m.added_snapshot_id),
        Datum::Int(m.added_files_count),
        Datum::Int(m.existing_files_count),
        Datum::Int(m.deleted_files_count),
        Datum::Long(m.added_rows_count),
        Datum::Long(m.existing_rows_count),
        Datum::Long(m.deleted_rows_count),
        Some(Datum::Array({})),  // partitions: one summary per partition field, none when unpartitioned
        Null(),                  // key_metadata
    };
    if (v3) fields.push_back(OptionalOf<int64_t>(m.first_row_id, &Datum::Long));
    RETURN_IF_ERROR(writer->Append(Datum::Record(std::move(fields))));
  }
  ASSIGN_OR_RETURN(uint64_t length, writer->Close());
  (void)length;
  return Status::OK();
}

Result<std::vector<ManifestFile>> ReadManifestList(FileSystem& fs, const std::string& path) {
  ASSIGN_OR_RETURN(auto reader, avro::ContainerReader::Open(fs, path));
  const Schema& schema = reader->schema();
  if (schema.type != avro::Type::kRecord) {
    return Status::Corruption(StrCat(path, ": manifest list records are ", avro::TypeName(schema.type), ", not records"));
  }
  std::vector<ManifestFile> manifests;
  while (true) {
    ASSIGN_OR_RETURN(std::optional<Datum> record, reader->Next());
    if (!record) break;
    RecordView view(schema, *record, StrCat(path, ": manifest_file ", manifests.size()));
    ManifestFile m;
    ASSIGN_OR_RETURN(m.manifest_path, view.String("manifest_path"));
    ASSIGN_OR_RETURN(m.manifest_length, view.Long("manifest_length"));
    ASSIGN_OR_RETURN(m.partition_spec_id, view.Int("partition_spec_id"));
    ASSIGN_OR_RETURN(std::optional<int32_t> content, view.OptionalInt("content"));  // absent in v1: data
    if (content.value_or(0) < 0 || content.value_or(0) > 1) {
      return view.Error(StrCat("content ", *content, " is not 0 or 1"));
    }
    m.content = static_cast<ManifestContent>(content.value_or(0));
    ASSIGN_OR_RETURN(std::optional<int64_t> sequence_number, view.OptionalLong("sequence_number"));
    ASSIGN_OR_RETURN(std::optional<int64_t> min_sequence_number, view.OptionalLong("min_sequence_number"));
    m.sequence_number = sequence_number.value_or(0);  // v1 manifests read as 0
    m.min_sequence_number = min_sequence_number.value_or(0);
    ASSIGN_OR_RETURN(m.added_snapshot_id, view.Long("added_snapshot_id"));
    // v1 named the counts added_data_files_count etc. and made them optional.
    auto count = [&view](const char* v2_name, const char* v1_name) -> Result<std::optional<int32_t>> {
      ASSIGN_OR_RETURN(std::optional<int32_t> value, view.OptionalInt(v2_name));
      if (value) return value;
      return view.OptionalInt(v1_name);
    };
    ASSIGN_OR_RETURN(std::optional<int32_t> added, count("added_files_count", "added_data_files_count"));
    ASSIGN_OR_RETURN(std::optional<int32_t> existing, count("existing_files_count", "existing_data_files_count"));
    ASSIGN_OR_RETURN(std::optional<int32_t> deleted, count("deleted_files_count", "deleted_data_files_count"));
    m.added_files_count = added.value_or(0);
    m.existing_files_count = existing.value_or(0);
    m.deleted_files_count = deleted.value_or(0);
    ASSIGN_OR_RETURN(std::optional<int64_t> added_rows, view.OptionalLong("added_rows_count"));
    ASSIGN_OR_RETURN(std::optional<int64_t> existing_rows, view.OptionalLong("existing_rows_count"));
    ASSIGN_OR_RETURN(std::optional<int64_t> deleted_rows, view.OptionalLong("deleted_rows_count"));
    m.added_rows_count = added_rows.value_or(0);
    m.existing_rows_count = existing_rows.value_or(0);
    m.deleted_rows_count = deleted_rows.value_or(0);
    ASSIGN_OR_RETURN(m.first_row_id, view.OptionalLong("first_row_id"));
    manifests.push_back(std::move(m));
  }
  return manifests;
}

bool IsDeletionVector(const DataFile& file) { return EqualsIgnoringCase(file.file_format, kPuffinFormat); }

}  // namespace cqlite::iceberg
