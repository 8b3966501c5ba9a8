#include "parquet/reader.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>

#include "io/checksum.h"
#include "io/codec.h"
#include "parquet/encoding.h"
#include "util/strings.h"

namespace cqlite::parquet {

namespace {

constexpr uint32_t kMaxFooterSize = 256u << 20;
// Limits that keep a corrupt header from making us allocate without bound.
// CQLite's pages are far smaller (page_size, default 1 MiB).
constexpr int32_t kMaxPageSize = 1 << 30;
constexpr int32_t kMaxPageValues = 1 << 26;

}  // namespace

Result<std::unique_ptr<ParquetReader>> ParquetReader::Open(FileSystem& fs, const std::string& path) {
  ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file, fs.OpenForRead(path));
  uint64_t size = file->Size();
  if (size < 2 * kMagicSize + 4) {
    return Status::Corruption(
        StrCat(path, ": ends at byte ", size, ", too short for a Parquet file (truncated or not Parquet)"));
  }
  uint8_t head[4];
  RETURN_IF_ERROR(file->ReadExactly(0, head));
  uint8_t tail[8];
  RETURN_IF_ERROR(file->ReadExactly(size - 8, tail));
  if (std::memcmp(head, kMagic, 4) != 0 || std::memcmp(tail + 4, kMagic, 4) != 0) {
    const bool head_ok = std::memcmp(head, kMagic, 4) == 0;
    return Status::Corruption(StrCat(path, ": no PAR1 magic at byte ", head_ok ? size - 4 : 0,
                                     " (truncated or not Parquet)"));
  }
  uint32_t footer_size;
  std::memcpy(&footer_size, tail, 4);
  if (footer_size == 0 || footer_size > kMaxFooterSize || footer_size > size - 2 * kMagicSize - 4) {
    return Status::Corruption(StrCat(path, ": footer length ", footer_size, " at byte ", size - 8,
                                     " does not fit a file of ", size, " bytes"));
  }
  uint64_t footer_offset = size - 8 - footer_size;
  std::vector<uint8_t> footer(footer_size);
  RETURN_IF_ERROR(file->ReadExactly(footer_offset, footer));
  std::unique_ptr<ParquetReader> reader(new ParquetReader(path, std::move(file)));  // private constructor
  ASSIGN_OR_RETURN(reader->metadata_,
                   ParseFileMetaData(footer, StrCat(path, " footer at byte ", footer_offset)));
  RETURN_IF_ERROR(reader->VerifyFooterChecksum(footer, footer_offset));
  ASSIGN_OR_RETURN(reader->schema_, FromSchemaElements(reader->metadata_.schema, path));
  reader->plan_ = BuildLevelPlan(reader->schema_);
  int64_t rows = 0;
  for (const RowGroup& group : reader->metadata_.row_groups) {
    if (group.columns.size() != reader->plan_.columns.size()) {
      return Status::Corruption(StrCat(path, ": a row group has ", group.columns.size(),
                                       " columns, the schema ", reader->plan_.columns.size()));
    }
    for (const ColumnChunk& c : group.columns) {
      if (!c.meta_data) return Status::NotSupported(StrCat(path, ": column chunk without inline metadata"));
    }
    if (group.num_rows < 0) return Status::Corruption(StrCat(path, ": negative row count"));
    rows += group.num_rows;
  }
  if (rows != reader->metadata_.num_rows) {
    return Status::Corruption(
        StrCat(path, ": row groups hold ", rows, " rows, the footer says ", reader->metadata_.num_rows));
  }
  return reader;
}

