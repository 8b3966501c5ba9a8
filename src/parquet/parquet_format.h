// The Parquet file metadata, described once: the Thrift structs of
// parquet.thrift that CQLite writes and reads, with their field ids as named
// constants, and the functions that serialize them (Thrift compact protocol,
// see thrift_compact.h) and parse them back.
// Spec: https://github.com/apache/parquet-format/blob/master/src/main/thrift/parquet.thrift
//
// Only the fields CQLite uses are modelled; a parser skips the others. Optional
// Thrift fields are std::optional. Enum values are on-disk values.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace cqlite::parquet {

// "PAR1", at the start and the end of every file.
inline constexpr char kMagic[] = "PAR1";
inline constexpr size_t kMagicSize = 4;

// The footer key-value entry in which CQLite's writer records the CRC-32 of
// the footer itself: its value is 16 lowercase hex digits, the CRC-32 then
// the footer's length, the CRC computed over the serialized footer with the
// value written as 16 zeros. Readers verify it when the length is the
// footer's (FooterChecksumValueAt locates it), so that a damaged footer is an
// error rather than a misread; a copy of the entry that another writer kept
// in a file of its own has another length and is ignored, as other readers
// ignore the entry.
inline constexpr char kFooterChecksumKey[] = "cqlite.footer.crc32";
inline constexpr char kFooterChecksumPlaceholder[] = "0000000000000000";
inline constexpr size_t kFooterChecksumSize = 16;
// Where the value of kFooterChecksumKey starts in a serialized footer (the
// key's bytes, then the value's field header and 1-byte length), or npos.
size_t FooterChecksumValueAt(std::string_view footer);

// parquet.thrift `enum Type` (on-disk values).
enum class PhysicalType : int32_t {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kInt96 = 3,
  kFloat = 4,
  kDouble = 5,
  kByteArray = 6,
  kFixedLenByteArray = 7,
};
const char* PhysicalTypeName(PhysicalType type);

// parquet.thrift `enum ConvertedType` (on-disk values), still written for old readers.
enum class ConvertedType : int32_t {
  kUtf8 = 0,
  kMap = 1,
  kMapKeyValue = 2,
  kList = 3,
  kEnum = 4,
  kDecimal = 5,
  kDate = 6,
  kTimeMillis = 7,
  kTimeMicros = 8,
  kTimestampMillis = 9,
  kTimestampMicros = 10,
  kUint8 = 11,
  kUint16 = 12,
  kUint32 = 13,
  kUint64 = 14,
  kInt8 = 15,
  kInt16 = 16,
  kInt32 = 17,
  kInt64 = 18,
  kJson = 19,
  kBson = 20,
  kInterval = 21,
};

// parquet.thrift `enum FieldRepetitionType` (on-disk values).
enum class Repetition : int32_t { kRequired = 0, kOptional = 1, kRepeated = 2 };

// parquet.thrift `enum Encoding` (on-disk values).
enum class Encoding : int32_t {
  kPlain = 0,
  kPlainDictionary = 2,
  kRle = 3,
  kBitPacked = 4,
  kDeltaBinaryPacked = 5,
  kDeltaLengthByteArray = 6,
  kDeltaByteArray = 7,
  kRleDictionary = 8,
  kByteStreamSplit = 9,
};

// parquet.thrift `enum CompressionCodec` (on-disk values).
enum class CompressionCodec : int32_t {
  kUncompressed = 0,
  kSnappy = 1,
  kGzip = 2,
  kLzo = 3,
  kBrotli = 4,
  kLz4 = 5,
  kZstd = 6,
  kLz4Raw = 7,
};

// parquet.thrift `enum PageType` (on-disk values).
enum class PageType : int32_t { kDataPage = 0, kIndexPage = 1, kDictionaryPage = 2, kDataPageV2 = 3 };

// parquet.thrift `union TimeUnit` field ids.
enum class TimeUnit : int16_t { kMillis = 1, kMicros = 2, kNanos = 3 };

// parquet.thrift `union LogicalType`; `kind` is the union's field id.
struct LogicalType {
  enum Kind : int16_t {
    kNone = 0,  // not written
    kString = 1,
    kMap = 2,
    kList = 3,
    kEnum = 4,
    kDecimal = 5,
    kDate = 6,
    kTime = 7,
    kTimestamp = 8,
    kInteger = 10,
    kUnknown = 11,
    kJson = 12,
    kBson = 13,
    kUuid = 14,
  };
  Kind kind = kNone;
  int32_t scale = 0;                  // kDecimal: DecimalType.scale (1)
  int32_t precision = 0;              // kDecimal: DecimalType.precision (2)
  bool utc_adjusted = false;          // kTime/kTimestamp: isAdjustedToUTC (1)
  TimeUnit unit = TimeUnit::kMicros;  // kTime/kTimestamp: unit (2)
  int8_t bit_width = 0;               // kInteger: IntType.bitWidth (1)
  bool is_signed = true;              // kInteger: IntType.isSigned (2)

