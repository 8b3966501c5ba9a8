// Helpers shared by the libFuzzer targets: splitting one fuzz input into
// several files, picking an SSTable version from a byte, and repairing the
// checksums of a fuzzed Statistics.db so that mutations reach the parser
// behind them.
//
// Multi-file inputs are laid out as blocks: a 4-byte little-endian length,
// then that many bytes (clamped to what is left); the last file takes all
// remaining bytes. scripts/fuzz_seeds.py writes seeds in the same layout.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cassandra/sstable_version.h"
#include "io/checksum.h"

namespace cqlite::fuzz {

class InputSplitter {
 public:
  InputSplitter(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool empty() const { return pos_ >= size_; }
  uint8_t TakeByte() { return pos_ < size_ ? data_[pos_++] : 0; }
  // A length-prefixed block.
  std::string TakeBlock() {
    uint32_t length = 0;
    for (int i = 0; i < 4; ++i) length |= static_cast<uint32_t>(TakeByte()) << (8 * i);
    size_t n = std::min<size_t>(length, size_ - pos_);
    std::string out(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return out;
  }
  std::string TakeRest() {
    std::string out(reinterpret_cast<const char*>(data_ + pos_), size_ - pos_);
    pos_ = size_;
    return out;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// The versions CQLite reads, in the order seeds encode them (index = byte % 10).
inline const std::vector<SSTableVersion>& AllVersions() {
  static const std::vector<SSTableVersion> versions = [] {
    std::vector<SSTableVersion> out;
    for (const char* name : {"ma", "mb", "mc", "md", "me", "na", "nb", "nc", "oa"}) {
      out.push_back(*MakeSSTableVersion(name, SSTableFormat::kBig));
    }
    out.push_back(*MakeSSTableVersion("da", SSTableFormat::kBti));
    return out;
  }();
  return versions;
}

inline uint32_t ReadBigEndian32(const std::string& s, size_t at) {
  return (static_cast<uint32_t>(static_cast<uint8_t>(s[at])) << 24) |
         (static_cast<uint32_t>(static_cast<uint8_t>(s[at + 1])) << 16) |
         (static_cast<uint32_t>(static_cast<uint8_t>(s[at + 2])) << 8) | static_cast<uint8_t>(s[at + 3]);
}

inline void WriteBigEndian32(std::string& s, size_t at, uint32_t v) {
  s[at] = static_cast<char>(v >> 24);
  s[at + 1] = static_cast<char>(v >> 16);
  s[at + 2] = static_cast<char>(v >> 8);
  s[at + 3] = static_cast<char>(v);
}

inline uint32_t Crc(const std::string& s, size_t begin, size_t end) {
  return Crc32Extend(0, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()) + begin, end - begin));
}

// Rewrites the checksums of a Statistics.db written with checksums (`na`+):
// the section count's, the table of contents', and each section's trailer.
// Leaves the bytes alone where the layout makes no sense.
inline void FixStatisticsChecksums(std::string& s) {
  if (s.size() < 8) return;
  int32_t count = static_cast<int32_t>(ReadBigEndian32(s, 0));
  if (count <= 0 || count > 16) return;
  WriteBigEndian32(s, 4, Crc(s, 0, 4));
  size_t toc_end = 8 + 8 * static_cast<size_t>(count);
  if (s.size() < toc_end + 4) return;
  uint32_t toc_crc = Crc32Extend(
      Crc(s, 0, 4), std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()) + 8, toc_end - 8));
  WriteBigEndian32(s, toc_end, toc_crc);
  std::vector<size_t> offsets;
  for (int32_t i = 0; i < count; ++i) {
    int32_t offset = static_cast<int32_t>(ReadBigEndian32(s, 8 + 8 * i + 4));
    if (offset < 0 || static_cast<size_t>(offset) < toc_end + 4 || static_cast<size_t>(offset) > s.size()) return;
    offsets.push_back(static_cast<size_t>(offset));
  }
  std::sort(offsets.begin(), offsets.end());
  for (size_t i = 0; i < offsets.size(); ++i) {
    size_t end = i + 1 < offsets.size() ? offsets[i + 1] : s.size();
    if (end - offsets[i] < 4) continue;
    WriteBigEndian32(s, end - 4, Crc(s, offsets[i], end - 4));
  }
}

}  // namespace cqlite::fuzz
