// Deletion vectors of Iceberg v3: the set of deleted row positions of one
// data file, kept as a `deletion-vector-v1` blob in a Puffin file
// (https://iceberg.apache.org/puffin-spec/#deletion-vector-v1-blob-type,
// https://iceberg.apache.org/spec/#deletion-vectors).
//
// Blob layout (docs/formats/puffin_deletion_vectors.md):
//   4 bytes big-endian  length of magic + vector
//   4 bytes             magic D1 D3 39 64
//   vector              64-bit Roaring bitmap, "portable" format: 8-byte
//                       little-endian count of 32-bit bitmaps, then for each
//                       (ascending unsigned key) a 4-byte little-endian key
//                       (the position's high 32 bits) and a 32-bit Roaring
//                       bitmap of the low 32 bits in the Roaring format spec's
//                       portable serialization
//                       (https://github.com/RoaringBitmap/RoaringFormatSpec)
//   4 bytes big-endian  CRC-32 of magic + vector
//
// We write array, bitmap and run containers, whichever is smallest (the rule
// the Roaring libraries follow), and read all three. Value types,
// thread-compatible.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/file_system.h"
#include "util/status.h"

namespace cqlite::iceberg {

inline constexpr std::string_view kDeletionVectorBlobType = "deletion-vector-v1";
// Puffin spec, deletion-vector-v1: "A 4-byte magic sequence, D1 D3 39 64".
inline constexpr std::array<uint8_t, 4> kDeletionVectorMagic = {0xD1, 0xD3, 0x39, 0x64};
// Blob properties the Puffin spec requires of a deletion-vector-v1 blob.
inline constexpr std::string_view kReferencedDataFileProperty = "referenced-data-file";
inline constexpr std::string_view kCardinalityProperty = "cardinality";
// The blob's "fields": the row position metadata column `_pos` (spec:
// "Reserved Field IDs"), as Iceberg Java's DV writer lists it.
inline constexpr int32_t kRowPositionFieldId = 2147483645;
// The largest position Iceberg Java's RoaringPositionBitmap accepts
// (MAX_POSITION: key Integer.MAX_VALUE - 1, low half 0x80000000); the spec
// itself allows any position whose most significant bit is 0.
inline constexpr int64_t kMaxDeletionVectorPosition = 0x7FFFFFFE80000000LL;

class DeletionVector {
 public:
  // Marks `position` deleted. InvalidArgument for a negative position or one
  // above kMaxDeletionVectorPosition. Ascending calls are cheapest.
  Status Delete(int64_t position);

  bool IsDeleted(int64_t position) const;
  // The number of deleted positions.
  int64_t Cardinality() const { return static_cast<int64_t>(positions_.size()); }
  bool empty() const { return positions_.empty(); }
  // The deleted positions, ascending.
  const std::vector<int64_t>& Positions() const { return positions_; }

  // The whole deletion-vector-v1 blob: length, magic, vector, CRC.
  std::string SerializeBlob() const;
  // Parses a deletion-vector-v1 blob. `where` names it in errors (file and
  // blob offset); errors add the byte offset within the blob.
  static Result<DeletionVector> DeserializeBlob(std::string_view blob, const std::string& where);

  bool operator==(const DeletionVector&) const = default;

 private:
  std::vector<int64_t> positions_;  // ascending, distinct
};

// What a v3 manifest entry says of a deletion vector
// (https://iceberg.apache.org/spec/#manifests: content 1, file_format "puffin").
struct DeletionVectorFile {
  std::string file_path;              // the Puffin file
  int64_t file_size_in_bytes = 0;     // of the Puffin file
  std::string referenced_data_file;   // the data file whose rows it deletes
  int64_t content_offset = 0;         // the blob's offset in the Puffin file
  int64_t content_size_in_bytes = 0;  // the blob's length
  int64_t record_count = 0;           // the vector's cardinality

  bool operator==(const DeletionVectorFile&) const = default;
};

// Writes one Puffin file at `path` holding one deletion-vector-v1 blob per
// (data file, vector) pair, in the given order, and returns their manifest
// descriptions. Snapshot id and sequence number are -1 as the spec asks;
// fields are [kRowPositionFieldId].
// REQUIRES: each data file appears once.
Result<std::vector<DeletionVectorFile>> WriteDeletionVectorFile(
    FileSystem& fs, const std::string& path,
    const std::vector<std::pair<std::string, DeletionVector>>& vectors);

// The deletion vector a manifest entry names: the blob of `length` bytes at
// `offset` in the Puffin file `path`. Errors name the file and the offset.
Result<DeletionVector> ReadDeletionVector(FileSystem& fs, const std::string& path, int64_t offset, int64_t length);

}  // namespace cqlite::iceberg
