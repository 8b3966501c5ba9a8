#include "cassandra/data_file.h"

#include <algorithm>

#include "io/checksum.h"
#include "io/file_system.h"
#include "util/strings.h"

namespace cqlite {
namespace {

// Block size for uncompressed Data.db without CRC.db (and the largest CRC.db
// chunk size we accept is kMaxBlock).
constexpr uint32_t kDefaultBlock = 64 * 1024;
constexpr uint32_t kMaxBlock = 64 * 1024 * 1024;
// Largest compressed chunk_length accepted (Cassandra caps chunk_length well below this).
constexpr uint32_t kMaxChunkLength = 1u << 30;

Result<CodecKind> CodecForClass(const std::string& path, const std::string& cls) {
  std::string_view name = cls;
  size_t dot = name.rfind('.');
  if (dot != std::string_view::npos) name = name.substr(dot + 1);
  if (name == "LZ4Compressor") return CodecKind::kLz4;
  if (name == "SnappyCompressor") return CodecKind::kSnappy;
  if (name == "DeflateCompressor") return CodecKind::kDeflate;
  if (name == "ZstdCompressor") return CodecKind::kZstd;
  if (name == "NoopCompressor") return CodecKind::kNone;
  return Status::NotSupported(StrCat(path, ": compressor ", cls, " is not supported"));
}

uint32_t BigEndian32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) << 24 | static_cast<uint32_t>(p[1]) << 16 |
         static_cast<uint32_t>(p[2]) << 8 | static_cast<uint32_t>(p[3]);
}

// Reads Java's writeUTF: unsigned 16-bit length, then the bytes.
std::string ReadUtf(DataInput& in) {
  std::string out;
  in.ReadBytes(in.ReadU16(), &out);
  return out;
}

class CompressedSource final : public ChunkSource {
 public:
  CompressedSource(std::unique_ptr<RandomAccessFile> file, CompressionInfo info)
      : file_(std::move(file)), info_(std::move(info)), codec_(GetCodec(info_.codec)) {}

  Result<std::span<const uint8_t>> NextChunk() override {
    while (next_ < info_.chunk_offsets.size()) {
      size_t index = next_++;
      ASSIGN_OR_RETURN(size_t n, ReadChunk(index));
      position_ += n;
      if (n > 0) return std::span<const uint8_t>(uncompressed_.data(), n);
    }
    if (position_ != info_.data_length) {
      return Status::Corruption(StrCat(file_->path(), ": chunks hold ", position_,
                                       " uncompressed bytes, CompressionInfo.db says ", info_.data_length));
    }
    return std::span<const uint8_t>();
  }

  uint64_t TotalLength() const override { return info_.data_length; }

 private:
  Status ChunkError(size_t index, uint64_t offset, const std::string& what) const {
    return Status::Corruption(StrCat(file_->path(), ": chunk ", index, " at byte offset ", offset, ": ", what));
  }

  // Reads, verifies and decompresses chunk `index` into uncompressed_.
  Result<size_t> ReadChunk(size_t index) {
    uint64_t offset = info_.chunk_offsets[index];
    uint64_t end = index + 1 < info_.chunk_offsets.size() ? info_.chunk_offsets[index + 1] : file_->Size();
    if (end < offset || end - offset < 4) {
      return ChunkError(index, offset, StrCat("chunk ends at byte offset ", end, ", no room for its checksum"));
    }
    uint64_t stored = end - offset - 4;
    uint64_t limit = std::max<uint64_t>(codec_.MaxCompressedLength(info_.chunk_length) + 64,
                                        info_.chunk_length + uint64_t{64});
    if (stored > limit) {
      return ChunkError(index, offset, StrCat("stored length ", stored, " exceeds the largest possible ", limit,
                                              " for chunk length ", info_.chunk_length));
    }
    compressed_.resize(stored + 4);
    Status st = file_->ReadExactly(offset, compressed_);
    if (!st.ok()) return ChunkError(index, offset, st.message());
    auto body = std::span<const uint8_t>(compressed_.data(), stored);
    uint32_t want = BigEndian32(compressed_.data() + stored);
    uint32_t got = Crc32(body);
    if (want != got) {
      return ChunkError(index, offset, StrCat("CRC32 mismatch: stored ", want, ", computed ", got));
    }
    uint64_t remaining = info_.data_length - std::min(info_.data_length, position_);
    size_t expected = static_cast<size_t>(std::min<uint64_t>(info_.chunk_length, remaining));
    // Sized by what this chunk must hold, not by the declared chunk length
    // (up to 1 GiB), so a small file with a corrupt header stays small. The
    // codec sees exactly `expected` bytes of room: more output is corrupt.
    if (uncompressed_.size() < expected) {
      uncompressed_.clear();
      uncompressed_.resize(expected);
    }
    if (stored >= info_.max_compressed_length) {
      // Compression did not pay: the chunk holds the data itself, zero-padded
      // up to maxCompressedLength when it is the last, short one.
      if (stored < expected) {
        return ChunkError(index, offset, StrCat("uncompressed chunk holds ", stored, " bytes, expected ", expected));
      }
      std::copy_n(body.begin(), expected, uncompressed_.begin());
      return expected;
    }
    auto n = codec_.Decompress(body, std::span<uint8_t>(uncompressed_.data(), expected));
    if (!n.ok()) return ChunkError(index, offset, n.status().message());
    if (*n != expected) {
      return ChunkError(index, offset,
                        StrCat(CodecKindName(info_.codec), " chunk decompressed to ", *n, " bytes, expected ", expected,
                               " (", remaining, " of ", info_.data_length, " bytes left)"));
    }
    return *n;
  }

