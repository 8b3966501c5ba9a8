#include "parquet/writer.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "io/checksum.h"
#include "io/codec.h"
#include "parquet/column_writer.h"
#include "parquet/encoding.h"
#include "parquet/shred.h"
#include "util/strings.h"

namespace cqlite::parquet {

namespace {

std::string DottedPath(const std::vector<std::string>& path) {
  std::string out;
  for (const std::string& p : path) out += (out.empty() ? "" : ".") + p;
  return out;
}

}  // namespace

ParquetWriter::ParquetWriter(std::string path, Schema schema, WriterOptions options,
                             std::unique_ptr<WritableFile> file)
    : path_(std::move(path)),
      schema_(std::move(schema)),
      options_(std::move(options)),
      file_(std::move(file)) {
  // plan_ points into schema_, which never changes after this.
  plan_ = BuildLevelPlan(schema_);
  for (const ColumnDescriptor& column : plan_.columns) {
    leaves_.push_back(std::make_unique<LeafColumnWriter>(column, options_));
  }
}

ParquetWriter::~ParquetWriter() = default;

Result<std::unique_ptr<ParquetWriter>> ParquetWriter::Open(FileSystem& fs, const std::string& path,
                                                           Schema schema, WriterOptions options) {
  RETURN_IF_ERROR(ValidateSchema(schema));
  if (options.compression != CompressionCodec::kUncompressed &&
      options.compression != CompressionCodec::kSnappy && options.compression != CompressionCodec::kZstd) {
    return Status::NotSupported(StrCat(path, ": Parquet compression codec ",
                                       static_cast<int>(options.compression),
                                       " (use UNCOMPRESSED, SNAPPY or ZSTD)"));
  }
  if (options.compression_level != 0 &&
      (options.compression != CompressionCodec::kZstd || options.compression_level < 1 ||
       options.compression_level > kMaxZstdLevel)) {
    return Status::InvalidArgument(StrCat(path, ": compression level ", options.compression_level,
                                          " (a level is for ZSTD only, 1 to ", kMaxZstdLevel, ")"));
  }
  if (options.page_size == 0) options.page_size = 1;
  const LevelPlan plan = BuildLevelPlan(schema);
  for (const auto& [dotted, encoding] : options.column_encodings) {
    const ColumnDescriptor* leaf = nullptr;
    for (const ColumnDescriptor& column : plan.columns) {
      if (DottedPath(column.path) == dotted) leaf = &column;
    }
    if (leaf == nullptr) {
      return Status::InvalidArgument(StrCat(path, ": an encoding for ", dotted, ", which is no leaf column"));
    }
    const PhysicalType type = leaf->field->physical_type;
    const bool fits = encoding == Encoding::kDeltaBinaryPacked
                          ? type == PhysicalType::kInt32 || type == PhysicalType::kInt64
                          : (encoding == Encoding::kDeltaLengthByteArray || encoding == Encoding::kDeltaByteArray) &&
                                type == PhysicalType::kByteArray;
    if (!fits) {
      return Status::InvalidArgument(StrCat(path, ": column ", dotted, " (", PhysicalTypeName(type),
                                            ") cannot take value encoding ", static_cast<int>(encoding)));
    }
  }
  ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file, fs.OpenForWrite(path));
  RETURN_IF_ERROR(file->Append(std::string_view(kMagic, kMagicSize)));
  std::unique_ptr<ParquetWriter> writer(new ParquetWriter(path, std::move(schema), std::move(options),
                                                          std::move(file)));  // private constructor
  writer->offset_ = kMagicSize;
  return writer;
}

namespace {

std::string JoinPath(const std::vector<std::string_view>& path) {
  std::string out;
  for (std::string_view p : path) {
    if (!out.empty() && p != "[]") out += '.';
    out += p;
  }
  return out;
}

}  // namespace

// `path` is the field path so far; messages are built only on error, since
// this runs for every value written.
Status ParquetWriter::Validate(const SchemaNode& node, const Value& value,
                               std::vector<std::string_view>* path) const {
  const Field& f = *node.field;
  if (value.is_null()) {
    if (f.optional()) return Status::OK();
    return Status::InvalidArgument(
        StrCat(path_, ": field ", JoinPath(*path), " is required but the row has null"));
  }
  auto wrong_kind = [&](const char* want) {
    return Status::InvalidArgument(
        StrCat(path_, ": field ", JoinPath(*path), " needs a ", want, ", not ", value.ToString()));
  };
  auto child = [&](const SchemaNode& n, const Value& v, std::string_view name) {
    path->push_back(name);
    Status st = Validate(n, v, path);
    path->pop_back();
    return st;
  };
  switch (f.kind) {
    case Field::Kind::kPrimitive: {
      Status st = CheckValueKind(f, value);
      if (!st.ok()) return st.WithContext(StrCat(path_, ": field ", JoinPath(*path)));
      return Status::OK();
    }
    case Field::Kind::kStruct:
      if (value.kind() != Value::Kind::kStruct) return wrong_kind("struct");
      if (value.fields().size() != node.children.size()) {
        return Status::InvalidArgument(StrCat(path_, ": struct ", JoinPath(*path), " has ",
                                              node.children.size(), " fields, the value ",
                                              value.fields().size()));
      }
      for (size_t i = 0; i < node.children.size(); ++i) {
        RETURN_IF_ERROR(child(node.children[i], value.fields()[i], f.children[i].name));
      }
      return Status::OK();
    case Field::Kind::kList:
      if (value.kind() != Value::Kind::kList) return wrong_kind("list");
      for (const Value& e : value.elements()) RETURN_IF_ERROR(child(node.children[0], e, "[]"));
      return Status::OK();
    case Field::Kind::kMap:
      if (value.kind() != Value::Kind::kMap) return wrong_kind("map");
      for (size_t i = 0; i < value.map_size(); ++i) {
        RETURN_IF_ERROR(child(node.children[0], value.map_key(i), "key"));
        RETURN_IF_ERROR(child(node.children[1], value.map_value(i), "value"));
      }
      return Status::OK();
  }
  return Status::OK();
}

