// Avro object container files
// (https://avro.apache.org/docs/1.12.0/specification/#object-container-files):
// the magic "Obj\x01", a file metadata map (bytes values; `avro.schema` holds
// the schema JSON, `avro.codec` the block codec), a 16-byte sync marker, then
// blocks of records: a record count, the block's byte size, the (compressed)
// records, and the sync marker again.
//
// Codecs: "null" and "deflate". Avro's deflate is RAW deflate (RFC 1951, no
// zlib header or checksum), which is what Iceberg's Java writer produces;
// io/codec.h's kDeflate is a zlib stream, so the raw form lives here.
//
// ContainerWriter keeps the file in memory and writes, syncs and closes it
// in Close(); ContainerReader reads the whole file into memory at Open: both
// meant for metadata-sized files such as Iceberg manifests. Neither is
// thread-safe.
//
// Integrity: the format has no checksum, so ContainerWriter makes its sync
// marker carry one: 8 fixed tag bytes, 4 random ones, and the CRC-32 of the
// whole file computed with those last 4 bytes of every marker zero. Other
// readers see an ordinary marker; ContainerReader verifies the CRC-32 of
// files whose marker starts with the tag, so a damaged file is an error, not
// other records. (A fixed ContainerWriterOptions::sync_marker has none.)
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "avro/binary.h"
#include "avro/datum.h"
#include "avro/schema.h"
#include "io/file_system.h"
#include "util/status.h"

namespace cqlite::avro {

// The four bytes every container file starts with.
inline constexpr char kContainerMagic[4] = {'O', 'b', 'j', '\x01'};
inline constexpr size_t kSyncMarkerSize = 16;
// Reserved metadata keys (spec "Object Container Files").
inline constexpr char kSchemaKey[] = "avro.schema";
inline constexpr char kCodecKey[] = "avro.codec";

enum class ContainerCodec { kNull, kDeflate };

// "null" or "deflate", the `avro.codec` value.
const char* ContainerCodecName(ContainerCodec codec);

using SyncMarker = std::array<uint8_t, kSyncMarkerSize>;

struct ContainerWriterOptions {
  ContainerCodec codec = ContainerCodec::kDeflate;
  // User metadata, written after avro.schema and avro.codec in this order.
  // Keys starting with "avro." are reserved and rejected.
  std::vector<std::pair<std::string, std::string>> metadata;
  // A block is written once its encoded records reach this many bytes.
  size_t block_size = 64 * 1024;
  // Fixed marker for reproducible files (tests); random when absent.
  std::optional<SyncMarker> sync_marker;
};

class ContainerWriter {
 public:
  // Creates (truncates) `path` and writes the header.
  // InvalidArgument for an invalid schema or reserved metadata key.
  static Result<std::unique_ptr<ContainerWriter>> Open(FileSystem& fs, const std::string& path, Schema schema,
                                                       ContainerWriterOptions options = {});

  // Appends one record. REQUIRES: Close() not called yet.
  Status Append(const Datum& datum);
  // Writes the last block, syncs and closes the file; returns its length.
  Result<uint64_t> Close();

  const Schema& schema() const { return schema_; }

  // Only Open can make the tag: use Open.
  class PrivateTag {
    friend class ContainerWriter;
    PrivateTag() = default;
  };
  ContainerWriter(PrivateTag, std::unique_ptr<WritableFile> file, std::string path, Schema schema,
                  ContainerWriterOptions options, SyncMarker sync_marker);

 private:
  Status WriteBlock();
  void Write(std::string_view bytes);

  std::unique_ptr<WritableFile> file_;
  std::string path_;
  Schema schema_;
  ContainerWriterOptions options_;
  SyncMarker sync_marker_;
  std::string block_;  // encoded records not written yet
  int64_t block_records_ = 0;
  std::string pending_;              // the file, written out at Close
  std::vector<size_t> marker_ends_;  // where each sync marker in pending_ ends
  bool closed_ = false;
};

class ContainerReader {
 public:
  // Reads and checks the header. Corruption (naming the file and byte
  // offset) for a bad magic, metadata or schema; NotSupported for a codec
  // other than null and deflate.
  static Result<std::unique_ptr<ContainerReader>> Open(FileSystem& fs, const std::string& path);
  // The same over bytes already in memory; `path` names them in errors.
  static Result<std::unique_ptr<ContainerReader>> FromBytes(std::string bytes, const std::string& path);

  const Schema& schema() const { return schema_; }
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  // A metadata value, or nullopt.
  std::optional<std::string> Metadata(const std::string& key) const;
  ContainerCodec codec() const { return codec_; }

  // The next record, or nullopt after the last. Corruption for a bad block.
  Result<std::optional<Datum>> Next();
  // All records that remain.
  Result<std::vector<Datum>> ReadAll();

  // Only Open and FromBytes can make the tag: use them.
  class PrivateTag {
    friend class ContainerReader;
    PrivateTag() = default;
  };
  ContainerReader(PrivateTag, std::string bytes, std::string path) : bytes_(std::move(bytes)), path_(std::move(path)) {}

 private:
  Status ReadHeader();
  // Checks the file against the CRC-32 in its sync marker, when the marker
  // says it carries one (ContainerWriter's files).
  Status VerifyChecksum() const;
  // Loads the next block into block_; false at the end of the file.
  Result<bool> LoadBlock();

  std::string bytes_;
  std::string path_;
  Schema schema_;
  std::map<std::string, std::string> metadata_;
  ContainerCodec codec_ = ContainerCodec::kNull;
  SyncMarker sync_marker_{};
  size_t position_ = 0;  // next unread byte of bytes_ (a block start)
  // The current block's records, decompressed, and where it starts in the file.
  std::string block_;
  uint64_t block_file_offset_ = 0;
  std::unique_ptr<BinaryDecoder> decoder_;
  int64_t block_records_left_ = 0;
};

// Raw deflate (RFC 1951) as Avro's "deflate" codec uses it.
std::string RawDeflate(std::string_view input);
// Inflates raw deflate data; Corruption naming `context` when the data is bad
// or inflates to more than `max_output` bytes. Bytes after the end of the
// deflate stream are ignored (some writers leave part of a zlib trailer).
Result<std::string> RawInflate(std::string_view input, size_t max_output, const std::string& context);

}  // namespace cqlite::avro