Status ParquetReader::VerifyFooterChecksum(std::vector<uint8_t>& footer, uint64_t footer_offset) {
  auto& entries = metadata_.key_value_metadata;
  auto entry = std::find_if(entries.begin(), entries.end(),
                            [](const KeyValue& kv) { return kv.key == kFooterChecksumKey; });
  auto damaged = [&](std::string_view why) {
    return Status::Corruption(StrCat(path_, " footer at byte ", footer_offset, ": ", why));
  };
  std::string_view bytes(reinterpret_cast<const char*>(footer.data()), footer.size());
  // From 0.2.0 on, every file CQLite writes has the entry.
  int major = 0, minor = 0;
  const std::string& by = metadata_.created_by ? *metadata_.created_by : std::string();
  const bool checksummed_writer =
      std::sscanf(by.c_str(), "cqlite version %d.%d", &major, &minor) == 2 && (major > 0 || minor >= 2);
  if (entry == entries.end()) {
    // Another writer's file, or one of a CQLite before 0.2.0. A file that
    // says it is of a later one, or has the key's bytes somewhere, without
    // the entry is damaged.
    if (checksummed_writer || bytes.find(kFooterChecksumKey) != std::string_view::npos) {
      return damaged(StrCat("the ", kFooterChecksumKey, " entry CQLite writes is missing or damaged"));
    }
    return Status::OK();
  }
  const size_t at = FooterChecksumValueAt(bytes);
  uint32_t recorded = 0, length = 0;
  char canonical[kFooterChecksumSize + 1] = {};
  if (at == std::string_view::npos || !entry->value || entry->value->size() != kFooterChecksumSize ||
      std::sscanf(entry->value->c_str(), "%8x%8x", &recorded, &length) != 2 ||
      (std::snprintf(canonical, sizeof canonical, "%08x%08x", recorded, length), *entry->value != canonical) ||
      bytes.substr(at, kFooterChecksumSize) != *entry->value) {
    return damaged(StrCat("its ", kFooterChecksumKey, " entry is malformed"));
  }
  if (length != footer.size()) {
    if (checksummed_writer) return damaged(StrCat("its ", kFooterChecksumKey, " entry gives another length"));
    // Another writer kept the entry of a file it read in a file of its own.
    entries.erase(entry);
    return Status::OK();
  }
  std::memcpy(footer.data() + at, kFooterChecksumPlaceholder, kFooterChecksumSize);
  const uint32_t actual = Crc32(footer);
  if (actual != recorded) {
    return damaged(StrCat("its ", footer.size(), " bytes do not match the CRC-32 it records (", kFooterChecksumKey,
                          ")"));
  }
  entries.erase(entry);  // the writer's own bookkeeping, not the file's metadata
  checked_pages_ = true;
  return Status::OK();
}