Status ParquetWriter::WriteRow(const Value& row) {
  if (closed_) return Status::InvalidArgument(StrCat(path_, ": WriteRow after Close"));
  if (row.kind() != Value::Kind::kStruct || row.fields().size() != plan_.roots.size()) {
    return Status::InvalidArgument(
        StrCat(path_, ": a row is a struct of ", plan_.roots.size(), " values, not ", row.ToString()));
  }
  for (size_t i = 0; i < plan_.roots.size(); ++i) {
    if (ValueFits(plan_.roots[i], row.fields()[i])) continue;
    std::vector<std::string_view> path(1, schema_.fields[i].name);
    RETURN_IF_ERROR(Validate(plan_.roots[i], row.fields()[i], &path));
  }
  auto emit = [this](int leaf, int rep_level, int def_level, const Value* value) {
    leaves_[leaf]->Add(rep_level, def_level, value);
  };
  for (size_t i = 0; i < plan_.roots.size(); ++i) ShredValue(plan_.roots[i], row.fields()[i], 0, emit);
  size_t buffered = 0;
  for (auto& leaf : leaves_) {
    RETURN_IF_ERROR(leaf->EndRecord(&buffered));
  }
  return EndRows(1, buffered);
}

Status ParquetWriter::EndRows(int64_t rows, size_t buffered) {
  num_rows_ += rows;
  row_group_rows_ += rows;
  if (buffered >= options_.row_group_size ||
      (options_.row_group_rows > 0 && row_group_rows_ >= options_.row_group_rows)) {
    RETURN_IF_ERROR(FlushRowGroup());
  }
  return Status::OK();
}

Status ParquetWriter::CheckBatch(const RowBatch& batch) const {
  auto bad = [&](int leaf, std::string_view what) {
    return Status::InvalidArgument(
        StrCat(path_, ": batch column ", leaf, " (", DottedPath(plan_.columns[leaf].path), "): ", what));
  };
  if (batch.num_columns() != static_cast<int>(plan_.columns.size())) {
    return Status::InvalidArgument(StrCat(path_, ": the batch has ", batch.num_columns(),
                                          " leaf columns, the schema ", plan_.columns.size()));
  }
  if (batch.num_rows() < 0)
    return Status::InvalidArgument(StrCat(path_, ": the batch has a negative row count"));
  const uint64_t rows = static_cast<uint64_t>(batch.num_rows());
  for (int leaf = 0; leaf < batch.num_columns(); ++leaf) {
    const ColumnDescriptor& desc = plan_.columns[leaf];
    const ColumnBatch& c = batch.column(leaf);
    if (c.physical_type() != desc.field->physical_type || c.max_def_level() != desc.max_def_level ||
        c.max_rep_level() != desc.max_rep_level) {
      return bad(leaf, "its type or levels differ from the schema's");
    }
    const size_t n = c.num_levels();
    if ((desc.max_def_level > 0 && c.def_levels().size() != n) ||
        (desc.max_rep_level > 0 && c.rep_levels().size() != n)) {
      return bad(leaf, "level counts disagree");
    }
    uint64_t present = n;
    if (desc.max_def_level > 0) {
      present = 0;
      uint32_t out_of_range = 0;
      const int16_t max_def = static_cast<int16_t>(desc.max_def_level);
      for (int16_t d : c.def_levels()) {
        present += d == max_def;
        out_of_range |= static_cast<uint16_t>(d) > static_cast<uint16_t>(max_def);
      }
      if (out_of_range) return bad(leaf, "a definition level is out of range");
    }
    uint64_t records = n;
    if (desc.max_rep_level > 0) {
      if (n > 0 && c.rep_levels()[0] != 0) return bad(leaf, "the first repetition level is not 0");
      records = 0;
      uint32_t out_of_range = 0;
      const int16_t max_rep = static_cast<int16_t>(desc.max_rep_level);
      for (int16_t r : c.rep_levels()) {
        records += r == 0;
        out_of_range |= static_cast<uint16_t>(r) > static_cast<uint16_t>(max_rep);
      }
      if (out_of_range) return bad(leaf, "a repetition level is out of range");
    }
    if (records != rows) return bad(leaf, StrCat("holds ", records, " rows, the batch ", rows));
    if (c.num_values() != present) {
      return bad(leaf, StrCat("has ", c.num_values(), " values for ", present, " present levels"));
    }
    const PhysicalType type = desc.field->physical_type;
    if (type == PhysicalType::kByteArray || type == PhysicalType::kFixedLenByteArray) {
      const std::span<const uint64_t> offsets = c.offsets();
      const uint64_t want = type == PhysicalType::kFixedLenByteArray ? desc.field->type_length : 0;
      for (size_t i = 0; i + 1 < offsets.size(); ++i) {
        const uint64_t size = offsets[i + 1] - offsets[i];
        if (offsets[i + 1] < offsets[i] || offsets[i + 1] > c.bytes().size())
          return bad(leaf, "bad value offsets");
        if (type == PhysicalType::kFixedLenByteArray ? size != want : size > 0x7fffffffu) {
          return bad(leaf, StrCat("value ", i, " has ", size, " bytes"));
        }
      }
    }
  }
  return Status::OK();
}

