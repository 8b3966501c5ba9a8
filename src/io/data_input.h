// Sequential, bounded-memory reading of a byte stream that arrives in chunks
// (decompressed SSTable chunks, file blocks, or one in-memory buffer).
//
// DataInput latches the first error: after a failed read every further read
// returns zero/empty and status() says what went wrong and at which byte
// offset. Parsers read a whole record and check ok() once, which keeps the
// hot path free of branches on Result<T>. Reads never allocate more than the
// stream has left, so a corrupt length cannot exhaust memory.
//
// Integer encodings are Cassandra's: big-endian fixed width, and the
// unsigned/signed (zig-zag) variable-length integers of
// org.apache.cassandra.utils.vint.VIntCoding.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>

#include "util/status.h"

namespace cqlite {

// Produces the stream's bytes one chunk at a time.
class ChunkSource {
 public:
  virtual ~ChunkSource() = default;
  // The next chunk; an empty span only at the end of the stream (a source
  // skips empty chunks itself). The bytes stay valid until the next call.
  virtual Result<std::span<const uint8_t>> NextChunk() = 0;
  // Total stream length in bytes, when known up front (else UINT64_MAX).
  virtual uint64_t TotalLength() const = 0;
};

// A ChunkSource over bytes the caller keeps alive for the source's lifetime.
std::unique_ptr<ChunkSource> MemoryChunkSource(std::span<const uint8_t> bytes);

// VIntCoding.readUnsignedVInt from memory with at least 9 readable bytes (the
// longest encoding) at p; sets *length to the bytes the value takes.
[[gnu::always_inline]] inline uint64_t DecodeUnsignedVInt(const uint8_t* p, size_t* length) {
  uint8_t first = p[0];
  if (first < 0x80) {
    *length = 1;
    return first;
  }
  // The number of leading one bits is the number of bytes that follow.
  int extra = first == 0xff ? 8 : __builtin_clz(static_cast<uint32_t>(static_cast<uint8_t>(~first)) << 24);
  // Load the eight bytes after the first at once and keep `extra` of them.
  uint64_t raw;
  std::memcpy(&raw, p + 1, 8);
  raw = __builtin_bswap64(raw);
  *length = 1 + static_cast<size_t>(extra);
  if (extra == 8) return raw;
  return (static_cast<uint64_t>(first & (0xffu >> extra)) << (8 * extra)) | (raw >> (64 - 8 * extra));
}

class DataInput {
 public:
  // `name` (usually the file path) prefixes every error message.
  DataInput(std::unique_ptr<ChunkSource> source, std::string name);
  // Reads from caller-owned memory.
  DataInput(std::span<const uint8_t> bytes, std::string name);

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  // Offset of the next byte in the stream.
  uint64_t position() const { return consumed_before_chunk_ + pos_; }
  // True when the stream has no more bytes (or an error was latched).
  bool AtEnd();

  uint8_t ReadU8() {
    if (pos_ < chunk_.size()) return chunk_[pos_++];
    uint8_t b = 0;
    ReadSlow(&b, 1);
    return b;
  }
  uint16_t ReadU16() { return static_cast<uint16_t>(ReadFixed(2)); }
  uint32_t ReadU32() { return static_cast<uint32_t>(ReadFixed(4)); }
  uint64_t ReadU64() { return ReadFixed(8); }
  int32_t ReadI32() { return static_cast<int32_t>(ReadU32()); }
  int64_t ReadI64() { return static_cast<int64_t>(ReadU64()); }

  uint64_t ReadUnsignedVInt() {
    // Fast paths: a one-byte value, or a whole value inside the current chunk.
    if (chunk_.size() - pos_ >= 9) {
      size_t length;
      uint64_t value = DecodeUnsignedVInt(chunk_.data() + pos_, &length);
      pos_ += length;
      return value;
    }
    if (pos_ < chunk_.size() && chunk_[pos_] < 0x80) return chunk_[pos_++];
    return ReadUnsignedVIntSlow();
  }
  int64_t ReadVInt() {
    uint64_t n = ReadUnsignedVInt();
    return static_cast<int64_t>(n >> 1) ^ -static_cast<int64_t>(n & 1);
  }
  // An unsigned vint that must fit in 32 bits (Cassandra's readUnsignedVInt32).
  uint32_t ReadUnsignedVInt32() {
    uint64_t v = ReadUnsignedVInt();
    if (v > UINT32_MAX) return FailVInt32(v);
    return static_cast<uint32_t>(v);
  }

  // Replaces *out with the next n bytes.
  void ReadString(uint64_t n, std::string* out) {
    out->clear();
    ReadBytes(n, out);
  }

  // Appends n bytes to *out.
  void ReadBytes(uint64_t n, std::string* out) {
    if (chunk_.size() - pos_ >= n) {
      out->append(reinterpret_cast<const char*>(chunk_.data() + pos_), n);
      pos_ += n;
      return;
    }
    ReadBytesSlow(n, out);
  }
  void Skip(uint64_t n);

  // The current chunk's bytes not read yet (empty at a chunk's end, or after
  // an error), for a parser that decodes in place. They stay valid until a
  // read goes past them.
  std::span<const uint8_t> Buffered() const { return chunk_.subspan(pos_); }
  // Marks the first n bytes of Buffered() as read.
  void Consume(size_t n) { pos_ += std::min(n, chunk_.size() - pos_); }

  // Latches a Corruption error at the current position (first error wins).
  void Fail(const std::string& what);
  // Latches a given error (first error wins).
  void Fail(Status status);

 private:
  uint64_t ReadFixed(int width) {
    if (chunk_.size() - pos_ >= static_cast<size_t>(width)) {
      uint64_t v = 0;
      for (int i = 0; i < width; ++i) v = (v << 8) | chunk_[pos_ + i];
      pos_ += width;
      return v;
    }
    uint8_t buf[8] = {0};
    ReadSlow(buf, width);
    uint64_t v = 0;
    for (int i = 0; i < width; ++i) v = (v << 8) | buf[i];
    return v;
  }
  // Copies n bytes, crossing chunk boundaries; zero-fills and latches an error
  // past the end.
  void ReadSlow(uint8_t* out, size_t n);
  uint64_t ReadUnsignedVIntSlow();
  void ReadBytesSlow(uint64_t n, std::string* out);
  uint32_t FailVInt32(uint64_t value);
  bool Refill();

  std::unique_ptr<ChunkSource> source_;
  std::string name_;
  std::span<const uint8_t> chunk_;
  size_t pos_ = 0;
  uint64_t consumed_before_chunk_ = 0;
  bool exhausted_ = false;
  Status status_;
};

}  // namespace cqlite
