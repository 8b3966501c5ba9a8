#include "parquet/parquet_format.h"

#include <initializer_list>

#include "parquet/thrift_compact.h"
#include "util/strings.h"

namespace cqlite::parquet {

const char* PhysicalTypeName(PhysicalType type) {
  switch (type) {
    case PhysicalType::kBoolean:
      return "BOOLEAN";
    case PhysicalType::kInt32:
      return "INT32";
    case PhysicalType::kInt64:
      return "INT64";
    case PhysicalType::kInt96:
      return "INT96";
    case PhysicalType::kFloat:
      return "FLOAT";
    case PhysicalType::kDouble:
      return "DOUBLE";
    case PhysicalType::kByteArray:
      return "BYTE_ARRAY";
    case PhysicalType::kFixedLenByteArray:
      return "FIXED_LEN_BYTE_ARRAY";
  }
  return "?";
}

namespace {

using namespace field;  // NOLINT(google-build-using-namespace): field ids only

// ---------------------------------------------------------------- writing

void WriteEmptyStruct(CompactWriter& w, int16_t id) {
  w.FieldStruct(id);
  w.EndStruct();
}

void WriteStatistics(CompactWriter& w, const Statistics& s) {
  if (s.null_count) w.FieldI64(kStatisticsNullCount, *s.null_count);
  if (s.distinct_count) w.FieldI64(kStatisticsDistinctCount, *s.distinct_count);
  if (s.max_value) w.FieldBinary(kStatisticsMaxValue, *s.max_value);
  if (s.min_value) w.FieldBinary(kStatisticsMinValue, *s.min_value);
}

void WriteLogicalType(CompactWriter& w, const LogicalType& t) {
  w.FieldStruct(t.kind);
  switch (t.kind) {
    case LogicalType::kDecimal:
      w.FieldI32(kDecimalScale, t.scale);
      w.FieldI32(kDecimalPrecision, t.precision);
      break;
    case LogicalType::kTime:
    case LogicalType::kTimestamp:
      w.FieldBool(kTimeIsAdjustedToUtc, t.utc_adjusted);
      w.FieldStruct(kTimeUnit);
      WriteEmptyStruct(w, static_cast<int16_t>(t.unit));
      w.EndStruct();
      break;
    case LogicalType::kInteger:
      w.FieldByte(kIntBitWidth, t.bit_width);
      w.FieldBool(kIntIsSigned, t.is_signed);
      break;
    default:
      break;
  }
  w.EndStruct();
}

void WriteSchemaElement(CompactWriter& w, const SchemaElement& e) {
  w.BeginStruct();
  if (e.type) w.FieldI32(kSchemaType, static_cast<int32_t>(*e.type));
  if (e.type_length) w.FieldI32(kSchemaTypeLength, *e.type_length);
  if (e.repetition_type) w.FieldI32(kSchemaRepetitionType, static_cast<int32_t>(*e.repetition_type));
  w.FieldBinary(kSchemaName, e.name);
  if (e.num_children) w.FieldI32(kSchemaNumChildren, *e.num_children);
  if (e.converted_type) w.FieldI32(kSchemaConvertedType, static_cast<int32_t>(*e.converted_type));
  if (e.scale) w.FieldI32(kSchemaScale, *e.scale);
  if (e.precision) w.FieldI32(kSchemaPrecision, *e.precision);
  if (e.field_id) w.FieldI32(kSchemaFieldId, *e.field_id);
  if (e.logical_type && e.logical_type->kind != LogicalType::kNone) {
    w.FieldStruct(kSchemaLogicalType);
    WriteLogicalType(w, *e.logical_type);
    w.EndStruct();
  }
  w.EndStruct();
}

void WriteKeyValues(CompactWriter& w, int16_t id, const std::vector<KeyValue>& kvs) {
  if (kvs.empty()) return;
  w.FieldList(id, CompactType::kStruct, kvs.size());
  for (const KeyValue& kv : kvs) {
    w.BeginStruct();
    w.FieldBinary(kKeyValueKey, kv.key);
    if (kv.value) w.FieldBinary(kKeyValueValue, *kv.value);
    w.EndStruct();
  }
}

void WriteColumnMetaData(CompactWriter& w, const ColumnMetaData& m) {
  w.FieldI32(kColumnMetaDataType, static_cast<int32_t>(m.type));
  w.FieldList(kColumnMetaDataEncodings, CompactType::kI32, m.encodings.size());
  for (Encoding e : m.encodings) w.ElementI32(static_cast<int32_t>(e));
  w.FieldList(kColumnMetaDataPathInSchema, CompactType::kBinary, m.path_in_schema.size());
  for (const std::string& p : m.path_in_schema) w.ElementBinary(p);
  w.FieldI32(kColumnMetaDataCodec, static_cast<int32_t>(m.codec));
  w.FieldI64(kColumnMetaDataNumValues, m.num_values);
  w.FieldI64(kColumnMetaDataTotalUncompressedSize, m.total_uncompressed_size);
  w.FieldI64(kColumnMetaDataTotalCompressedSize, m.total_compressed_size);
  w.FieldI64(kColumnMetaDataDataPageOffset, m.data_page_offset);
  if (m.dictionary_page_offset) w.FieldI64(kColumnMetaDataDictionaryPageOffset, *m.dictionary_page_offset);
  if (m.statistics) {
    w.FieldStruct(kColumnMetaDataStatistics);
    WriteStatistics(w, *m.statistics);
    w.EndStruct();
  }
  if (!m.encoding_stats.empty()) {
    w.FieldList(kColumnMetaDataEncodingStats, CompactType::kStruct, m.encoding_stats.size());
    for (const PageEncodingStats& s : m.encoding_stats) {
      w.BeginStruct();
      w.FieldI32(kPageEncodingStatsPageType, static_cast<int32_t>(s.page_type));
      w.FieldI32(kPageEncodingStatsEncoding, static_cast<int32_t>(s.encoding));
      w.FieldI32(kPageEncodingStatsCount, s.count);
      w.EndStruct();
    }
  }
}

// ---------------------------------------------------------------- reading

Status WrongType(const CompactReader& r, const std::string& what, const char* name) {
  return Status::Corruption(
      StrCat(what, ": field ", name, " has the wrong Thrift type at byte ", r.position()));
}

// Calls on_field(type, id) for each field of a struct; on_field skips what it does not know.
template <typename F>
Status ReadStruct(CompactReader& r, F&& on_field) {
  RETURN_IF_ERROR(r.BeginStruct());
  while (true) {
    CompactType type;
    int16_t id;
    RETURN_IF_ERROR(r.NextField(&type, &id));
    if (type == CompactType::kStop) return Status::OK();
    RETURN_IF_ERROR(on_field(type, id));
  }
}

// Calls on_element() once per element of a list of `expected` elements.
template <typename F>
Status ReadList(CompactReader& r, CompactType field_type, CompactType expected, const std::string& what,
                const char* name, F&& on_element) {
  if (field_type != CompactType::kList) return WrongType(r, what, name);
  CompactType element;
  uint32_t n;
  RETURN_IF_ERROR(r.ReadListHeader(&element, &n));
  if (n > 0 && element != expected) return WrongType(r, what, name);
  for (uint32_t i = 0; i < n; ++i) RETURN_IF_ERROR(on_element());
  return Status::OK();
}

struct Parser {
  CompactReader& r;
  const std::string& what;