  std::unique_ptr<RandomAccessFile> file_;
  CompressionInfo info_;
  const Codec& codec_;
  std::vector<uint8_t> compressed_;
  std::vector<uint8_t> uncompressed_;
  size_t next_ = 0;
  uint64_t position_ = 0;
};

class UncompressedSource final : public ChunkSource {
 public:
  UncompressedSource(std::unique_ptr<RandomAccessFile> file, std::unique_ptr<RandomAccessFile> crc,
                     uint32_t block)
      : file_(std::move(file)), crc_(std::move(crc)), block_(block) {}

  Result<std::span<const uint8_t>> NextChunk() override {
    uint64_t size = file_->Size();
    if (position_ >= size) return std::span<const uint8_t>();
    size_t n = static_cast<size_t>(std::min<uint64_t>(block_, size - position_));
    buffer_.resize(n);
    uint64_t offset = position_;
    Status st = file_->ReadExactly(offset, buffer_);
    if (!st.ok()) return ChunkError(offset, st.message());
    if (crc_ != nullptr) {
      uint64_t at = 4 + 4 * index_;
      uint8_t stored[4];
      if (at + 4 > crc_->Size()) {
        return ChunkError(offset, StrCat(crc_->path(), " has no checksum for it (", crc_->Size(), " bytes)"));
      }
      Status read = crc_->ReadExactly(at, stored);
      if (!read.ok()) return ChunkError(offset, read.message());
      uint32_t want = BigEndian32(stored);
      uint32_t got = Crc32(buffer_);
      if (want != got) {
        return ChunkError(offset, StrCat("CRC32 mismatch with ", crc_->path(), ": stored ", want, ", computed ", got));
      }
    }
    ++index_;
    position_ += n;
    return std::span<const uint8_t>(buffer_);
  }

  uint64_t TotalLength() const override { return file_->Size(); }

 private:
  Status ChunkError(uint64_t offset, const std::string& what) const {
    return Status::Corruption(StrCat(file_->path(), ": chunk ", index_, " at byte offset ", offset, ": ", what));
  }

  std::unique_ptr<RandomAccessFile> file_;
  std::unique_ptr<RandomAccessFile> crc_;  // null without CRC.db
  uint32_t block_;
  std::vector<uint8_t> buffer_;
  uint64_t index_ = 0;
  uint64_t position_ = 0;
};

}  // namespace