Status ParquetReader::ReadPages(const ColumnChunk& chunk, const ColumnDescriptor& column, DecodedColumn* levels,
                               const std::function<Status(const PageValues&)>& visit) {
  const ColumnMetaData& m = *chunk.meta_data;
  const Field& field = *column.field;
  std::string what = StrCat(path_, " column ", column.path.back());
  if (m.type != field.physical_type)
    return Status::Corruption(StrCat(what, ": chunk type differs from the schema"));
  const Codec* codec = nullptr;
  switch (m.codec) {
    case CompressionCodec::kUncompressed:
      codec = &GetCodec(CodecKind::kNone);
      break;
    case CompressionCodec::kSnappy:
      codec = &GetCodec(CodecKind::kSnappy);
      break;
    case CompressionCodec::kZstd:
      codec = &GetCodec(CodecKind::kZstd);
      break;
    default:
      return Status::NotSupported(StrCat(what, ": compression codec ", static_cast<int>(m.codec)));
  }
  int64_t start = m.dictionary_page_offset ? *m.dictionary_page_offset : m.data_page_offset;
  if (start < 0 || m.total_compressed_size < 0 || static_cast<uint64_t>(start) > file_->Size() ||
      static_cast<uint64_t>(m.total_compressed_size) > file_->Size() - start) {
    return Status::Corruption(
        StrCat(what, ": chunk at ", start, " size ", m.total_compressed_size, " lies outside the file"));
  }
  std::vector<uint8_t> data(static_cast<size_t>(m.total_compressed_size));
  if (!data.empty()) RETURN_IF_ERROR(file_->ReadExactly(static_cast<uint64_t>(start), data));

  bool has_dictionary = false;
  size_t pos = 0;
  int64_t values_read = 0;
  UninitializedVector<uint8_t> page;  // overwritten whole by each page's decompression
  while (values_read < m.num_values) {
    if (pos >= data.size())
      return Status::Corruption(StrCat(what, ": chunk ends after ", values_read, " values"));
    size_t header_size = 0;
    std::string page_what = StrCat(what, " page at byte ", start + static_cast<int64_t>(pos));
    ASSIGN_OR_RETURN(PageHeader header,
                     ParsePageHeader(std::span<const uint8_t>(data).subspan(pos), page_what, &header_size,
                                     checked_pages_));
    pos += header_size;
    if (header.compressed_page_size < 0 || header.uncompressed_page_size < 0 ||
        header.uncompressed_page_size > kMaxPageSize ||
        static_cast<size_t>(header.compressed_page_size) > data.size() - pos ||
        (m.codec == CompressionCodec::kUncompressed &&
         header.compressed_page_size != header.uncompressed_page_size)) {
      return Status::Corruption(StrCat(page_what, ": bad page size"));
    }
    std::span<const uint8_t> compressed(data.data() + pos, static_cast<size_t>(header.compressed_page_size));
    if (header.crc && Crc32(compressed) != *header.crc) {
      return Status::Corruption(StrCat(page_what, ": the page's ", compressed.size(),
                                       " bytes do not match the CRC-32 in its header"));
    }
    pos += static_cast<size_t>(header.compressed_page_size);
    page.resize(static_cast<size_t>(header.uncompressed_page_size));
    ASSIGN_OR_RETURN(size_t n, codec->Decompress(compressed, page));
    if (n != page.size())
      return Status::Corruption(StrCat(page_what, ": page decompresses to the wrong size"));

    if (header.type == PageType::kDictionaryPage) {
      if (!header.dictionary_page_header || has_dictionary) {
        return Status::Corruption(StrCat(page_what, ": unexpected dictionary page"));
      }
      const DictionaryPageHeader& d = *header.dictionary_page_header;
      // PLAIN_DICTIONARY is PLAIN by its older name, which CQLite never writes.
      if (checked_pages_ && d.encoding == Encoding::kPlainDictionary) {
        return Status::Corruption(StrCat(page_what, ": dictionary encoding PLAIN_DICTIONARY in a file of CQLite's"));
      }
      if (d.encoding != Encoding::kPlain && d.encoding != Encoding::kPlainDictionary) {
        return Status::NotSupported(
            StrCat(page_what, ": dictionary encoding ", static_cast<int>(d.encoding)));
      }
      if (d.num_values < 0 || static_cast<size_t>(d.num_values) > page.size()) {
        return Status::Corruption(StrCat(page_what, ": bad dictionary size ", d.num_values));
      }
      RETURN_IF_ERROR(visit({true, Encoding::kPlain, page, static_cast<size_t>(d.num_values), page_what}));
      has_dictionary = true;
      continue;
    }
    if (header.type != PageType::kDataPage || !header.data_page_header) {
      return Status::NotSupported(StrCat(page_what, ": page type ", static_cast<int>(header.type)));
    }
    const DataPageHeader& d = *header.data_page_header;
    // A level whose maximum is 0 is not in the page, whatever encoding the
    // header names for it: parquet-java names BIT_PACKED there. CQLite
    // names RLE for both.
    auto levels_readable = [&](Encoding encoding, int max_level) {
      return encoding == Encoding::kRle || (max_level == 0 && !checked_pages_);
    };
    if (!levels_readable(d.definition_level_encoding, column.max_def_level) ||
        !levels_readable(d.repetition_level_encoding, column.max_rep_level)) {
      std::string levels = StrCat(page_what, ": level encodings ", static_cast<int>(d.definition_level_encoding),
                                  " and ", static_cast<int>(d.repetition_level_encoding));
      if (checked_pages_) return Status::Corruption(StrCat(levels, " in a file of CQLite's, which writes RLE"));
      return Status::NotSupported(StrCat(levels, " (RLE is read)"));
    }
    if (d.num_values < 0 || d.num_values > kMaxPageValues || d.num_values > m.num_values - values_read) {
      return Status::Corruption(StrCat(page_what, ": bad value count ", d.num_values));
    }
    size_t count = static_cast<size_t>(d.num_values);
    size_t ppos = 0;
    auto read_levels = [&](int max_level, std::vector<uint32_t>* out) -> Status {
      if (max_level == 0) {
        out->insert(out->end(), count, 0);
        return Status::OK();
      }
      if (page.size() - ppos < 4) return Status::Corruption(StrCat(page_what, ": truncated levels"));
      uint32_t size;
      std::memcpy(&size, page.data() + ppos, 4);
      ppos += 4;
      if (size > page.size() - ppos)
        return Status::Corruption(StrCat(page_what, ": levels run past the page"));
      RleHybridDecoder decoder(std::span<const uint8_t>(page.data() + ppos, size),
                               BitWidth(static_cast<uint32_t>(max_level)));
      size_t before = out->size();
      RETURN_IF_ERROR(decoder.Decode(count, out).WithContext(page_what));
      for (size_t i = before; i < out->size(); ++i) {
        if ((*out)[i] > static_cast<uint32_t>(max_level)) {
          return Status::Corruption(
              StrCat(page_what, ": level ", (*out)[i], " above the maximum ", max_level));
        }
      }
      ppos += size;
      return Status::OK();
    };
    size_t present = count;
    if (levels != nullptr) {
      size_t first_level = levels->def_levels.size();
      RETURN_IF_ERROR(read_levels(column.max_rep_level, &levels->rep_levels));
      RETURN_IF_ERROR(read_levels(column.max_def_level, &levels->def_levels));
      present = 0;
      for (size_t i = first_level; i < levels->def_levels.size(); ++i) {
        if (levels->def_levels[i] == static_cast<uint32_t>(column.max_def_level)) ++present;
      }
    } else if (column.max_rep_level != 0 || column.max_def_level != 0) {
      return Status::InvalidArgument(StrCat(what, ": levels not asked for"));
    }
    std::span<const uint8_t> values(page.data() + ppos, page.size() - ppos);
    if (d.encoding == Encoding::kPlainDictionary && checked_pages_) {
      return Status::NotSupported(StrCat(page_what, ": value encoding ", static_cast<int>(d.encoding)));
    }
    Encoding encoding = d.encoding == Encoding::kPlainDictionary ? Encoding::kRleDictionary : d.encoding;
    if (encoding == Encoding::kRleDictionary && !has_dictionary) {
      return Status::Corruption(StrCat(page_what, ": dictionary-encoded page without a dictionary"));
    }
    RETURN_IF_ERROR(visit({false, encoding, values, present, page_what}));
    values_read += d.num_values;
  }
  return Status::OK();
}