  static LogicalType String() { return {kString}; }
  static LogicalType Decimal(int32_t precision, int32_t scale) {
    LogicalType t{kDecimal};
    t.precision = precision;
    t.scale = scale;
    return t;
  }
  static LogicalType Date() { return {kDate}; }
  static LogicalType TimeMicros() {
    LogicalType t{kTime};
    t.utc_adjusted = false;
    return t;
  }
  static LogicalType TimestampMicros(bool utc_adjusted) {
    LogicalType t{kTimestamp};
    t.utc_adjusted = utc_adjusted;
    return t;
  }
  static LogicalType Uuid() { return {kUuid}; }
  static LogicalType Integer(int bits, bool is_signed) {
    LogicalType t{kInteger};
    t.bit_width = static_cast<int8_t>(bits);
    t.is_signed = is_signed;
    return t;
  }
  bool operator==(const LogicalType&) const = default;
};

// Field ids of each struct, named after parquet.thrift.
namespace field {
// struct Statistics
inline constexpr int16_t kStatisticsMax = 1;  // deprecated, not written
inline constexpr int16_t kStatisticsMin = 2;  // deprecated, not written
inline constexpr int16_t kStatisticsNullCount = 3;
inline constexpr int16_t kStatisticsDistinctCount = 4;
inline constexpr int16_t kStatisticsMaxValue = 5;
inline constexpr int16_t kStatisticsMinValue = 6;
// struct DecimalType / TimeType / TimestampType / IntType
inline constexpr int16_t kDecimalScale = 1;
inline constexpr int16_t kDecimalPrecision = 2;
inline constexpr int16_t kTimeIsAdjustedToUtc = 1;
inline constexpr int16_t kTimeUnit = 2;
inline constexpr int16_t kIntBitWidth = 1;
inline constexpr int16_t kIntIsSigned = 2;
// struct SchemaElement
inline constexpr int16_t kSchemaType = 1;
inline constexpr int16_t kSchemaTypeLength = 2;
inline constexpr int16_t kSchemaRepetitionType = 3;
inline constexpr int16_t kSchemaName = 4;
inline constexpr int16_t kSchemaNumChildren = 5;
inline constexpr int16_t kSchemaConvertedType = 6;
inline constexpr int16_t kSchemaScale = 7;
inline constexpr int16_t kSchemaPrecision = 8;
inline constexpr int16_t kSchemaFieldId = 9;
inline constexpr int16_t kSchemaLogicalType = 10;
// struct DataPageHeader
inline constexpr int16_t kDataPageNumValues = 1;
inline constexpr int16_t kDataPageEncoding = 2;
inline constexpr int16_t kDataPageDefinitionLevelEncoding = 3;
inline constexpr int16_t kDataPageRepetitionLevelEncoding = 4;
inline constexpr int16_t kDataPageStatistics = 5;
// struct DictionaryPageHeader
inline constexpr int16_t kDictionaryPageNumValues = 1;
inline constexpr int16_t kDictionaryPageEncoding = 2;
inline constexpr int16_t kDictionaryPageIsSorted = 3;
// struct PageHeader
inline constexpr int16_t kPageHeaderType = 1;
inline constexpr int16_t kPageHeaderUncompressedPageSize = 2;
inline constexpr int16_t kPageHeaderCompressedPageSize = 3;
inline constexpr int16_t kPageHeaderCrc = 4;
inline constexpr int16_t kPageHeaderDataPageHeader = 5;
inline constexpr int16_t kPageHeaderIndexPageHeader = 6;
inline constexpr int16_t kPageHeaderDictionaryPageHeader = 7;
inline constexpr int16_t kPageHeaderDataPageHeaderV2 = 8;
// struct KeyValue
inline constexpr int16_t kKeyValueKey = 1;
inline constexpr int16_t kKeyValueValue = 2;
// struct PageEncodingStats
inline constexpr int16_t kPageEncodingStatsPageType = 1;
inline constexpr int16_t kPageEncodingStatsEncoding = 2;
inline constexpr int16_t kPageEncodingStatsCount = 3;
// struct ColumnMetaData
inline constexpr int16_t kColumnMetaDataType = 1;
inline constexpr int16_t kColumnMetaDataEncodings = 2;
inline constexpr int16_t kColumnMetaDataPathInSchema = 3;
inline constexpr int16_t kColumnMetaDataCodec = 4;
inline constexpr int16_t kColumnMetaDataNumValues = 5;
inline constexpr int16_t kColumnMetaDataTotalUncompressedSize = 6;
inline constexpr int16_t kColumnMetaDataTotalCompressedSize = 7;
inline constexpr int16_t kColumnMetaDataKeyValueMetadata = 8;
inline constexpr int16_t kColumnMetaDataDataPageOffset = 9;
inline constexpr int16_t kColumnMetaDataIndexPageOffset = 10;
inline constexpr int16_t kColumnMetaDataDictionaryPageOffset = 11;
inline constexpr int16_t kColumnMetaDataStatistics = 12;
inline constexpr int16_t kColumnMetaDataEncodingStats = 13;
// struct ColumnChunk
inline constexpr int16_t kColumnChunkFilePath = 1;
inline constexpr int16_t kColumnChunkFileOffset = 2;
inline constexpr int16_t kColumnChunkMetaData = 3;
// struct RowGroup
inline constexpr int16_t kRowGroupColumns = 1;
inline constexpr int16_t kRowGroupTotalByteSize = 2;
inline constexpr int16_t kRowGroupNumRows = 3;
inline constexpr int16_t kRowGroupSortingColumns = 4;
inline constexpr int16_t kRowGroupFileOffset = 5;
inline constexpr int16_t kRowGroupTotalCompressedSize = 6;
inline constexpr int16_t kRowGroupOrdinal = 7;
// union ColumnOrder
inline constexpr int16_t kColumnOrderTypeOrder = 1;
// struct FileMetaData
inline constexpr int16_t kFileMetaDataVersion = 1;
inline constexpr int16_t kFileMetaDataSchema = 2;
inline constexpr int16_t kFileMetaDataNumRows = 3;
inline constexpr int16_t kFileMetaDataRowGroups = 4;
inline constexpr int16_t kFileMetaDataKeyValueMetadata = 5;
inline constexpr int16_t kFileMetaDataCreatedBy = 6;
inline constexpr int16_t kFileMetaDataColumnOrders = 7;
}  // namespace field

