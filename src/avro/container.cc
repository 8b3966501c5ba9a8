#include "avro/container.h"

#include <zlib.h>

#include <cstring>
#include <limits>
#include <random>

#include "avro/binary.h"
#include "io/checksum.h"
#include "util/strings.h"

namespace cqlite::avro {
namespace {

// A block that inflates to more than this is taken as corruption rather
// than exhausting memory. Manifest blocks are tens of kilobytes.
constexpr size_t kMaxBlockBytes = size_t{256} << 20;
// zlib's windowBits for raw deflate (negative: no zlib header or trailer).
constexpr int kRawDeflateWindowBits = -15;
constexpr int kDeflateMemLevel = 8;
// Records of a schema that encodes to no bytes (an empty record) cost nothing
// to claim; a block claiming more than this many is taken as corruption.
constexpr int64_t kMaxEmptyRecordsPerBlock = int64_t{1} << 16;

SyncMarker RandomSyncMarker() {
  std::random_device device;
  std::mt19937_64 generator((static_cast<uint64_t>(device()) << 32) ^ device());
  SyncMarker marker;
  for (size_t i = 0; i < marker.size(); i += 8) {
    uint64_t bits = generator();
    std::memcpy(marker.data() + i, &bits, 8);
  }
  return marker;
}

// The first 8 bytes of the sync marker of a file whose marker carries its
// CRC-32 (ContainerWriter): arbitrary bytes, so that another writer's random
// marker begins with them once in 2^64 files.
constexpr uint8_t kChecksumMarkerTag[8] = {0x9c, 0x71, 0x1e, 0x5a, 0xc4, 0x0f, 0xd3, 0x62};
constexpr size_t kChecksumAt = kSyncMarkerSize - 4;  // the CRC-32's bytes in the marker

// A marker with the tag, random bytes, and a CRC-32 of zero for now.
SyncMarker ChecksumSyncMarker() {
  SyncMarker marker = RandomSyncMarker();
  std::memcpy(marker.data(), kChecksumMarkerTag, sizeof kChecksumMarkerTag);
  std::memset(marker.data() + kChecksumAt, 0, 4);
  return marker;
}

std::string_view AsView(const SyncMarker& marker) {
  return std::string_view(reinterpret_cast<const char*>(marker.data()), marker.size());
}

}  // namespace

const char* ContainerCodecName(ContainerCodec codec) {
  return codec == ContainerCodec::kDeflate ? "deflate" : "null";
}

std::string RawDeflate(std::string_view input) {
  z_stream stream{};
  // Only fails for bad parameters or no memory; the parameters are constants.
  int rc = deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, kRawDeflateWindowBits, kDeflateMemLevel,
                        Z_DEFAULT_STRATEGY);
  assert(rc == Z_OK);
  std::string out(deflateBound(&stream, static_cast<uLong>(input.size())), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  stream.avail_in = static_cast<uInt>(input.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  rc = deflate(&stream, Z_FINISH);
  assert(rc == Z_STREAM_END);
  (void)rc;
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

Result<std::string> RawInflate(std::string_view input, size_t max_output, const std::string& context) {
  if (input.size() > std::numeric_limits<uInt>::max()) return Status::Corruption(StrCat(context, ": deflate block too large"));
  z_stream stream{};
  if (inflateInit2(&stream, kRawDeflateWindowBits) != Z_OK) {
    return Status::Corruption(StrCat(context, ": cannot initialise zlib"));
  }
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  stream.avail_in = static_cast<uInt>(input.size());
  std::string out;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (out.size() >= max_output) {
      inflateEnd(&stream);
      return Status::Corruption(StrCat(context, ": deflate block inflates to more than ", max_output, " bytes"));
    }
    size_t old_size = out.size();
    size_t grow = std::min(max_output - old_size, std::max<size_t>(old_size, 4096));
    out.resize(old_size + grow);
    stream.next_out = reinterpret_cast<Bytef*>(out.data() + old_size);
    stream.avail_out = static_cast<uInt>(grow);
    rc = inflate(&stream, Z_NO_FLUSH);
    out.resize(old_size + (grow - stream.avail_out));
    if (rc == Z_STREAM_END) break;
    if (rc == Z_BUF_ERROR && stream.avail_in == 0) {
      inflateEnd(&stream);
      return Status::Corruption(StrCat(context, ": deflate block is truncated"));
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      inflateEnd(&stream);
      return Status::Corruption(StrCat(context, ": deflate block is malformed (zlib error ", rc, ")"));
    }
    if (rc == Z_OK && stream.avail_in == 0 && stream.avail_out != 0) {
      inflateEnd(&stream);
      return Status::Corruption(StrCat(context, ": deflate block is truncated"));
    }
  }
  // Bytes after the end of the deflate stream are ignored, as Java's Inflater
  // (nowrap) does: some writers leave part of a zlib trailer there.
  inflateEnd(&stream);
  return out;
}

// ---------------------------------------------------------------- writer

ContainerWriter::ContainerWriter(PrivateTag, std::unique_ptr<WritableFile> file, std::string path, Schema schema,
                                 ContainerWriterOptions options, SyncMarker sync_marker)
    : file_(std::move(file)),
      path_(std::move(path)),
      schema_(std::move(schema)),
      options_(std::move(options)),
      sync_marker_(sync_marker) {}

Result<std::unique_ptr<ContainerWriter>> ContainerWriter::Open(FileSystem& fs, const std::string& path, Schema schema,
                                                               ContainerWriterOptions options) {
  Status valid = schema.Validate();
  if (!valid.ok()) return valid.WithContext(path);
  for (const auto& [key, value] : options.metadata) {
    if (StartsWith(key, "avro.")) {
      return Status::InvalidArgument(StrCat(path, ": Avro metadata key ", key, " is reserved"));
    }
  }
  SyncMarker marker = options.sync_marker ? *options.sync_marker : ChecksumSyncMarker();
  ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file, fs.OpenForWrite(path));
  auto writer = std::make_unique<ContainerWriter>(PrivateTag(), std::move(file), path, std::move(schema),
                                                  std::move(options), marker);

  std::string header(kContainerMagic, sizeof kContainerMagic);
  std::vector<std::pair<std::string, std::string>> metadata = {
      {kSchemaKey, ToJson(writer->schema_)}, {kCodecKey, ContainerCodecName(writer->options_.codec)}};
  metadata.insert(metadata.end(), writer->options_.metadata.begin(), writer->options_.metadata.end());
  EncodeLong(static_cast<int64_t>(metadata.size()), &header);
  for (const auto& [key, value] : metadata) {
    EncodeBytes(key, &header);
    EncodeBytes(value, &header);
  }
  EncodeLong(0, &header);
  header.append(AsView(marker));
  writer->Write(header);
  writer->marker_ends_.push_back(writer->pending_.size());
  return writer;
}

void ContainerWriter::Write(std::string_view bytes) { pending_.append(bytes); }

Status ContainerWriter::Append(const Datum& datum) {
  if (closed_) return Status::InvalidArgument(StrCat(path_, ": Avro writer already closed"));
  Status status = EncodeDatum(schema_, datum, &block_);
  if (!status.ok()) return status.WithContext(StrCat(path_, ": record ", block_records_));
  ++block_records_;
  if (block_.size() >= options_.block_size) return WriteBlock();
  return Status::OK();
}

Status ContainerWriter::WriteBlock() {
  if (block_records_ == 0) return Status::OK();
  std::string frame;
  EncodeLong(block_records_, &frame);
  if (options_.codec == ContainerCodec::kDeflate) {
    std::string compressed = RawDeflate(block_);
    EncodeLong(static_cast<int64_t>(compressed.size()), &frame);
    frame += compressed;
  } else {
    EncodeLong(static_cast<int64_t>(block_.size()), &frame);
    frame += block_;
  }
  frame.append(AsView(sync_marker_));
  block_.clear();
  block_records_ = 0;
  Write(frame);
  marker_ends_.push_back(pending_.size());
  return Status::OK();
}

Result<uint64_t> ContainerWriter::Close() {
  if (closed_) return Status::InvalidArgument(StrCat(path_, ": Avro writer already closed"));
  closed_ = true;
  RETURN_IF_ERROR(WriteBlock());
  if (std::memcmp(sync_marker_.data(), kChecksumMarkerTag, sizeof kChecksumMarkerTag) == 0) {
    // The CRC-32 of the whole file with the markers' CRC bytes zero, then
    // written into every marker.
    const uint32_t crc = Crc32(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(pending_.data()),
                                                        pending_.size()));
    for (size_t end : marker_ends_) std::memcpy(pending_.data() + end - 4, &crc, 4);
  }
  RETURN_IF_ERROR(file_->Append(pending_));
  RETURN_IF_ERROR(file_->Sync());
  RETURN_IF_ERROR(file_->Close());
  const uint64_t length = pending_.size();
  pending_.clear();
  return length;
}