namespace {

// The indices of a dictionary-encoded page's `count` values.
Status DictionaryIndices(std::span<const uint8_t> values, size_t count, size_t dictionary_size,
                         std::vector<uint32_t>* indices, const std::string& what) {
  if (count == 0) return Status::OK();
  if (values.empty()) return Status::Corruption(StrCat(what, ": missing index bit width"));
  size_t first = indices->size();
  RleHybridDecoder decoder(values.subspan(1), values[0]);
  RETURN_IF_ERROR(decoder.Decode(count, indices).WithContext(what));
  for (size_t i = first; i < indices->size(); ++i) {
    if ((*indices)[i] >= dictionary_size) {
      return Status::Corruption(StrCat(what, ": dictionary index ", (*indices)[i], " out of range"));
    }
  }
  return Status::OK();
}

}  // namespace

Status ParquetReader::PageDecoder::Decode(const PageValues& page, std::vector<Value>* values) {
  if (page.dictionary) {
    size_t vpos = 0;
    return DecodePlain(field_, page.values, &vpos, page.count, &dictionary_, page.what);
  }
  switch (page.encoding) {
    case Encoding::kPlain: {
      size_t vpos = 0;
      return DecodePlain(field_, page.values, &vpos, page.count, values, page.what);
    }
    case Encoding::kRleDictionary:
      indices_.clear();
      RETURN_IF_ERROR(DictionaryIndices(page.values, page.count, dictionary_.size(), &indices_, page.what));
      for (uint32_t index : indices_) values->push_back(dictionary_[index]);
      return Status::OK();
    case Encoding::kDeltaBinaryPacked:
    case Encoding::kDeltaLengthByteArray:
    case Encoding::kDeltaByteArray:
      return DecodeDelta(field_, page.encoding, page.values, page.count, values, page.what);
    default:
      return Status::NotSupported(StrCat(page.what, ": value encoding ", static_cast<int>(page.encoding)));
  }
}