  Status I32(CompactType t, const char* name, int32_t* out) {
    if (t != CompactType::kI32) return WrongType(r, what, name);  // as parquet.thrift declares it
    ASSIGN_OR_RETURN(*out, r.ReadI32());
    return Status::OK();
  }
  template <typename E>
  Status Enum(CompactType t, const char* name, E* out) {
    int32_t v;
    RETURN_IF_ERROR(I32(t, name, &v));
    *out = static_cast<E>(v);
    return Status::OK();
  }
  template <typename T>
  Status OptI32(CompactType t, const char* name, std::optional<T>* out) {
    T v;
    if constexpr (std::is_same_v<T, int32_t>) {
      RETURN_IF_ERROR(I32(t, name, &v));
    } else {
      RETURN_IF_ERROR(Enum(t, name, &v));
    }
    *out = v;
    return Status::OK();
  }
  Status I64(CompactType t, const char* name, int64_t* out) {
    if (t != CompactType::kI64) return WrongType(r, what, name);
    ASSIGN_OR_RETURN(*out, r.ReadI64());
    return Status::OK();
  }
  Status OptI64(CompactType t, const char* name, std::optional<int64_t>* out) {
    int64_t v;
    RETURN_IF_ERROR(I64(t, name, &v));
    *out = v;
    return Status::OK();
  }
  Status Binary(CompactType t, const char* name, std::string* out) {
    if (t != CompactType::kBinary) return WrongType(r, what, name);
    ASSIGN_OR_RETURN(*out, r.ReadBinary());
    return Status::OK();
  }
  Status OptBinary(CompactType t, const char* name, std::optional<std::string>* out) {
    std::string v;
    RETURN_IF_ERROR(Binary(t, name, &v));
    *out = std::move(v);
    return Status::OK();
  }
  Status Bool(CompactType t, const char* name, bool* out) {
    if (t != CompactType::kBoolTrue && t != CompactType::kBoolFalse) return WrongType(r, what, name);
    *out = t == CompactType::kBoolTrue;
    return Status::OK();
  }
  Status Struct(CompactType t, const char* name) {
    return t == CompactType::kStruct ? Status::OK() : WrongType(r, what, name);
  }