Result<CompressionInfo> ReadCompressionInfo(FileSystem& fs, const std::string& path,
                                            const SSTableVersion& version) {
  ASSIGN_OR_RETURN(auto file, fs.OpenForRead(path));
  // CompressionInfo.db is small (8 bytes per chunk); read it whole.
  std::vector<uint8_t> bytes(file->Size());
  RETURN_IF_ERROR(file->ReadExactly(0, bytes));
  DataInput in(bytes, path);
  CompressionInfo info;
  info.compressor_class = ReadUtf(in);
  int32_t option_count = in.ReadI32();
  if (in.ok() && (option_count < 0 || static_cast<uint64_t>(option_count) * 4 > bytes.size())) {
    in.Fail(StrCat("bad compressor option count ", option_count));
  }
  for (int32_t i = 0; in.ok() && i < option_count; ++i) {
    std::string key = ReadUtf(in);
    std::string value = ReadUtf(in);
    info.parameters.emplace_back(std::move(key), std::move(value));
  }
  int32_t chunk_length = in.ReadI32();
  if (in.ok() && (chunk_length <= 0 || static_cast<uint32_t>(chunk_length) > kMaxChunkLength)) {
    in.Fail(StrCat("bad chunk length ", chunk_length));
  }
  info.chunk_length = static_cast<uint32_t>(chunk_length);
  if (version.HasMaxCompressedLength()) {
    int32_t max_compressed = in.ReadI32();
    if (in.ok() && max_compressed <= 0) in.Fail(StrCat("bad max compressed length ", max_compressed));
    info.max_compressed_length = static_cast<uint32_t>(max_compressed);
  }
  int64_t data_length = in.ReadI64();
  if (in.ok() && data_length < 0) in.Fail(StrCat("bad data length ", data_length));
  info.data_length = static_cast<uint64_t>(data_length);
  int32_t chunk_count = in.ReadI32();
  if (in.ok()) {
    uint64_t left = bytes.size() - in.position();
    uint64_t needed = info.data_length / info.chunk_length + (info.data_length % info.chunk_length != 0);
    if (chunk_count <= 0 || static_cast<uint64_t>(chunk_count) * 8 > left) {
      in.Fail(StrCat("bad chunk count ", chunk_count, " (", left, " bytes of offsets follow)"));
    } else if (static_cast<uint64_t>(chunk_count) < needed) {
      in.Fail(StrCat(chunk_count, " chunks cannot hold ", info.data_length, " bytes in chunks of ",
                     info.chunk_length));
    }
  }
  for (int32_t i = 0; in.ok() && i < chunk_count; ++i) {
    uint64_t offset = in.ReadU64();
    if (in.ok() && !info.chunk_offsets.empty() && offset < info.chunk_offsets.back()) {
      in.Fail(StrCat("chunk ", i, " offset ", offset, " is before chunk ", i - 1, "'s"));
    }
    info.chunk_offsets.push_back(offset);
  }
  if (!in.ok()) return in.status();
  if (!in.AtEnd()) {
    return Status::Corruption(StrCat(path, ": ", bytes.size() - in.position(),
                                     " unexpected bytes after the chunk offsets (at byte offset ", in.position(), ")"));
  }
  ASSIGN_OR_RETURN(info.codec, CodecForClass(path, info.compressor_class));
  return info;
}

Result<CompressionInfo> ReadCompressionInfo(FileSystem& fs, const std::string& path) {
  ASSIGN_OR_RETURN(SSTableFileName name, ParseSSTableFileName(BaseName(path)));
  return ReadCompressionInfo(fs, path, name.version);
}

Result<std::unique_ptr<ChunkSource>> OpenDataFile(FileSystem& fs, const std::string& prefix,
                                                  const SSTableVersion& version) {
  std::string data_path = prefix + "Data.db";
  std::string info_path = prefix + "CompressionInfo.db";
  std::string crc_path = prefix + "CRC.db";
  ASSIGN_OR_RETURN(auto data, fs.OpenForRead(data_path));
  if (fs.Exists(info_path)) {
    ASSIGN_OR_RETURN(CompressionInfo info, ReadCompressionInfo(fs, info_path, version));
    if (info.chunk_offsets.front() != 0 || info.chunk_offsets.back() > data->Size()) {
      return Status::Corruption(StrCat(data_path, ": chunk offsets in ", info_path, " run from ",
                                       info.chunk_offsets.front(), " to ", info.chunk_offsets.back(),
                                       " but the file has ", data->Size(), " bytes"));
    }
    return std::unique_ptr<ChunkSource>(std::make_unique<CompressedSource>(std::move(data), std::move(info)));
  }
  std::unique_ptr<RandomAccessFile> crc;
  uint32_t block = kDefaultBlock;
  if (fs.Exists(crc_path)) {
    ASSIGN_OR_RETURN(crc, fs.OpenForRead(crc_path));
    uint8_t head[4];
    RETURN_IF_ERROR(crc->ReadExactly(0, head));
    block = BigEndian32(head);
    if (block == 0 || block > kMaxBlock) {
      return Status::Corruption(StrCat(crc_path, ": bad chunk size ", block, " at byte offset 0"));
    }
  }
  return std::unique_ptr<ChunkSource>(std::make_unique<UncompressedSource>(std::move(data), std::move(crc), block));
}

}  // namespace cqlite