Status ParquetReader::PageDecoder::ForEach(const PageValues& page,
                                           const std::function<Status(const Value&)>& visit) {
  if (!page.dictionary && page.encoding == Encoding::kRleDictionary) {
    indices_.clear();
    RETURN_IF_ERROR(DictionaryIndices(page.values, page.count, dictionary_.size(), &indices_, page.what));
    for (uint32_t index : indices_) RETURN_IF_ERROR(visit(dictionary_[index]));
    return Status::OK();
  }
  values_.clear();
  RETURN_IF_ERROR(Decode(page, &values_));
  if (page.dictionary) return Status::OK();
  for (const Value& value : values_) RETURN_IF_ERROR(visit(value));
  return Status::OK();
}

Status ParquetReader::ReadColumnChunk(const ColumnChunk& chunk, const ColumnDescriptor& column,
                                      int64_t num_rows, DecodedColumn* out) {
  PageDecoder decoder(*column.field);
  RETURN_IF_ERROR(ReadPages(chunk, column, out, [&](const PageValues& page) -> Status {
    return decoder.Decode(page, &out->values);
  }));
  int64_t records = 0;
  for (uint32_t r : out->rep_levels) records += r == 0 ? 1 : 0;
  if (records != num_rows || (!out->rep_levels.empty() && out->rep_levels[0] != 0)) {
    return Status::Corruption(StrCat(path_, " column ", column.path.back(), ": chunk holds ", records,
                                     " records, the row group ", num_rows));
  }
  return Status::OK();
}

Status ParquetReader::Advance(const SchemaNode& node, std::vector<DecodedColumn>& columns) {
  for (int i = node.leaf_begin; i < node.leaf_end; ++i) {
    DecodedColumn& c = columns[i];
    if (c.level_pos >= c.def_levels.size()) return Status::Corruption(StrCat(path_, ": column ends early"));
    ++c.level_pos;
  }
  return Status::OK();
}