// ---------------------------------------------------------------- reader

Result<std::unique_ptr<ContainerReader>> ContainerReader::Open(FileSystem& fs, const std::string& path) {
  ASSIGN_OR_RETURN(std::string bytes, fs.ReadFileToString(path));
  return FromBytes(std::move(bytes), path);
}

Result<std::unique_ptr<ContainerReader>> ContainerReader::FromBytes(std::string bytes, const std::string& path) {
  auto reader = std::make_unique<ContainerReader>(PrivateTag(), std::move(bytes), path);
  RETURN_IF_ERROR(reader->ReadHeader());
  return reader;
}

Status ContainerReader::ReadHeader() {
  std::span<const uint8_t> all(reinterpret_cast<const uint8_t*>(bytes_.data()), bytes_.size());
  BinaryDecoder decoder(all, path_);
  if (bytes_.size() < sizeof kContainerMagic || std::memcmp(bytes_.data(), kContainerMagic, sizeof kContainerMagic) != 0) {
    return decoder.ErrorAt(0, "container file does not start with the magic Obj\\x01");
  }
  ASSIGN_OR_RETURN(std::string magic, decoder.ReadFixed(sizeof kContainerMagic));
  size_t metadata_start = decoder.position();
  ASSIGN_OR_RETURN(Datum metadata, decoder.Read(Schema::Map(Schema::Bytes())));
  for (const auto& [key, value] : metadata.map_entries()) {
    if (!metadata_.emplace(key, value.bytes()).second) {
      return decoder.ErrorAt(metadata_start, StrCat("metadata key ", key, " appears twice"));
    }
  }
  ASSIGN_OR_RETURN(std::string sync, decoder.ReadFixed(kSyncMarkerSize));
  std::memcpy(sync_marker_.data(), sync.data(), kSyncMarkerSize);
  position_ = decoder.position();
  RETURN_IF_ERROR(VerifyChecksum());

  auto schema_it = metadata_.find(kSchemaKey);
  if (schema_it == metadata_.end()) return decoder.ErrorAt(metadata_start, "metadata has no avro.schema");
  ASSIGN_OR_RETURN(schema_, ParseSchema(schema_it->second, StrCat(path_, ": avro.schema")));
  auto codec_it = metadata_.find(kCodecKey);
  if (codec_it == metadata_.end() || codec_it->second == "null") {
    codec_ = ContainerCodec::kNull;
  } else if (codec_it->second == "deflate") {
    codec_ = ContainerCodec::kDeflate;
  } else {
    return Status::NotSupported(StrCat(path_, ": Avro codec \"", codec_it->second, "\" is not supported"));
  }
  return Status::OK();
}

