// Puffin files: a sequence of blobs followed by a JSON footer that says where
// each blob is and what it holds (https://iceberg.apache.org/puffin-spec/).
// Iceberg v3 keeps deletion vectors in them (see iceberg/deletion_vector.h).
//
// Layout: Magic Blob1 ... BlobN Footer, where Footer is
// Magic FooterPayload FooterPayloadSize Flags Magic; Magic is "PFA1",
// FooterPayloadSize a 4-byte little-endian signed integer, Flags 4 bytes
// (byte 0 bit 0: payload compressed). The payload is a JSON FileMetadata
// object {"blobs": [BlobMetadata...], "properties": {...}}.
//
// We write blobs and footer uncompressed. The reader accepts uncompressed
// footers and blobs and answers NotSupported, naming the file, for compressed
// ones. Both go through a FileSystem. Writer and reader are
// thread-compatible.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/file_system.h"
#include "util/status.h"

namespace cqlite::iceberg {

// "PFA1": Puffin, Fratercula arctica, version 1 (spec: "File structure").
inline constexpr std::array<uint8_t, 4> kPuffinMagic = {0x50, 0x46, 0x41, 0x31};
// Bit 0 of flag byte 0: the footer payload is compressed (spec: "Footer structure").
inline constexpr uint8_t kPuffinFooterCompressedFlag = 0x01;
// Magic + FooterPayloadSize + Flags + Magic around the footer payload.
inline constexpr size_t kPuffinFooterFixedBytes = 4 + 4 + 4 + 4;

// One BlobMetadata object of the footer (spec: "BlobMetadata").
struct PuffinBlobMetadata {
  std::string type;
  std::vector<int32_t> fields;  // field ids the blob was computed for
  int64_t snapshot_id = -1;
  int64_t sequence_number = -1;
  int64_t offset = 0;                            // where the blob's bytes start in the file
  int64_t length = 0;                            // how many bytes it takes
  std::optional<std::string> compression_codec;  // absent: uncompressed
  std::map<std::string, std::string> properties;

  bool operator==(const PuffinBlobMetadata&) const = default;
};

// A blob to write: everything of its metadata but where it lands.
struct PuffinBlob {
  std::string type;
  std::vector<int32_t> fields;
  int64_t snapshot_id = -1;
  int64_t sequence_number = -1;
  std::map<std::string, std::string> properties;
  std::string data;  // written as is (uncompressed)
};

// Writes one Puffin file. Open writes the leading magic; Add appends blobs;
// Finish writes the footer, syncs and closes. A writer abandoned before Finish
// leaves a file without a footer, which readers reject.
class PuffinWriter {
 public:
  static Result<std::unique_ptr<PuffinWriter>> Open(FileSystem& fs, const std::string& path);

  // Appends the blob's bytes; returns its metadata as the footer will list it.
  // REQUIRES: Finish not yet called.
  Result<PuffinBlobMetadata> Add(const PuffinBlob& blob);

  // Writes the footer with file `properties` (e.g. "created-by") and returns
  // the file's size in bytes. REQUIRES: called once.
  Result<int64_t> Finish(const std::map<std::string, std::string>& properties);

  const std::string& path() const { return path_; }

 private:
  PuffinWriter(std::string path, std::unique_ptr<WritableFile> file)
      : path_(std::move(path)), file_(std::move(file)) {}
  Status Write(std::string_view bytes);

  std::string path_;
  std::unique_ptr<WritableFile> file_;
  int64_t written_ = 0;
  bool finished_ = false;
  std::vector<PuffinBlobMetadata> blobs_;
};

// Reads the footer of a Puffin file at Open and blobs on demand.
class PuffinReader {
 public:
  static Result<std::unique_ptr<PuffinReader>> Open(FileSystem& fs, const std::string& path);

  const std::vector<PuffinBlobMetadata>& blobs() const { return blobs_; }
  const std::map<std::string, std::string>& properties() const { return properties_; }
  int64_t file_size() const { return static_cast<int64_t>(file_->Size()); }
  const std::string& path() const { return file_->path(); }

  // The bytes of `blob` (one of blobs()). NotSupported for a compressed blob.
  Result<std::string> ReadBlob(const PuffinBlobMetadata& blob) const;

 private:
  explicit PuffinReader(std::unique_ptr<RandomAccessFile> file) : file_(std::move(file)) {}
  Status ReadFooter();

  std::unique_ptr<RandomAccessFile> file_;
  std::vector<PuffinBlobMetadata> blobs_;
  std::map<std::string, std::string> properties_;
};

// The footer payload JSON for `blobs` and `properties`, and its parse.
// `path` names the file in errors; `payload_offset` is where the payload
// starts in it.
std::string PuffinFooterJson(const std::vector<PuffinBlobMetadata>& blobs,
                             const std::map<std::string, std::string>& properties);
Status ParsePuffinFooterJson(std::string_view payload, const std::string& path, int64_t payload_offset,
                             std::vector<PuffinBlobMetadata>* blobs,
                             std::map<std::string, std::string>* properties);

}  // namespace cqlite::iceberg
