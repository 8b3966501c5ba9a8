#include "iceberg/puffin.h"

#include <cstring>
#include <nlohmann/json.hpp>

namespace cqlite::iceberg {
namespace {

using json = nlohmann::json;

std::string_view MagicView() {
  return std::string_view(reinterpret_cast<const char*>(kPuffinMagic.data()), kPuffinMagic.size());
}

void AppendInt32LE(std::string& out, int32_t value) {
  const uint32_t v = static_cast<uint32_t>(value);
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::string At(const std::string& path, int64_t offset) {
  return path + " at byte " + std::to_string(offset);
}

// Reads `length` bytes at `offset` of `file` into a string.
Result<std::string> ReadRange(const RandomAccessFile& file, int64_t offset, int64_t length) {
  std::string out(static_cast<size_t>(length), '\0');
  RETURN_IF_ERROR(file.ReadExactly(static_cast<uint64_t>(offset),
                                   std::span<uint8_t>(reinterpret_cast<uint8_t*>(out.data()), out.size())));
  return out;
}

Result<int64_t> RequiredLong(const json& object, const char* name, const std::string& where) {
  auto it = object.find(name);
  if (it == object.end()) return Status::Corruption(where + ": blob metadata has no \"" + name + "\"");
  if (!it->is_number_integer())
    return Status::Corruption(where + ": blob metadata \"" + name + "\" is not an integer");
  return it->get<int64_t>();
}

Status StringProperties(const json& object, const std::string& where,
                        std::map<std::string, std::string>* out) {
  auto it = object.find("properties");
  if (it == object.end()) return Status::OK();
  if (!it->is_object()) return Status::Corruption(where + ": \"properties\" is not an object");
  for (auto& [key, value] : it->items()) {
    if (!value.is_string()) return Status::Corruption(where + ": property \"" + key + "\" is not a string");
    (*out)[key] = value.get<std::string>();
  }
  return Status::OK();
}

}  // namespace

std::string PuffinFooterJson(const std::vector<PuffinBlobMetadata>& blobs,
                             const std::map<std::string, std::string>& properties) {
  json blob_list = json::array();
  for (const PuffinBlobMetadata& blob : blobs) {
    json entry = json::object();
    entry["type"] = blob.type;
    entry["fields"] = blob.fields;
    entry["snapshot-id"] = blob.snapshot_id;
    entry["sequence-number"] = blob.sequence_number;
    entry["offset"] = blob.offset;
    entry["length"] = blob.length;
    if (blob.compression_codec) entry["compression-codec"] = *blob.compression_codec;
    if (!blob.properties.empty()) entry["properties"] = blob.properties;
    blob_list.push_back(std::move(entry));
  }
  json footer = json::object();
  footer["blobs"] = std::move(blob_list);
  if (!properties.empty()) footer["properties"] = properties;
  return footer.dump();
}

Status ParsePuffinFooterJson(std::string_view payload, const std::string& path, int64_t payload_offset,
                             std::vector<PuffinBlobMetadata>* blobs,
                             std::map<std::string, std::string>* properties) {
  const std::string where = "Puffin footer of " + At(path, payload_offset);
  json footer = json::parse(payload.begin(), payload.end(), nullptr, /*allow_exceptions=*/false);
  if (footer.is_discarded()) return Status::Corruption(where + ": footer payload is not JSON");
  if (!footer.is_object()) return Status::Corruption(where + ": footer payload is not a JSON object");
  auto blob_list = footer.find("blobs");
  if (blob_list == footer.end() || !blob_list->is_array()) {
    return Status::Corruption(where + ": footer has no \"blobs\" list");
  }
  blobs->clear();
  properties->clear();
  for (size_t i = 0; i < blob_list->size(); ++i) {
    const json& entry = (*blob_list)[i];
    const std::string blob_where = where + ", blob " + std::to_string(i);
    if (!entry.is_object()) return Status::Corruption(blob_where + ": blob metadata is not an object");
    PuffinBlobMetadata blob;
    auto type = entry.find("type");
    if (type == entry.end() || !type->is_string())
      return Status::Corruption(blob_where + ": no \"type\" string");
    blob.type = type->get<std::string>();
    auto fields = entry.find("fields");
    if (fields == entry.end() || !fields->is_array())
      return Status::Corruption(blob_where + ": no \"fields\" list");
    for (const json& field : *fields) {
      if (!field.is_number_integer() || field.get<int64_t>() < INT32_MIN ||
          field.get<int64_t>() > INT32_MAX) {
        return Status::Corruption(blob_where + ": a field id is not a 4-byte integer");
      }
      blob.fields.push_back(static_cast<int32_t>(field.get<int64_t>()));
    }
    ASSIGN_OR_RETURN(blob.snapshot_id, RequiredLong(entry, "snapshot-id", blob_where));
    ASSIGN_OR_RETURN(blob.sequence_number, RequiredLong(entry, "sequence-number", blob_where));
    ASSIGN_OR_RETURN(blob.offset, RequiredLong(entry, "offset", blob_where));
    ASSIGN_OR_RETURN(blob.length, RequiredLong(entry, "length", blob_where));
    auto codec = entry.find("compression-codec");
    if (codec != entry.end() && !codec->is_null()) {
      if (!codec->is_string())
        return Status::Corruption(blob_where + ": \"compression-codec\" is not a string");
      blob.compression_codec = codec->get<std::string>();
    }
    RETURN_IF_ERROR(StringProperties(entry, blob_where, &blob.properties));
    blobs->push_back(std::move(blob));
  }
  return StringProperties(footer, where, properties);
}

Result<std::unique_ptr<PuffinWriter>> PuffinWriter::Open(FileSystem& fs, const std::string& path) {
  ASSIGN_OR_RETURN(auto file, fs.OpenForWrite(path));
  std::unique_ptr<PuffinWriter> writer(new PuffinWriter(path, std::move(file)));
  RETURN_IF_ERROR(writer->Write(MagicView()));
  return writer;
}

Status PuffinWriter::Write(std::string_view bytes) {
  Status st = file_->Append(bytes);
  if (!st.ok()) return st.WithContext("writing Puffin file " + At(path_, written_));
  written_ += static_cast<int64_t>(bytes.size());
  return Status::OK();
}

Result<PuffinBlobMetadata> PuffinWriter::Add(const PuffinBlob& blob) {
  assert(!finished_);
  PuffinBlobMetadata metadata;
  metadata.type = blob.type;
  metadata.fields = blob.fields;
  metadata.snapshot_id = blob.snapshot_id;
  metadata.sequence_number = blob.sequence_number;
  metadata.offset = written_;
  metadata.length = static_cast<int64_t>(blob.data.size());
  metadata.properties = blob.properties;
  RETURN_IF_ERROR(Write(blob.data));
  blobs_.push_back(metadata);
  return metadata;
}

Result<int64_t> PuffinWriter::Finish(const std::map<std::string, std::string>& properties) {
  assert(!finished_);
  finished_ = true;
  const std::string payload = PuffinFooterJson(blobs_, properties);
  if (payload.size() > static_cast<size_t>(INT32_MAX)) {
    return Status::InvalidArgument("Puffin file " + path_ + ": footer of " + std::to_string(payload.size()) +
                                   " bytes is longer than a 4-byte size can say");
  }
  std::string footer;
  footer.reserve(payload.size() + kPuffinFooterFixedBytes);
  footer.append(MagicView());
  footer.append(payload);
  AppendInt32LE(footer, static_cast<int32_t>(payload.size()));
  footer.append(4, '\0');  // flags: footer not compressed, nothing else set
  footer.append(MagicView());
  RETURN_IF_ERROR(Write(footer));
  Status st = file_->Sync();
  if (st.ok()) st = file_->Close();
  if (!st.ok()) return st.WithContext("finishing Puffin file " + path_);
  return written_;
}

Result<std::unique_ptr<PuffinReader>> PuffinReader::Open(FileSystem& fs, const std::string& path) {
  ASSIGN_OR_RETURN(auto file, fs.OpenForRead(path));
  std::unique_ptr<PuffinReader> reader(new PuffinReader(std::move(file)));
  RETURN_IF_ERROR(reader->ReadFooter());
  return reader;
}

Status PuffinReader::ReadFooter() {
  const std::string& path = file_->path();
  const int64_t size = static_cast<int64_t>(file_->Size());
  const int64_t smallest = static_cast<int64_t>(kPuffinMagic.size() + kPuffinFooterFixedBytes);
  if (size < smallest) {
    return Status::Corruption("Puffin file " + path + " has " + std::to_string(size) +
                              " bytes, fewer than the " + std::to_string(smallest) + " of magic and footer");
  }
  ASSIGN_OR_RETURN(std::string head, ReadRange(*file_, 0, 4));
  if (head != MagicView())
    return Status::Corruption("Puffin file " + At(path, 0) + ": no leading magic PFA1");

  // The fixed tail: FooterPayloadSize, Flags, Magic.
  const int64_t tail_offset = size - 12;
  ASSIGN_OR_RETURN(std::string tail, ReadRange(*file_, tail_offset, 12));
  if (std::string_view(tail).substr(8) != MagicView()) {
    return Status::Corruption("Puffin file " + At(path, size - 4) + ": no trailing magic PFA1");
  }
  int32_t payload_size = 0;
  {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<uint8_t>(tail[i])) << (8 * i);
    payload_size = static_cast<int32_t>(v);
  }
  const uint8_t flags0 = static_cast<uint8_t>(tail[4]);
  if (flags0 & kPuffinFooterCompressedFlag) {
    return Status::NotSupported("Puffin file " + At(path, tail_offset + 4) +
                                ": the footer is compressed, which this reader does not support");
  }
  if ((flags0 & ~kPuffinFooterCompressedFlag) != 0 || tail[5] != 0 || tail[6] != 0 || tail[7] != 0) {
    return Status::NotSupported("Puffin file " + At(path, tail_offset + 4) + ": unknown footer flags set");
  }
  if (payload_size < 0 || payload_size > size - smallest) {
    return Status::Corruption("Puffin file " + At(path, tail_offset) + ": footer payload size " +
                              std::to_string(payload_size) + " does not fit in a file of " +
                              std::to_string(size) + " bytes");
  }
  const int64_t footer_start = tail_offset - payload_size - 4;
  ASSIGN_OR_RETURN(std::string footer_magic, ReadRange(*file_, footer_start, 4));
  if (footer_magic != MagicView()) {
    return Status::Corruption("Puffin file " + At(path, footer_start) + ": no footer magic PFA1");
  }
  ASSIGN_OR_RETURN(std::string payload, ReadRange(*file_, footer_start + 4, payload_size));
  RETURN_IF_ERROR(ParsePuffinFooterJson(payload, path, footer_start + 4, &blobs_, &properties_));
  for (size_t i = 0; i < blobs_.size(); ++i) {
    const PuffinBlobMetadata& blob = blobs_[i];
    if (blob.offset < static_cast<int64_t>(kPuffinMagic.size()) || blob.length < 0 ||
        blob.length > footer_start - blob.offset) {
      return Status::Corruption(
          "Puffin footer of " + At(path, footer_start + 4) + ", blob " + std::to_string(i) + ": offset " +
          std::to_string(blob.offset) + " length " + std::to_string(blob.length) +
          " is not between the leading magic and the footer at " + std::to_string(footer_start));
    }
  }
  return Status::OK();
}

Result<std::string> PuffinReader::ReadBlob(const PuffinBlobMetadata& blob) const {
  if (blob.compression_codec) {
    return Status::NotSupported("Puffin file " + At(path(), blob.offset) + ": blob compressed with " +
                                *blob.compression_codec + ", which this reader does not support");
  }
  return ReadRange(*file_, blob.offset, blob.length);
}

}  // namespace cqlite::iceberg