  Status ParseStatistics(Statistics* s) {
    return ReadStruct(r, [&](CompactType t, int16_t id) -> Status {
      switch (id) {
        case kStatisticsNullCount:
          return OptI64(t, "null_count", &s->null_count);
        case kStatisticsDistinctCount:
          return OptI64(t, "distinct_count", &s->distinct_count);
        case kStatisticsMaxValue:
          return OptBinary(t, "max_value", &s->max_value);
        case kStatisticsMinValue:
          return OptBinary(t, "min_value", &s->min_value);
        default:
          return r.Skip(t);
      }
    });
  }

  Status ParseLogicalType(LogicalType* lt) {
    return ReadStruct(r, [&](CompactType t, int16_t id) -> Status {
      RETURN_IF_ERROR(Struct(t, "logicalType"));
      lt->kind = static_cast<LogicalType::Kind>(id);
      switch (id) {
        case LogicalType::kDecimal:
          return ReadStruct(r, [&](CompactType t2, int16_t id2) -> Status {
            if (id2 == kDecimalScale) return I32(t2, "scale", &lt->scale);
            if (id2 == kDecimalPrecision) return I32(t2, "precision", &lt->precision);
            return r.Skip(t2);
          });
        case LogicalType::kTime:
        case LogicalType::kTimestamp:
          return ReadStruct(r, [&](CompactType t2, int16_t id2) -> Status {
            if (id2 == kTimeIsAdjustedToUtc) return Bool(t2, "isAdjustedToUTC", &lt->utc_adjusted);
            if (id2 == kTimeUnit) {
              RETURN_IF_ERROR(Struct(t2, "unit"));
              return ReadStruct(r, [&](CompactType t3, int16_t id3) -> Status {
                lt->unit = static_cast<TimeUnit>(id3);
                return r.Skip(t3);
              });
            }
            return r.Skip(t2);
          });
        case LogicalType::kInteger:
          return ReadStruct(r, [&](CompactType t2, int16_t id2) -> Status {
            if (id2 == kIntBitWidth) {
              if (t2 != CompactType::kByte) return WrongType(r, what, "bitWidth");
              ASSIGN_OR_RETURN(lt->bit_width, r.ReadByte());
              return Status::OK();
            }
            if (id2 == kIntIsSigned) return Bool(t2, "isSigned", &lt->is_signed);
            return r.Skip(t2);
          });
        default:
          return r.Skip(t);
      }
    });
  }