Result<Value> ParquetReader::Assemble(const SchemaNode& node, std::vector<DecodedColumn>& columns) {
  DecodedColumn& first = columns[node.leaf_begin];
  if (first.level_pos >= first.def_levels.size())
    return Status::Corruption(StrCat(path_, ": column ends early"));
  int def = static_cast<int>(first.def_levels[first.level_pos]);
  if (def < node.def_level) {
    if (!node.field->optional() || def != node.def_level - 1) {
      return Status::Corruption(StrCat(path_, ": field ", node.field->name, " has definition level ", def));
    }
    RETURN_IF_ERROR(Advance(node, columns));
    return Value::Null();
  }
  switch (node.field->kind) {
    case Field::Kind::kPrimitive: {
      if (first.value_pos >= first.values.size())
        return Status::Corruption(StrCat(path_, ": values end early"));
      ++first.level_pos;
      return std::move(first.values[first.value_pos++]);
    }
    case Field::Kind::kStruct: {
      std::vector<Value> fields;
      for (const SchemaNode& child : node.children) {
        ASSIGN_OR_RETURN(Value v, Assemble(child, columns));
        fields.push_back(std::move(v));
      }
      return Value::Struct(std::move(fields));
    }
    case Field::Kind::kList:
    case Field::Kind::kMap: {
      bool is_list = node.field->kind == Field::Kind::kList;
      if (def == node.def_level) {
        RETURN_IF_ERROR(Advance(node, columns));
        return is_list ? Value::List({}) : Value::Map({});
      }
      std::vector<Value> elements;
      std::vector<std::pair<Value, Value>> entries;
      while (true) {
        if (is_list) {
          ASSIGN_OR_RETURN(Value v, Assemble(node.children[0], columns));
          elements.push_back(std::move(v));
        } else {
          ASSIGN_OR_RETURN(Value k, Assemble(node.children[0], columns));
          ASSIGN_OR_RETURN(Value v, Assemble(node.children[1], columns));
          entries.emplace_back(std::move(k), std::move(v));
        }
        if (first.level_pos >= first.rep_levels.size() ||
            first.rep_levels[first.level_pos] != static_cast<uint32_t>(node.rep_level)) {
          break;
        }
      }
      return is_list ? Value::List(std::move(elements)) : Value::Map(std::move(entries));
    }
  }
  return Status::Corruption("unreachable");
}

Status ParquetReader::StartRowGroup(int index) {
  group_ = -1;
  group_rows_left_ = 0;
  group_columns_.clear();
  if (index < 0 || index >= num_row_groups()) {
    return Status::InvalidArgument(StrCat(path_, ": no row group ", index));
  }
  const RowGroup& group = metadata_.row_groups[index];
  std::vector<DecodedColumn> columns(plan_.columns.size());
  for (size_t i = 0; i < plan_.columns.size(); ++i) {
    RETURN_IF_ERROR(ReadColumnChunk(group.columns[i], plan_.columns[i], group.num_rows, &columns[i]));
  }
  group_ = index;
  group_rows_left_ = group.num_rows;
  group_columns_ = std::move(columns);
  return Status::OK();
}

Result<bool> ParquetReader::NextRow(Value* row) {
  if (group_ < 0) return false;
  if (group_rows_left_ == 0) {
    int index = group_;
    std::vector<DecodedColumn> columns = std::move(group_columns_);
    group_ = -1;
    group_columns_.clear();
    for (size_t i = 0; i < columns.size(); ++i) {
      if (columns[i].level_pos != columns[i].def_levels.size()) {
        return Status::Corruption(StrCat(path_, ": column ", i, " of row group ", index, " has extra levels"));
      }
    }
    return false;
  }
  std::vector<Value> fields;
  fields.reserve(plan_.roots.size());
  for (const SchemaNode& root : plan_.roots) {
    auto v = Assemble(root, group_columns_);
    if (!v.ok()) {
      group_ = -1;
      group_columns_.clear();
      return v.status();
    }
    fields.push_back(std::move(*v));
  }
  --group_rows_left_;
  *row = Value::Struct(std::move(fields));
  return true;
}

Result<std::vector<Value>> ParquetReader::ReadRowGroup(int index) {
  RETURN_IF_ERROR(StartRowGroup(index));
  std::vector<Value> rows;
  rows.reserve(static_cast<size_t>(group_rows_left_));
  Value row;
  while (true) {
    ASSIGN_OR_RETURN(bool more, NextRow(&row));
    if (!more) break;
    rows.push_back(std::move(row));
  }
  return rows;
}