struct Statistics {
  std::optional<int64_t> null_count;
  std::optional<int64_t> distinct_count;
  // PLAIN encodings of the values (no length prefix for byte arrays).
  std::optional<std::string> max_value;
  std::optional<std::string> min_value;
};

struct SchemaElement {
  std::optional<PhysicalType> type;  // absent for groups
  std::optional<int32_t> type_length;
  std::optional<Repetition> repetition_type;  // absent only for the root
  std::string name;
  std::optional<int32_t> num_children;  // present for groups
  std::optional<ConvertedType> converted_type;
  std::optional<int32_t> scale;
  std::optional<int32_t> precision;
  std::optional<int32_t> field_id;
  std::optional<LogicalType> logical_type;
};

struct DataPageHeader {
  int32_t num_values = 0;
  Encoding encoding = Encoding::kPlain;
  Encoding definition_level_encoding = Encoding::kRle;
  Encoding repetition_level_encoding = Encoding::kRle;
};

struct DictionaryPageHeader {
  int32_t num_values = 0;
  Encoding encoding = Encoding::kPlain;
  std::optional<bool> is_sorted;
};

struct PageHeader {
  PageType type = PageType::kDataPage;
  int32_t uncompressed_page_size = 0;
  int32_t compressed_page_size = 0;
  // CRC-32 (the gzip polynomial) of the page's compressed bytes, after the header.
  std::optional<uint32_t> crc;
  std::optional<DataPageHeader> data_page_header;
  std::optional<DictionaryPageHeader> dictionary_page_header;
};

struct KeyValue {
  std::string key;
  std::optional<std::string> value;
  bool operator==(const KeyValue&) const = default;
};

struct PageEncodingStats {
  PageType page_type = PageType::kDataPage;
  Encoding encoding = Encoding::kPlain;
  int32_t count = 0;
};

struct ColumnMetaData {
  PhysicalType type = PhysicalType::kBoolean;
  std::vector<Encoding> encodings;
  std::vector<std::string> path_in_schema;
  CompressionCodec codec = CompressionCodec::kUncompressed;
  int64_t num_values = 0;
  int64_t total_uncompressed_size = 0;
  int64_t total_compressed_size = 0;
  int64_t data_page_offset = 0;
  std::optional<int64_t> dictionary_page_offset;
  std::optional<Statistics> statistics;
  std::vector<PageEncodingStats> encoding_stats;
};

struct ColumnChunk {
  int64_t file_offset = 0;
  std::optional<ColumnMetaData> meta_data;  // always written by CQLite
};

struct RowGroup {
  std::vector<ColumnChunk> columns;
  int64_t total_byte_size = 0;
  int64_t num_rows = 0;
  std::optional<int64_t> file_offset;
  std::optional<int64_t> total_compressed_size;
  std::optional<int16_t> ordinal;
};

struct FileMetaData {
  int32_t version = 1;
  std::vector<SchemaElement> schema;  // depth-first, the root first
  int64_t num_rows = 0;
  std::vector<RowGroup> row_groups;
  std::vector<KeyValue> key_value_metadata;
  std::optional<std::string> created_by;
  // One per leaf column; true means TypeDefinedOrder (the only order defined).
  std::vector<bool> column_orders;
};

std::string SerializeFileMetaData(const FileMetaData& metadata);
std::string SerializePageHeader(const PageHeader& header);

// `what` names the input in error messages.
Result<FileMetaData> ParseFileMetaData(std::span<const uint8_t> data, const std::string& what);
// Parses the header at the start of `data`; *size is set to its length.
// `exact`: the page is one of CQLite's own (its file's footer records its
// checksum), which carry a crc and no field their parquet.thrift does not
// declare, so anything else is damage.
Result<PageHeader> ParsePageHeader(std::span<const uint8_t> data, const std::string& what, size_t* size,
                                   bool exact = false);

}  // namespace cqlite::parquet