  Status ParseSchemaElement(SchemaElement* e) {
    bool has_name = false;
    RETURN_IF_ERROR(ReadStruct(r, [&](CompactType t, int16_t id) -> Status {
      switch (id) {
        case kSchemaType:
          return OptI32(t, "type", &e->type);
        case kSchemaTypeLength:
          return OptI32(t, "type_length", &e->type_length);
        case kSchemaRepetitionType:
          return OptI32(t, "repetition_type", &e->repetition_type);
        case kSchemaName:
          has_name = true;
          return Binary(t, "name", &e->name);
        case kSchemaNumChildren:
          return OptI32(t, "num_children", &e->num_children);
        case kSchemaConvertedType:
          return OptI32(t, "converted_type", &e->converted_type);
        case kSchemaScale:
          return OptI32(t, "scale", &e->scale);
        case kSchemaPrecision:
          return OptI32(t, "precision", &e->precision);
        case kSchemaFieldId:
          return OptI32(t, "field_id", &e->field_id);
        case kSchemaLogicalType: {
          RETURN_IF_ERROR(Struct(t, "logicalType"));
          e->logical_type.emplace();
          return ParseLogicalType(&*e->logical_type);
        }
        default:
          return r.Skip(t);
      }
    }));
    if (!has_name) return Status::Corruption(StrCat(what, ": schema element without a name"));
    return Status::OK();
  }

  Status ParseKeyValue(KeyValue* kv) {
    return ReadStruct(r, [&](CompactType t, int16_t id) -> Status {
      if (id == kKeyValueKey) return Binary(t, "key", &kv->key);
      if (id == kKeyValueValue) return OptBinary(t, "value", &kv->value);
      return r.Skip(t);
    });
  }

  Status ParseColumnMetaData(ColumnMetaData* m) {
    return ReadStruct(r, [&](CompactType t, int16_t id) -> Status {
      switch (id) {
        case kColumnMetaDataType:
          return Enum(t, "type", &m->type);
        case kColumnMetaDataEncodings:
          return ReadList(r, t, CompactType::kI32, what, "encodings", [&]() -> Status {
            ASSIGN_OR_RETURN(int32_t e, r.ReadI32());
            m->encodings.push_back(static_cast<Encoding>(e));
            return Status::OK();
          });
        case kColumnMetaDataPathInSchema:
          return ReadList(r, t, CompactType::kBinary, what, "path_in_schema", [&]() -> Status {
            ASSIGN_OR_RETURN(std::string p, r.ReadBinary());
            m->path_in_schema.push_back(std::move(p));
            return Status::OK();
          });
        case kColumnMetaDataCodec:
          return Enum(t, "codec", &m->codec);
        case kColumnMetaDataNumValues:
          return I64(t, "num_values", &m->num_values);
        case kColumnMetaDataTotalUncompressedSize:
          return I64(t, "total_uncompressed_size", &m->total_uncompressed_size);
        case kColumnMetaDataTotalCompressedSize:
          return I64(t, "total_compressed_size", &m->total_compressed_size);
        case kColumnMetaDataDataPageOffset:
          return I64(t, "data_page_offset", &m->data_page_offset);
        case kColumnMetaDataDictionaryPageOffset:
          return OptI64(t, "dictionary_page_offset", &m->dictionary_page_offset);
        case kColumnMetaDataStatistics:
          RETURN_IF_ERROR(Struct(t, "statistics"));
          m->statistics.emplace();
          return ParseStatistics(&*m->statistics);
        case kColumnMetaDataEncodingStats:
          return ReadList(r, t, CompactType::kStruct, what, "encoding_stats", [&]() -> Status {
            PageEncodingStats s;
            RETURN_IF_ERROR(ReadStruct(r, [&](CompactType t2, int16_t id2) -> Status {
              if (id2 == kPageEncodingStatsPageType) return Enum(t2, "page_type", &s.page_type);
              if (id2 == kPageEncodingStatsEncoding) return Enum(t2, "encoding", &s.encoding);
              if (id2 == kPageEncodingStatsCount) return I32(t2, "count", &s.count);
              return r.Skip(t2);
            }));
            m->encoding_stats.push_back(s);
            return Status::OK();
          });
        default:
          return r.Skip(t);
      }
    });
  }

