#include "iceberg/deletion_vector.h"

#include <algorithm>
#include <bit>

#include "iceberg/puffin.h"
#include "io/checksum.h"
#include "util/strings.h"

namespace cqlite::iceberg {
namespace {

// Roaring format spec (RoaringFormatSpec, "General layout"): the cookie of a
// bitmap without run containers is followed by a 4-byte container count; with
// run containers, its high 16 bits hold count - 1 and a bitset of which
// containers are runs follows. On-disk values.
constexpr uint32_t kSerialCookieNoRunContainers = 12346;
constexpr uint32_t kSerialCookie = 12347;
// Containers with at most this many values are arrays, more are bitmaps
// (unless marked as runs).
constexpr uint32_t kMaxArrayContainerCardinality = 4096;
constexpr size_t kBitmapContainerBytes = 8192;
// With run containers, offsets are written only for this many containers or more.
constexpr uint32_t kNoOffsetThreshold = 4;

void AppendLE(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}
void AppendBE32(std::string& out, uint32_t value) {
  for (int i = 3; i >= 0; --i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

std::span<const uint8_t> Bytes(std::string_view s) {
  return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

// One container: the low 16 bits of the values sharing a high 16-bit key.
struct Container {
  uint16_t key = 0;
  std::vector<uint16_t> values;  // ascending
};

size_t RunCount(const std::vector<uint16_t>& values) {
  size_t runs = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i == 0 || values[i] != values[i - 1] + 1) ++runs;
  }
  return runs;
}

// The 32-bit Roaring portable serialization of `values` (ascending, distinct).
void Serialize32(const std::vector<uint32_t>& values, std::string& out) {
  std::vector<Container> containers;
  for (uint32_t v : values) {
    const uint16_t key = static_cast<uint16_t>(v >> 16);
    if (containers.empty() || containers.back().key != key) containers.push_back(Container{key, {}});
    containers.back().values.push_back(static_cast<uint16_t>(v & 0xffff));
  }
  const uint32_t n = static_cast<uint32_t>(containers.size());
  std::vector<bool> is_run(n, false);
  std::vector<size_t> runs(n, 0);
  bool any_run = false;
  for (uint32_t i = 0; i < n; ++i) {
    const size_t card = containers[i].values.size();
    runs[i] = RunCount(containers[i].values);
    const size_t plain_bytes = card <= kMaxArrayContainerCardinality ? 2 * card : kBitmapContainerBytes;
    is_run[i] = 2 + 4 * runs[i] < plain_bytes;
    any_run = any_run || is_run[i];
  }

  const size_t start = out.size();
  if (any_run) {
    AppendLE(out, kSerialCookie | ((n - 1) << 16), 4);
    std::string run_bitset((n + 7) / 8, '\0');
    for (uint32_t i = 0; i < n; ++i) {
      if (is_run[i]) run_bitset[i / 8] = static_cast<char>(run_bitset[i / 8] | (1 << (i % 8)));
    }
    out += run_bitset;
  } else {
    AppendLE(out, kSerialCookieNoRunContainers, 4);
    AppendLE(out, n, 4);
  }
  for (const Container& c : containers) {
    AppendLE(out, c.key, 2);
    AppendLE(out, c.values.size() - 1, 2);
  }
  const bool with_offsets = !any_run || n >= kNoOffsetThreshold;
  const size_t offsets_at = out.size();
  if (with_offsets) out.append(4 * n, '\0');
  for (uint32_t i = 0; i < n; ++i) {
    if (with_offsets) {
      const uint32_t offset = static_cast<uint32_t>(out.size() - start);
      for (int b = 0; b < 4; ++b) out[offsets_at + 4 * i + b] = static_cast<char>((offset >> (8 * b)) & 0xff);
    }
    const std::vector<uint16_t>& vals = containers[i].values;
    if (is_run[i]) {
      AppendLE(out, runs[i], 2);
      size_t j = 0;
      while (j < vals.size()) {
        size_t k = j;
        while (k + 1 < vals.size() && vals[k + 1] == vals[k] + 1) ++k;
        AppendLE(out, vals[j], 2);
        AppendLE(out, k - j, 2);  // run length minus one
        j = k + 1;
      }
    } else if (vals.size() <= kMaxArrayContainerCardinality) {
      for (uint16_t v : vals) AppendLE(out, v, 2);
    } else {
      std::array<uint64_t, 1024> words{};
      for (uint16_t v : vals) words[v / 64] |= uint64_t{1} << (v % 64);
      for (uint64_t w : words) AppendLE(out, w, 8);
    }
  }
}

// Reads little-endian integers from a blob, failing with the byte offset.
class BlobCursor {
 public:
  BlobCursor(std::string_view data, const std::string& where) : data_(data), where_(where) {}

  size_t position() const { return pos_; }
  size_t remaining() const { return data_.size() - pos_; }

  Status Error(const std::string& what, size_t at) const {
    return Status::Corruption(where_ + " at byte " + std::to_string(at) +
                              " of the deletion vector blob: " + what);
  }
  Status Need(size_t bytes, const char* what) const {
    if (bytes > remaining()) {
      return Error(std::string("blob ends inside ") + what + " (" + std::to_string(bytes) +
                       " bytes needed, " + std::to_string(remaining()) + " left)",
                   pos_);
    }
    return Status::OK();
  }
  Result<uint64_t> ReadLE(int bytes, const char* what) {
    RETURN_IF_ERROR(Need(static_cast<size_t>(bytes), what));
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i)
      v |= static_cast<uint64_t>(static_cast<uint8_t>(data_[pos_ + i])) << (8 * i);
    pos_ += static_cast<size_t>(bytes);
    return v;
  }
  Result<std::string_view> ReadBytes(size_t bytes, const char* what) {
    RETURN_IF_ERROR(Need(bytes, what));
    std::string_view v = data_.substr(pos_, bytes);
    pos_ += bytes;
    return v;
  }
  Status Skip(size_t bytes, const char* what) {
    RETURN_IF_ERROR(Need(bytes, what));
    pos_ += bytes;
    return Status::OK();
  }

 private:
  std::string_view data_;
  const std::string& where_;
  size_t pos_ = 0;
};

// Reads one 32-bit Roaring bitmap (portable format) and appends its values,
// with `high` as their upper 32 bits, to `out`.
Status Deserialize32(BlobCursor& in, uint64_t high, std::vector<int64_t>& out) {
  const size_t bitmap_at = in.position();
  ASSIGN_OR_RETURN(uint64_t cookie, in.ReadLE(4, "a 32-bit bitmap's cookie"));
  uint32_t n = 0;
  bool has_runs = false;
  std::string_view run_bitset;
  if ((cookie & 0xffff) == kSerialCookie) {
    has_runs = true;
    n = static_cast<uint32_t>(cookie >> 16) + 1;
    ASSIGN_OR_RETURN(run_bitset, in.ReadBytes((n + 7) / 8, "the run container bitset"));
  } else if (cookie == kSerialCookieNoRunContainers) {
    ASSIGN_OR_RETURN(uint64_t count, in.ReadLE(4, "the container count"));
    if (count > 65536)
      return in.Error("container count " + std::to_string(count) + " is above 65536", bitmap_at + 4);
    n = static_cast<uint32_t>(count);
  } else {
    return in.Error("unknown Roaring cookie " + std::to_string(cookie), bitmap_at);
  }
  const size_t header_at = in.position();
  std::vector<std::pair<uint32_t, uint32_t>> headers;  // key, cardinality
  RETURN_IF_ERROR(in.Need(size_t{4} * n, "the container headers"));
  for (uint32_t i = 0; i < n; ++i) {
    ASSIGN_OR_RETURN(uint64_t key, in.ReadLE(2, "a container key"));
    ASSIGN_OR_RETURN(uint64_t card_minus_one, in.ReadLE(2, "a container cardinality"));
    if (!headers.empty() && key <= headers.back().first) {
      return in.Error("container keys are not ascending", header_at + 4 * i);
    }
    headers.emplace_back(static_cast<uint32_t>(key), static_cast<uint32_t>(card_minus_one) + 1);
  }
  if (!has_runs || n >= kNoOffsetThreshold) RETURN_IF_ERROR(in.Skip(size_t{4} * n, "the container offsets"));

  for (uint32_t i = 0; i < n; ++i) {
    const size_t container_at = in.position();
    const uint64_t base = (high << 32) | (static_cast<uint64_t>(headers[i].first) << 16);
    const uint32_t card = headers[i].second;
    const size_t before = out.size();
    const bool is_run = has_runs && (static_cast<uint8_t>(run_bitset[i / 8]) >> (i % 8)) & 1;
    if (is_run) {
      ASSIGN_OR_RETURN(uint64_t run_count, in.ReadLE(2, "a run container's run count"));
      RETURN_IF_ERROR(in.Need(4 * run_count, "a run container's runs"));
      int64_t next_free = 0;  // the smallest value the next run may start at
      for (uint64_t r = 0; r < run_count; ++r) {
        ASSIGN_OR_RETURN(uint64_t run_start, in.ReadLE(2, "a run start"));
        ASSIGN_OR_RETURN(uint64_t length_minus_one, in.ReadLE(2, "a run length"));
        const int64_t first = static_cast<int64_t>(run_start);
        const int64_t last = first + static_cast<int64_t>(length_minus_one);
        if (first < next_free || last > 0xffff) {
          return in.Error("run " + std::to_string(r) + " overlaps the previous one or passes 65535",
                          container_at);
        }
        if (static_cast<int64_t>(out.size() - before) + (last - first + 1) > card) {
          return in.Error("run container holds more values than its cardinality " + std::to_string(card),
                          container_at);
        }
        for (int64_t v = first; v <= last; ++v)
          out.push_back(static_cast<int64_t>(base + static_cast<uint64_t>(v)));
        next_free = last + 1;
      }
    } else if (card <= kMaxArrayContainerCardinality) {
      ASSIGN_OR_RETURN(std::string_view raw, in.ReadBytes(size_t{2} * card, "an array container"));
      int64_t previous = -1;
      for (uint32_t j = 0; j < card; ++j) {
        const int64_t v = static_cast<uint8_t>(raw[2 * j]) | (static_cast<uint8_t>(raw[2 * j + 1]) << 8);
        if (v <= previous) return in.Error("array container values are not ascending", container_at + 2 * j);
        out.push_back(static_cast<int64_t>(base + static_cast<uint64_t>(v)));
        previous = v;
      }
    } else {
      ASSIGN_OR_RETURN(std::string_view raw, in.ReadBytes(kBitmapContainerBytes, "a bitmap container"));
      for (size_t w = 0; w < 1024; ++w) {
        uint64_t word = 0;
        for (int b = 0; b < 8; ++b)
          word |= static_cast<uint64_t>(static_cast<uint8_t>(raw[8 * w + b])) << (8 * b);
        while (word != 0) {
          const int bit = std::countr_zero(word);
          out.push_back(static_cast<int64_t>(base + w * 64 + static_cast<uint64_t>(bit)));
          word &= word - 1;
        }
      }
    }
    if (out.size() - before != card) {
      return in.Error("container holds " + std::to_string(out.size() - before) + " values, its header says " +
                          std::to_string(card),
                      container_at);
    }
  }
  return Status::OK();
}

}  // namespace

Status DeletionVector::Delete(int64_t position) {
  if (position < 0 || position > kMaxDeletionVectorPosition) {
    return Status::InvalidArgument("deletion vector position " + std::to_string(position) +
                                   " is outside 0.." + std::to_string(kMaxDeletionVectorPosition));
  }
  if (positions_.empty() || position > positions_.back()) {
    positions_.push_back(position);
    return Status::OK();
  }
  auto it = std::lower_bound(positions_.begin(), positions_.end(), position);
  if (*it != position) positions_.insert(it, position);
  return Status::OK();
}

bool DeletionVector::IsDeleted(int64_t position) const {
  return std::binary_search(positions_.begin(), positions_.end(), position);
}

std::string DeletionVector::SerializeBlob() const {
  // Magic and vector first, then the length in front and the CRC behind.
  std::string body(kDeletionVectorMagic.begin(), kDeletionVectorMagic.end());
  size_t i = 0;
  std::vector<std::pair<uint32_t, std::vector<uint32_t>>> bitmaps;
  while (i < positions_.size()) {
    const uint32_t key = static_cast<uint32_t>(static_cast<uint64_t>(positions_[i]) >> 32);
    std::vector<uint32_t> low;
    while (i < positions_.size() &&
           static_cast<uint32_t>(static_cast<uint64_t>(positions_[i]) >> 32) == key) {
      low.push_back(static_cast<uint32_t>(positions_[i] & 0xffffffff));
      ++i;
    }
    bitmaps.emplace_back(key, std::move(low));
  }
  AppendLE(body, bitmaps.size(), 8);
  for (const auto& [key, low] : bitmaps) {
    AppendLE(body, key, 4);
    Serialize32(low, body);
  }
  std::string blob;
  blob.reserve(body.size() + 8);
  AppendBE32(blob, static_cast<uint32_t>(body.size()));
  blob += body;
  AppendBE32(blob, Crc32(Bytes(body)));
  return blob;
}

Result<DeletionVector> DeletionVector::DeserializeBlob(std::string_view blob, const std::string& where) {
  auto error = [&](const std::string& what, size_t at) {
    return Status::Corruption(where + " at byte " + std::to_string(at) +
                              " of the deletion vector blob: " + what);
  };
  if (blob.size() < 4 + 4 + 8 + 4) {
    return error(
        "blob of " + std::to_string(blob.size()) + " bytes is shorter than the 20 of an empty vector", 0);
  }
  uint32_t length = 0;
  for (int i = 0; i < 4; ++i) length = (length << 8) | static_cast<uint8_t>(blob[i]);
  if (length != blob.size() - 8) {
    return error("length field says " + std::to_string(length) +
                     " bytes of magic and vector, the blob holds " + std::to_string(blob.size() - 8),
                 0);
  }
  const std::string_view body = blob.substr(4, length);
  if (!std::equal(kDeletionVectorMagic.begin(), kDeletionVectorMagic.end(), body.begin(),
                  [](uint8_t m, char c) { return m == static_cast<uint8_t>(c); })) {
    return error("no magic D1 D3 39 64", 4);
  }
  uint32_t stored_crc = 0;
  for (int i = 0; i < 4; ++i) stored_crc = (stored_crc << 8) | static_cast<uint8_t>(blob[4 + length + i]);
  const uint32_t computed_crc = Crc32(Bytes(body));
  if (stored_crc != computed_crc) {
    return error("CRC-32 " + std::to_string(stored_crc) + " does not match the computed " +
                     std::to_string(computed_crc),
                 4 + length);
  }

  // Offsets in errors below are within the blob: the vector starts at byte 8.
  const std::string vector_where = where;
  BlobCursor in(blob.substr(0, 4 + length), vector_where);
  RETURN_IF_ERROR(in.Skip(8, "length and magic"));
  ASSIGN_OR_RETURN(uint64_t count, in.ReadLE(8, "the bitmap count"));
  if (count > in.remaining() / 8) return in.Error("bitmap count " + std::to_string(count) + " cannot fit", 8);
  DeletionVector vector;
  int64_t previous_key = -1;
  for (uint64_t b = 0; b < count; ++b) {
    const size_t key_at = in.position();
    ASSIGN_OR_RETURN(uint64_t key, in.ReadLE(4, "a bitmap key"));
    if (static_cast<int64_t>(key) <= previous_key) return in.Error("bitmap keys are not ascending", key_at);
    if (key > 0x7fffffff)
      return in.Error("bitmap key " + std::to_string(key) + " makes negative positions", key_at);
    previous_key = static_cast<int64_t>(key);
    RETURN_IF_ERROR(Deserialize32(in, key, vector.positions_));
  }
  if (in.remaining() != 0) {
    return in.Error(std::to_string(in.remaining()) + " bytes follow the last bitmap", in.position());
  }
  return vector;
}

Result<std::vector<DeletionVectorFile>> WriteDeletionVectorFile(
    FileSystem& fs, const std::string& path,
    const std::vector<std::pair<std::string, DeletionVector>>& vectors) {
  ASSIGN_OR_RETURN(auto writer, PuffinWriter::Open(fs, path));
  std::vector<DeletionVectorFile> files;
  for (const auto& [data_file, vector] : vectors) {
    PuffinBlob blob;
    blob.type = std::string(kDeletionVectorBlobType);
    blob.fields = {kRowPositionFieldId};
    blob.snapshot_id = -1;
    blob.sequence_number = -1;
    blob.properties[std::string(kReferencedDataFileProperty)] = data_file;
    blob.properties[std::string(kCardinalityProperty)] = std::to_string(vector.Cardinality());
    blob.data = vector.SerializeBlob();
    ASSIGN_OR_RETURN(PuffinBlobMetadata written, writer->Add(blob));
    DeletionVectorFile file;
    file.file_path = path;
    file.referenced_data_file = data_file;
    file.content_offset = written.offset;
    file.content_size_in_bytes = written.length;
    file.record_count = vector.Cardinality();
    files.push_back(std::move(file));
  }
  ASSIGN_OR_RETURN(int64_t size, writer->Finish({{"created-by", "cqlite"}}));
  for (DeletionVectorFile& file : files) file.file_size_in_bytes = size;
  return files;
}

Result<DeletionVector> ReadDeletionVector(FileSystem& fs, const std::string& path, int64_t offset, int64_t length) {
  ASSIGN_OR_RETURN(auto reader, PuffinReader::Open(fs, path));
  PuffinBlobMetadata blob;
  blob.offset = offset;
  blob.length = length;
  ASSIGN_OR_RETURN(std::string bytes, reader->ReadBlob(blob));
  return DeletionVector::DeserializeBlob(bytes, StrCat(path, " at offset ", offset));
}

}  // namespace cqlite::iceberg