Status ParquetReader::AppendRowGroup(int index, const std::function<bool(int64_t row)>& keep, RowBatch* batch) {
  if (index < 0 || index >= num_row_groups()) {
    return Status::InvalidArgument(StrCat(path_, ": no row group ", index));
  }
  if (batch->num_columns() != static_cast<int>(plan_.columns.size())) {
    return Status::InvalidArgument(StrCat(path_, ": ", plan_.columns.size(), " leaf columns, the batch ",
                                          batch->num_columns()));
  }
  const RowGroup& group = metadata_.row_groups[index];
  std::vector<bool> kept_rows(static_cast<size_t>(group.num_rows));
  int64_t kept = 0;
  for (int64_t row = 0; row < group.num_rows; ++row) {
    kept_rows[static_cast<size_t>(row)] = keep(row);
    kept += kept_rows[static_cast<size_t>(row)];
  }
  for (size_t i = 0; i < plan_.columns.size(); ++i) {
    const ColumnDescriptor& descriptor = plan_.columns[i];
    ColumnBatch& out = batch->column(static_cast<int>(i));
    if (out.physical_type() != descriptor.field->physical_type || out.max_def_level() != descriptor.max_def_level ||
        out.max_rep_level() != descriptor.max_rep_level) {
      return Status::InvalidArgument(StrCat(path_, ": column ", Join(descriptor.path, "."),
                                            " is not the batch's column ", i));
    }
    // A page's values at a time, with the levels that page added: each
    // value goes with the next present level, absent levels as nulls.
    DecodedColumn levels;
    PageDecoder decoder(*descriptor.field);
    size_t level = 0;
    int64_t row = -1;
    bool keeping = false;
    // Takes level `level` (at most row group's rows); true when it is present.
    auto take_level = [&](const std::string& what) -> Result<bool> {
      const int rep = static_cast<int>(levels.rep_levels[level]);
      const int def = static_cast<int>(levels.def_levels[level]);
      if (rep == 0) {
        if (++row >= group.num_rows) return Status::Corruption(StrCat(what, ": more rows than its row group"));
        keeping = kept_rows[static_cast<size_t>(row)];
      }
      ++level;
      if (def == descriptor.max_def_level) return true;
      if (keeping) out.AppendNull(def, rep);
      return false;
    };
    RETURN_IF_ERROR(ReadPages(group.columns[i], descriptor, &levels, [&](const PageValues& page) -> Status {
      if (page.dictionary) return decoder.ForEach(page, nullptr);
      RETURN_IF_ERROR(decoder.ForEach(page, [&](const Value& value) -> Status {
        while (true) {
          if (level >= levels.def_levels.size()) {
            return Status::Corruption(StrCat(page.what, ": more values than its levels say"));
          }
          ASSIGN_OR_RETURN(bool present, take_level(page.what));
          if (!present) continue;
          if (keeping) out.AppendValue(value, static_cast<int>(levels.rep_levels[level - 1]));
          return Status::OK();
        }
      }));
      while (level < levels.def_levels.size()) {
        ASSIGN_OR_RETURN(bool present, take_level(page.what));
        if (present) return Status::Corruption(StrCat(page.what, ": fewer values than its levels say"));
      }
      levels.rep_levels.clear();
      levels.def_levels.clear();
      level = 0;
      return Status::OK();
    }));
    if (row + 1 != group.num_rows) {
      return Status::Corruption(StrCat(path_, ": column ", Join(descriptor.path, "."), " of row group ", index,
                                       " holds ", row + 1, " rows, the row group ", group.num_rows));
    }
  }
  batch->EndRows(kept);
  return Status::OK();
}

Status ParquetReader::ReadFlatColumns(int index, std::vector<FlatColumn>* columns) {
  columns->resize(plan_.columns.size());
  for (size_t i = 0; i < plan_.columns.size(); ++i) {
    RETURN_IF_ERROR(ReadFlatColumn(index, static_cast<int>(i), &(*columns)[i]));
  }
  return Status::OK();
}