  Status ParseRowGroup(RowGroup* g) {
    return ReadStruct(r, [&](CompactType t, int16_t id) -> Status {
      switch (id) {
        case kRowGroupColumns:
          return ReadList(r, t, CompactType::kStruct, what, "columns", [&]() -> Status {
            ColumnChunk c;
            RETURN_IF_ERROR(ReadStruct(r, [&](CompactType t2, int16_t id2) -> Status {
              if (id2 == kColumnChunkFileOffset) return I64(t2, "file_offset", &c.file_offset);
              if (id2 == kColumnChunkMetaData) {
                RETURN_IF_ERROR(Struct(t2, "meta_data"));
                c.meta_data.emplace();
                return ParseColumnMetaData(&*c.meta_data);
              }
              return r.Skip(t2);
            }));
            g->columns.push_back(std::move(c));
            return Status::OK();
          });
        case kRowGroupTotalByteSize:
          return I64(t, "total_byte_size", &g->total_byte_size);
        case kRowGroupNumRows:
          return I64(t, "num_rows", &g->num_rows);
        case kRowGroupFileOffset:
          return OptI64(t, "file_offset", &g->file_offset);
        case kRowGroupTotalCompressedSize:
          return OptI64(t, "total_compressed_size", &g->total_compressed_size);
        default:
          return r.Skip(t);
      }
    });
  }
};

}  // namespace

std::string SerializeFileMetaData(const FileMetaData& m) {
  CompactWriter w;
  w.BeginStruct();
  w.FieldI32(kFileMetaDataVersion, m.version);
  w.FieldList(kFileMetaDataSchema, CompactType::kStruct, m.schema.size());
  for (const SchemaElement& e : m.schema) WriteSchemaElement(w, e);
  w.FieldI64(kFileMetaDataNumRows, m.num_rows);
  w.FieldList(kFileMetaDataRowGroups, CompactType::kStruct, m.row_groups.size());
  for (const RowGroup& g : m.row_groups) {
    w.BeginStruct();
    w.FieldList(kRowGroupColumns, CompactType::kStruct, g.columns.size());
    for (const ColumnChunk& c : g.columns) {
      w.BeginStruct();
      w.FieldI64(kColumnChunkFileOffset, c.file_offset);
      if (c.meta_data) {
        w.FieldStruct(kColumnChunkMetaData);
        WriteColumnMetaData(w, *c.meta_data);
        w.EndStruct();
      }
      w.EndStruct();
    }
    w.FieldI64(kRowGroupTotalByteSize, g.total_byte_size);
    w.FieldI64(kRowGroupNumRows, g.num_rows);
    if (g.file_offset) w.FieldI64(kRowGroupFileOffset, *g.file_offset);
    if (g.total_compressed_size) w.FieldI64(kRowGroupTotalCompressedSize, *g.total_compressed_size);
    w.EndStruct();
  }
  WriteKeyValues(w, kFileMetaDataKeyValueMetadata, m.key_value_metadata);
  if (m.created_by) w.FieldBinary(kFileMetaDataCreatedBy, *m.created_by);
  if (!m.column_orders.empty()) {
    w.FieldList(kFileMetaDataColumnOrders, CompactType::kStruct, m.column_orders.size());
    for (bool type_defined : m.column_orders) {
      w.BeginStruct();
      if (type_defined) WriteEmptyStruct(w, kColumnOrderTypeOrder);
      w.EndStruct();
    }
  }
  w.EndStruct();
  return w.Release();
}

size_t FooterChecksumValueAt(std::string_view footer) {
  constexpr std::string_view key = kFooterChecksumKey;
  // After the key: the value's field header (field 2 of KeyValue, one id
  // after the key's: delta 1, type BINARY) and its length, 16.
  constexpr std::string_view between("\x18\x10", 2);
  for (size_t at = footer.find(key); at != std::string_view::npos; at = footer.find(key, at + 1)) {
    const size_t value = at + key.size() + between.size();
    if (footer.substr(at + key.size(), between.size()) == between && footer.size() - value >= kFooterChecksumSize) {
      return value;
    }
  }
  return std::string_view::npos;
}

std::string SerializePageHeader(const PageHeader& h) {
  CompactWriter w;
  w.BeginStruct();
  w.FieldI32(kPageHeaderType, static_cast<int32_t>(h.type));
  w.FieldI32(kPageHeaderUncompressedPageSize, h.uncompressed_page_size);
  w.FieldI32(kPageHeaderCompressedPageSize, h.compressed_page_size);
  if (h.crc) w.FieldI32(kPageHeaderCrc, static_cast<int32_t>(*h.crc));
  if (h.data_page_header) {
    const DataPageHeader& d = *h.data_page_header;
    w.FieldStruct(kPageHeaderDataPageHeader);
    w.FieldI32(kDataPageNumValues, d.num_values);
    w.FieldI32(kDataPageEncoding, static_cast<int32_t>(d.encoding));
    w.FieldI32(kDataPageDefinitionLevelEncoding, static_cast<int32_t>(d.definition_level_encoding));
    w.FieldI32(kDataPageRepetitionLevelEncoding, static_cast<int32_t>(d.repetition_level_encoding));
    w.EndStruct();
  }
  if (h.dictionary_page_header) {
    const DictionaryPageHeader& d = *h.dictionary_page_header;
    w.FieldStruct(kPageHeaderDictionaryPageHeader);
    w.FieldI32(kDictionaryPageNumValues, d.num_values);
    w.FieldI32(kDictionaryPageEncoding, static_cast<int32_t>(d.encoding));
    if (d.is_sorted) w.FieldBool(kDictionaryPageIsSorted, *d.is_sorted);
    w.EndStruct();
  }
  w.EndStruct();
  return w.Release();
}

Result<FileMetaData> ParseFileMetaData(std::span<const uint8_t> data, const std::string& what) {
  CompactReader r(data, what);
  Parser p{r, what};
  FileMetaData m;
  bool has_schema = false;
  RETURN_IF_ERROR(ReadStruct(r, [&](CompactType t, int16_t id) -> Status {
    switch (id) {
      case kFileMetaDataVersion:
        return p.I32(t, "version", &m.version);
      case kFileMetaDataSchema:
        has_schema = true;
        return ReadList(r, t, CompactType::kStruct, what, "schema", [&]() -> Status {
          m.schema.emplace_back();
          return p.ParseSchemaElement(&m.schema.back());
        });
      case kFileMetaDataNumRows:
        return p.I64(t, "num_rows", &m.num_rows);
      case kFileMetaDataRowGroups:
        return ReadList(r, t, CompactType::kStruct, what, "row_groups", [&]() -> Status {
          m.row_groups.emplace_back();
          return p.ParseRowGroup(&m.row_groups.back());
        });
      case kFileMetaDataKeyValueMetadata:
        return ReadList(r, t, CompactType::kStruct, what, "key_value_metadata", [&]() -> Status {
          m.key_value_metadata.emplace_back();
          return p.ParseKeyValue(&m.key_value_metadata.back());
        });
      case kFileMetaDataCreatedBy:
        return p.OptBinary(t, "created_by", &m.created_by);
      case kFileMetaDataColumnOrders:
        return ReadList(r, t, CompactType::kStruct, what, "column_orders", [&]() -> Status {
          bool type_defined = false;
          RETURN_IF_ERROR(ReadStruct(r, [&](CompactType t2, int16_t id2) -> Status {
            if (id2 == kColumnOrderTypeOrder) type_defined = true;
            return r.Skip(t2);
          }));
          m.column_orders.push_back(type_defined);
          return Status::OK();
        });
      default:
        return r.Skip(t);
    }
  }));
  if (!has_schema || m.schema.empty()) return Status::Corruption(StrCat(what, ": footer has no schema"));
  return m;
}

Result<PageHeader> ParsePageHeader(std::span<const uint8_t> data, const std::string& what, size_t* size,
                                   bool exact) {
  CompactReader r(data, what);
  Parser p{r, what};
  PageHeader h;
  // The fields parquet.thrift declares required, as bits by field id: a
  // header without one is damaged, not defaulted.
  uint32_t seen = 0, data_seen = 0, dictionary_seen = 0;
  RETURN_IF_ERROR(ReadStruct(r, [&](CompactType t, int16_t id) -> Status {
    if (id > 0 && id < 32) seen |= 1u << id;
    switch (id) {
      case kPageHeaderType:
        return p.Enum(t, "type", &h.type);
      case kPageHeaderUncompressedPageSize:
        return p.I32(t, "uncompressed_page_size", &h.uncompressed_page_size);
      case kPageHeaderCompressedPageSize:
        return p.I32(t, "compressed_page_size", &h.compressed_page_size);
      case kPageHeaderCrc: {
        int32_t crc = 0;
        RETURN_IF_ERROR(p.I32(t, "crc", &crc));
        h.crc = static_cast<uint32_t>(crc);
        return Status::OK();
      }
      case kPageHeaderDataPageHeader: {
        RETURN_IF_ERROR(p.Struct(t, "data_page_header"));
        DataPageHeader& d = h.data_page_header.emplace();
        return ReadStruct(r, [&](CompactType t2, int16_t id2) -> Status {
          if (id2 > 0 && id2 < 32) data_seen |= 1u << id2;
          switch (id2) {
            case kDataPageNumValues:
              return p.I32(t2, "num_values", &d.num_values);
            case kDataPageEncoding:
              return p.Enum(t2, "encoding", &d.encoding);
            case kDataPageDefinitionLevelEncoding:
              return p.Enum(t2, "definition_level_encoding", &d.definition_level_encoding);
            case kDataPageRepetitionLevelEncoding:
              return p.Enum(t2, "repetition_level_encoding", &d.repetition_level_encoding);
            default:
              if (exact) return Status::Corruption(StrCat(what, ": page header field ", id, ".", id2, " unknown"));
              return r.Skip(t2);
          }
        });
      }
      case kPageHeaderDictionaryPageHeader: {
        RETURN_IF_ERROR(p.Struct(t, "dictionary_page_header"));
        DictionaryPageHeader& d = h.dictionary_page_header.emplace();
        return ReadStruct(r, [&](CompactType t2, int16_t id2) -> Status {
          if (id2 > 0 && id2 < 32) dictionary_seen |= 1u << id2;
          switch (id2) {
            case kDictionaryPageNumValues:
              return p.I32(t2, "num_values", &d.num_values);
            case kDictionaryPageEncoding:
              return p.Enum(t2, "encoding", &d.encoding);
            case kDictionaryPageIsSorted: {
              bool sorted = false;
              RETURN_IF_ERROR(p.Bool(t2, "is_sorted", &sorted));
              d.is_sorted = sorted;
              return Status::OK();
            }
            default:
              if (exact) return Status::Corruption(StrCat(what, ": page header field ", id, ".", id2, " unknown"));
              return r.Skip(t2);
          }
        });
      }
      default:
        if (exact) return Status::Corruption(StrCat(what, ": page header field ", id, " unknown"));
        return r.Skip(t);
    }
  }));
  auto has = [](uint32_t seen_fields, std::initializer_list<int16_t> ids) {
    for (int16_t id : ids) {
      if ((seen_fields & (1u << id)) == 0) return false;
    }
    return true;
  };
  if (!has(seen, {kPageHeaderType, kPageHeaderUncompressedPageSize, kPageHeaderCompressedPageSize}) ||
      (h.data_page_header && !has(data_seen, {kDataPageNumValues, kDataPageEncoding,
                                              kDataPageDefinitionLevelEncoding, kDataPageRepetitionLevelEncoding})) ||
      (h.dictionary_page_header && !has(dictionary_seen, {kDictionaryPageNumValues, kDictionaryPageEncoding}))) {
    return Status::Corruption(StrCat(what, ": page header without a required field"));
  }
  if (exact && !h.crc) return Status::Corruption(StrCat(what, ": page header without its crc"));
  *size = r.position();
  return h;
}

}  // namespace cqlite::parquet