Status ContainerReader::VerifyChecksum() const {
  if (std::memcmp(sync_marker_.data(), kChecksumMarkerTag, sizeof kChecksumMarkerTag) != 0) {
    return Status::OK();  // another writer's random marker
  }
  uint32_t recorded;
  std::memcpy(&recorded, sync_marker_.data() + kChecksumAt, 4);
  // Every occurrence of the marker with its CRC bytes zero, as the writer
  // computed it: a damaged occurrence stays, and fails the check.
  std::string copy = bytes_;
  const std::string_view marker = AsView(sync_marker_);
  for (size_t at = copy.find(marker); at != std::string::npos; at = copy.find(marker, at + 1)) {
    std::memset(copy.data() + at + kChecksumAt, 0, 4);
  }
  const uint32_t actual = Crc32(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(copy.data()), copy.size()));
  if (actual != recorded) {
    return Status::Corruption(StrCat(path_, ": bytes 0 to ", bytes_.size(),
                                     " do not match the CRC-32 its sync marker carries (the file is damaged)"));
  }
  return Status::OK();
}

std::optional<std::string> ContainerReader::Metadata(const std::string& key) const {
  auto it = metadata_.find(key);
  if (it == metadata_.end()) return std::nullopt;
  return it->second;
}

Result<bool> ContainerReader::LoadBlock() {
  while (true) {
    if (position_ == bytes_.size()) return false;
    std::span<const uint8_t> rest(reinterpret_cast<const uint8_t*>(bytes_.data()) + position_,
                                  bytes_.size() - position_);
    BinaryDecoder frame(rest, path_, position_);
    size_t block_start = position_;
    ASSIGN_OR_RETURN(int64_t count, frame.ReadLong());
    if (count < 0) return frame.ErrorAt(0, StrCat("block record count ", count, " is negative"));
    size_t size_at = frame.position();
    ASSIGN_OR_RETURN(int64_t size, frame.ReadLong());
    if (size < 0 || static_cast<uint64_t>(size) > frame.remaining()) {
      return frame.ErrorAt(size_at, StrCat("block size ", size, " is invalid (", frame.remaining(), " bytes left)"));
    }
    size_t data_at = frame.position();
    ASSIGN_OR_RETURN(std::string data, frame.ReadFixed(static_cast<size_t>(size)));
    size_t sync_at = frame.position();
    if (frame.remaining() < kSyncMarkerSize) return frame.ErrorAt(sync_at, "block is not followed by a sync marker");
    ASSIGN_OR_RETURN(std::string sync, frame.ReadFixed(kSyncMarkerSize));
    if (sync != AsView(sync_marker_)) return frame.ErrorAt(sync_at, "sync marker does not match the header's");
    position_ += frame.position();
    block_file_offset_ = block_start + data_at;
    if (codec_ == ContainerCodec::kDeflate) {
      ASSIGN_OR_RETURN(block_, RawInflate(data, kMaxBlockBytes,
                                          StrCat(path_, ": byte offset ", block_file_offset_, ": Avro")));
    } else {
      block_ = std::move(data);
    }
    // Each record takes at least MinEncodedSize bytes, so the count is bounded
    // by the block's size (zero-size records by a fixed cap).
    size_t min_record = MinEncodedSize(schema_);
    if ((min_record > 0 && static_cast<uint64_t>(count) > block_.size() / min_record) ||
        (min_record == 0 && count > kMaxEmptyRecordsPerBlock)) {
      return frame.ErrorAt(0, StrCat("block record count ", count, " does not fit its ", block_.size(), " bytes"));
    }
    block_records_left_ = count;
    // Offsets of errors inside a compressed block count from its start.
    decoder_ = std::make_unique<BinaryDecoder>(
        std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(block_.data()), block_.size()),
        codec_ == ContainerCodec::kDeflate ? StrCat(path_, " (block at byte offset ", block_file_offset_, ", inflated)")
                                           : path_,
        codec_ == ContainerCodec::kDeflate ? 0 : block_file_offset_);
    if (count > 0) return true;
    if (!block_.empty()) return decoder_->Error("block of 0 records has data");
  }
}

Result<std::optional<Datum>> ContainerReader::Next() {
  while (block_records_left_ == 0) {
    if (decoder_ && !decoder_->at_end()) return decoder_->Error("bytes left over after the block's records");
    decoder_.reset();
    ASSIGN_OR_RETURN(bool loaded, LoadBlock());
    if (!loaded) return std::optional<Datum>();
  }
  ASSIGN_OR_RETURN(Datum datum, decoder_->Read(schema_));
  --block_records_left_;
  return std::optional<Datum>(std::move(datum));
}

Result<std::vector<Datum>> ContainerReader::ReadAll() {
  std::vector<Datum> records;
  while (true) {
    ASSIGN_OR_RETURN(std::optional<Datum> record, Next());
    if (!record) return records;
    records.push_back(std::move(*record));
  }
}

}  // namespace cqlite::avro