Status ParquetReader::ReadFlatColumn(int index, int field, FlatColumn* out) {
  if (index < 0 || index >= num_row_groups()) {
    return Status::InvalidArgument(StrCat(path_, ": no row group ", index));
  }
  if (plan_.columns.size() != plan_.roots.size()) {
    return Status::InvalidArgument(StrCat(path_, ": not a file of top-level primitive columns only"));
  }
  if (field < 0 || static_cast<size_t>(field) >= plan_.columns.size()) {
    return Status::InvalidArgument(StrCat(path_, ": no column ", field));
  }
  const RowGroup& group = metadata_.row_groups[index];
  const ColumnDescriptor& descriptor = plan_.columns[field];
  PhysicalType type = descriptor.field->physical_type;
  if (descriptor.max_def_level != 0 || descriptor.max_rep_level != 0 ||
      (type != PhysicalType::kInt64 && type != PhysicalType::kByteArray)) {
    return Status::InvalidArgument(StrCat(path_, ": column ", Join(descriptor.path, "."),
                                          " is not a required INT64 or BYTE_ARRAY"));
  }
  FlatColumn& column = *out;
  column.ints.clear();
  column.strings.clear();
  column.dictionary.clear();
  column.indices.clear();
  bool ints = type == PhysicalType::kInt64;
  std::vector<int64_t> int_dictionary;
  RETURN_IF_ERROR(ReadPages(group.columns[field], descriptor, nullptr, [&](const PageValues& page) -> Status {
    size_t vpos = 0;
    if (page.dictionary) {
      return ints ? DecodePlainInt64s(page.values, &vpos, page.count, &int_dictionary, page.what)
                  : DecodePlainByteArrays(page.values, &vpos, page.count, &column.dictionary, page.what);
    }
    if (page.encoding == Encoding::kRleDictionary && ints) {
      std::vector<uint32_t> indices;
      RETURN_IF_ERROR(DictionaryIndices(page.values, page.count, int_dictionary.size(), &indices, page.what));
      for (uint32_t k : indices) column.ints.push_back(int_dictionary[k]);
      return Status::OK();
    }
    if (page.encoding == Encoding::kRleDictionary) {
      // Pages that are not dictionary-encoded came before: every value by itself.
      if (!column.strings.empty()) {
        std::vector<uint32_t> indices;
        RETURN_IF_ERROR(DictionaryIndices(page.values, page.count, column.dictionary.size(), &indices, page.what));
        for (uint32_t k : indices) column.strings.push_back(column.dictionary[k]);
        return Status::OK();
      }
      return DictionaryIndices(page.values, page.count, column.dictionary.size(), &column.indices, page.what);
    }
    if (!ints && !column.indices.empty()) {  // a page past the dictionary's fallback
      for (uint32_t k : column.indices) column.strings.push_back(column.dictionary[k]);
      column.indices.clear();
    }
    switch (page.encoding) {
      case Encoding::kPlain:
        return ints ? DecodePlainInt64s(page.values, &vpos, page.count, &column.ints, page.what)
                    : DecodePlainByteArrays(page.values, &vpos, page.count, &column.strings, page.what);
      case Encoding::kDeltaBinaryPacked:
        if (!ints) break;
        return DecodeDeltaBinaryPacked<int64_t>(page.values, &vpos, page.count, &column.ints, page.what);
      case Encoding::kDeltaLengthByteArray:
      case Encoding::kDeltaByteArray:
        if (ints) break;
        return DecodeDeltaByteArrays(page.encoding, page.values, &vpos, page.count, &column.strings, page.what);
      default:
        break;
    }
    return Status::NotSupported(StrCat(page.what, ": value encoding ", static_cast<int>(page.encoding), " for ",
                                       PhysicalTypeName(type), " values"));
  }));
  if (column.size() != static_cast<size_t>(group.num_rows)) {
    return Status::Corruption(StrCat(path_, ": column ", Join(descriptor.path, "."), " of row group ", index,
                                     " has ", column.size(), " values for ", group.num_rows, " rows"));
  }
  return Status::OK();
}

Result<std::vector<Value>> ParquetReader::ReadAll() {
  std::vector<Value> rows;
  for (int g = 0; g < num_row_groups(); ++g) {
    ASSIGN_OR_RETURN(std::vector<Value> part, ReadRowGroup(g));
    for (Value& v : part) rows.push_back(std::move(v));
  }
  return rows;
}

}  // namespace cqlite::parquet
