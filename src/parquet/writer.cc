#include "parquet/writer.h"

#include <cstring>

#include "parquet/column_writer.h"
#include "parquet/encoding.h"
#include "util/strings.h"

namespace cqlite::parquet {

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
  if (options.page_size == 0) options.page_size = 1;
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

Value::Kind KindFor(PhysicalType type) {
  switch (type) {
    case PhysicalType::kBoolean:
      return Value::Kind::kBool;
    case PhysicalType::kInt32:
      return Value::Kind::kInt32;
    case PhysicalType::kInt64:
      return Value::Kind::kInt64;
    case PhysicalType::kFloat:
      return Value::Kind::kFloat;
    case PhysicalType::kDouble:
      return Value::Kind::kDouble;
    case PhysicalType::kByteArray:
    case PhysicalType::kFixedLenByteArray:
      return Value::Kind::kBytes;
    default:
      return Value::Kind::kNull;
  }
}

// A quick yes/no version of Validate (no messages): rows that pass it are
// not validated again. False sends the row through Validate, which says why
// (or, for the cases this does not decide, accepts it).
bool Fits(const SchemaNode& node, const Value& value) {
  const Field& f = *node.field;
  if (value.is_null()) return f.optional();
  switch (f.kind) {
    case Field::Kind::kPrimitive:
      if (value.kind() != KindFor(f.physical_type)) return false;
      if (f.physical_type == PhysicalType::kFixedLenByteArray)
        return value.bytes().size() == static_cast<size_t>(f.type_length);
      if (f.physical_type == PhysicalType::kByteArray) return value.bytes().size() <= 0x7fffffffu;
      return true;
    case Field::Kind::kStruct:
      if (value.kind() != Value::Kind::kStruct || value.fields().size() != node.children.size()) return false;
      for (size_t i = 0; i < node.children.size(); ++i) {
        if (!Fits(node.children[i], value.fields()[i])) return false;
      }
      return true;
    case Field::Kind::kList:
      if (value.kind() != Value::Kind::kList) return false;
      for (const Value& e : value.elements()) {
        if (!Fits(node.children[0], e)) return false;
      }
      return true;
    case Field::Kind::kMap:
      if (value.kind() != Value::Kind::kMap) return false;
      for (size_t i = 0; i < value.map_size(); ++i) {
        if (!Fits(node.children[0], value.map_key(i)) || !Fits(node.children[1], value.map_value(i))) return false;
      }
      return true;
  }
  return false;
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

void ParquetWriter::AddAbsent(const SchemaNode& node, int rep_level, int def_level) {
  for (int i = node.leaf_begin; i < node.leaf_end; ++i) leaves_[i]->Add(rep_level, def_level, nullptr);
}

void ParquetWriter::Shred(const SchemaNode& node, const Value& value, int rep_level) {
  if (value.is_null()) {
    AddAbsent(node, rep_level, node.def_level - 1);
    return;
  }
  switch (node.field->kind) {
    case Field::Kind::kPrimitive:
      leaves_[node.leaf_begin]->Add(rep_level, node.def_level, &value);
      return;
    case Field::Kind::kStruct:
      for (size_t i = 0; i < node.children.size(); ++i) Shred(node.children[i], value.fields()[i], rep_level);
      return;
    case Field::Kind::kList: {
      const std::vector<Value>& elements = value.elements();
      if (elements.empty()) {
        AddAbsent(node, rep_level, node.def_level);  // the list exists, its repeated group does not
        return;
      }
      for (size_t i = 0; i < elements.size(); ++i) {
        Shred(node.children[0], elements[i], i == 0 ? rep_level : node.rep_level);
      }
      return;
    }
    case Field::Kind::kMap: {
      if (value.map_size() == 0) {
        AddAbsent(node, rep_level, node.def_level);
        return;
      }
      for (size_t i = 0; i < value.map_size(); ++i) {
        int rep = i == 0 ? rep_level : node.rep_level;
        Shred(node.children[0], value.map_key(i), rep);
        Shred(node.children[1], value.map_value(i), rep);
      }
      return;
    }
  }
}

Status ParquetWriter::WriteRow(const Value& row) {
  if (closed_) return Status::InvalidArgument(StrCat(path_, ": WriteRow after Close"));
  if (row.kind() != Value::Kind::kStruct || row.fields().size() != plan_.roots.size()) {
    return Status::InvalidArgument(
        StrCat(path_, ": a row is a struct of ", plan_.roots.size(), " values, not ", row.ToString()));
  }
  for (size_t i = 0; i < plan_.roots.size(); ++i) {
    if (Fits(plan_.roots[i], row.fields()[i])) continue;
    std::vector<std::string_view> path(1, schema_.fields[i].name);
    RETURN_IF_ERROR(Validate(plan_.roots[i], row.fields()[i], &path));
  }
  for (size_t i = 0; i < plan_.roots.size(); ++i) Shred(plan_.roots[i], row.fields()[i], 0);
  size_t buffered = 0;
  for (auto& leaf : leaves_) {
    RETURN_IF_ERROR(leaf->EndRecord(&buffered));
  }
  ++num_rows_;
  ++row_group_rows_;
  if (buffered >= options_.row_group_size ||
      (options_.row_group_rows > 0 && row_group_rows_ >= options_.row_group_rows)) {
    RETURN_IF_ERROR(FlushRowGroup());
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
  metadata_.created_by = options_.created_by;
  metadata_.column_orders.assign(plan_.columns.size(), true);
  std::string footer = SerializeFileMetaData(metadata_);
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