Status ParquetWriter::WriteBatch(const RowBatch& batch) {
  if (closed_) return Status::InvalidArgument(StrCat(path_, ": WriteBatch after Close"));
  RETURN_IF_ERROR(CheckBatch(batch));
  std::vector<LeafColumnWriter::BatchCursor> cursors(leaves_.size());
  for (int64_t done = 0; done < batch.num_rows();) {
    int64_t rows = std::min(batch.num_rows() - done, kBatchSliceRows);
    if (options_.row_group_rows > 0) rows = std::min(rows, options_.row_group_rows - row_group_rows_);
    size_t buffered = 0;
    for (size_t i = 0; i < leaves_.size(); ++i) {
      RETURN_IF_ERROR(leaves_[i]->AddBatch(batch.column(static_cast<int>(i)), &cursors[i], rows));
      buffered += leaves_[i]->BufferedBytes();
    }
    RETURN_IF_ERROR(EndRows(rows, buffered));
    done += rows;
  }
  return Status::OK();
}

Status ParquetWriter::FlushRowGroup() {
  if (row_group_rows_ == 0) return Status::OK();
  RowGroup group;
  group.file_offset = offset_;
  group.num_rows = row_group_rows_;
  int64_t compressed = 0;
  for (auto& leaf : leaves_) {
    ColumnChunk chunk;
    RETURN_IF_ERROR(leaf->FlushChunk(*file_, &offset_, &chunk).WithContext(path_));
    group.total_byte_size += chunk.meta_data->total_uncompressed_size;
    compressed += chunk.meta_data->total_compressed_size;
    group.columns.push_back(std::move(chunk));
  }
  group.total_compressed_size = compressed;
  metadata_.row_groups.push_back(std::move(group));
  row_group_rows_ = 0;
  return Status::OK();
}

Result<WriteResult> ParquetWriter::Close() {
  if (closed_) return Status::InvalidArgument(StrCat(path_, ": Close called twice"));
  RETURN_IF_ERROR(FlushRowGroup());
  closed_ = true;
  metadata_.version = 1;
  metadata_.schema = ToSchemaElements(schema_);
  metadata_.num_rows = num_rows_;
  metadata_.key_value_metadata = options_.key_value_metadata;
  metadata_.key_value_metadata.push_back({kFooterChecksumKey, std::string(kFooterChecksumPlaceholder)});
  metadata_.created_by = options_.created_by;
  metadata_.column_orders.assign(plan_.columns.size(), true);
  std::string footer = SerializeFileMetaData(metadata_);
  const size_t checksum_at = FooterChecksumValueAt(footer);
  if (checksum_at == std::string::npos) return Status::InvalidArgument(StrCat(path_, ": footer checksum not placed"));
  const uint32_t crc = Crc32(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(footer.data()), footer.size()));
  char hex[kFooterChecksumSize + 1];
  std::snprintf(hex, sizeof hex, "%08x%08x", crc, static_cast<uint32_t>(footer.size()));
  footer.replace(checksum_at, kFooterChecksumSize, hex, kFooterChecksumSize);
  uint32_t footer_size = static_cast<uint32_t>(footer.size());
  char size_bytes[4];
  std::memcpy(size_bytes, &footer_size, 4);
  footer.append(size_bytes, 4);
  footer.append(kMagic, kMagicSize);
  RETURN_IF_ERROR(file_->Append(footer));
  RETURN_IF_ERROR(file_->Close());
  WriteResult result;
  result.file_size = static_cast<uint64_t>(offset_) + footer.size();
  result.num_rows = num_rows_;
  result.num_row_groups = static_cast<int>(metadata_.row_groups.size());
  for (auto& leaf : leaves_) result.columns.push_back(leaf->Metrics());
  return result;
}

}  // namespace cqlite::parquet
