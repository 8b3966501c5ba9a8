#include "cassandra/token.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "cassandra/value_format.h"
#include "util/strings.h"

namespace cqlite {

namespace {

uint64_t Rotl64(uint64_t v, int n) { return (v << n) | (v >> (64 - n)); }

uint64_t Fmix(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

uint64_t LittleEndian64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// A tail byte as Java's `(long) key.get(i)`: sign-extended.
uint64_t SignExtended(uint8_t b) {
  return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int8_t>(b)));
}

}  // namespace

std::array<int64_t, 2> CassandraMurmur3Hash(std::string_view key, int64_t seed) {
  const auto* data = reinterpret_cast<const uint8_t*>(key.data());
  const size_t length = key.size();
  const size_t nblocks = length >> 4;
  uint64_t h1 = static_cast<uint64_t>(seed);
  uint64_t h2 = static_cast<uint64_t>(seed);
  const uint64_t c1 = 0x87c37b91114253d5ULL;
  const uint64_t c2 = 0x4cf5ad432745937fULL;

  for (size_t i = 0; i < nblocks; ++i) {
    uint64_t k1 = LittleEndian64(data + i * 16);
    uint64_t k2 = LittleEndian64(data + i * 16 + 8);
    k1 *= c1;
    k1 = Rotl64(k1, 31);
    k1 *= c2;
    h1 ^= k1;
    h1 = Rotl64(h1, 27);
    h1 += h2;
    h1 = h1 * 5 + 0x52dce729;
    k2 *= c2;
    k2 = Rotl64(k2, 33);
    k2 *= c1;
    h2 ^= k2;
    h2 = Rotl64(h2, 31);
    h2 += h1;
    h2 = h2 * 5 + 0x38495ab5;
  }

  const uint8_t* tail = data + nblocks * 16;
  const size_t rest = length & 15;
  uint64_t k1 = 0;
  uint64_t k2 = 0;
  for (size_t i = rest; i > 8; --i) k2 ^= SignExtended(tail[i - 1]) << (8 * (i - 9));
  if (rest > 8) {
    k2 *= c2;
    k2 = Rotl64(k2, 33);
    k2 *= c1;
    h2 ^= k2;
  }
  for (size_t i = rest < 8 ? rest : 8; i > 0; --i) k1 ^= SignExtended(tail[i - 1]) << (8 * (i - 1));
  if (rest > 0) {
    k1 *= c1;
    k1 = Rotl64(k1, 31);
    k1 *= c2;
    h1 ^= k1;
  }

  h1 ^= length;
  h2 ^= length;
  h1 += h2;
  h2 += h1;
  h1 = Fmix(h1);
  h2 = Fmix(h2);
  h1 += h2;
  h2 += h1;
  return {static_cast<int64_t>(h1), static_cast<int64_t>(h2)};
}

int64_t Murmur3Token(std::string_view key) {
  if (key.empty()) return std::numeric_limits<int64_t>::min();
  int64_t h = CassandraMurmur3Hash(key)[0];
  // Murmur3Partitioner.normalize: Long.MIN_VALUE is reserved for the minimum.
  return h == std::numeric_limits<int64_t>::min() ? std::numeric_limits<int64_t>::max() : h;
}

// MD5 as specified in RFC 1321.
std::array<uint8_t, 16> Md5(std::string_view data) {
  static constexpr uint32_t kK[64] = {
      0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
      0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
      0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
      0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
      0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
      0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
      0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
      0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};
  static constexpr int kShift[64] = {7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                                     5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20,
                                     4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                                     6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};
  uint32_t a0 = 0x67452301, b0 = 0xefcdab89, c0 = 0x98badcfe, d0 = 0x10325476;

  // Padding: 0x80, zeros to 56 mod 64, then the bit length little-endian.
  std::string message(data);
  uint64_t bit_length = static_cast<uint64_t>(data.size()) * 8;
  message.push_back(static_cast<char>(0x80));
  while (message.size() % 64 != 56) message.push_back('\0');
  for (int i = 0; i < 8; ++i) message.push_back(static_cast<char>(bit_length >> (8 * i)));

  for (size_t chunk = 0; chunk < message.size(); chunk += 64) {
    uint32_t m[16];
    for (int i = 0; i < 16; ++i) {
      const auto* p = reinterpret_cast<const uint8_t*>(message.data() + chunk + 4 * i);
      m[i] = p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<uint32_t>(p[3]) << 24);
    }
    uint32_t a = a0, b = b0, c = c0, d = d0;
    for (int i = 0; i < 64; ++i) {
      uint32_t f;
      int g;
      if (i < 16) {
        f = (b & c) | (~b & d);
        g = i;
      } else if (i < 32) {
        f = (d & b) | (~d & c);
        g = (5 * i + 1) % 16;
      } else if (i < 48) {
        f = b ^ c ^ d;
        g = (3 * i + 5) % 16;
      } else {
        f = c ^ (b | ~d);
        g = (7 * i) % 16;
      }
      f = f + a + kK[i] + m[g];
      a = d;
      d = c;
      c = b;
      b = b + ((f << kShift[i]) | (f >> (32 - kShift[i])));
    }
    a0 += a;
    b0 += b;
    c0 += c;
    d0 += d;
  }
  std::array<uint8_t, 16> digest;
  uint32_t words[4] = {a0, b0, c0, d0};
  for (int w = 0; w < 4; ++w) {
    for (int i = 0; i < 4; ++i) digest[4 * w + i] = static_cast<uint8_t>(words[w] >> (8 * i));
  }
  return digest;
}

RandomToken RandomPartitionerToken(std::string_view key) {
  RandomToken token;
  if (key.empty()) {
    token.minimum = true;
    return token;
  }
  token.magnitude = Md5(key);
  if (token.magnitude[0] & 0x80) {
    // BigInteger.abs of a negative two's-complement value.
    for (uint8_t& b : token.magnitude) b = static_cast<uint8_t>(~b);
    for (size_t i = token.magnitude.size(); i-- > 0;) {
      if (++token.magnitude[i] != 0) break;
    }
  }
  return token;
}

std::string RandomTokenToString(const RandomToken& token) {
  if (token.minimum) return "-1";
  // A leading zero byte keeps 2^127 (0x80 00..) positive.
  std::string bytes(1, '\0');
  bytes.append(reinterpret_cast<const char*>(token.magnitude.data()), token.magnitude.size());
  return VarintToDecimal(bytes);
}

std::optional<Partitioner> PartitionerFromClassName(std::string_view class_name) {
  if (class_name == "org.apache.cassandra.dht.Murmur3Partitioner") return Partitioner::kMurmur3;
  if (class_name == "org.apache.cassandra.dht.RandomPartitioner") return Partitioner::kRandom;
  if (class_name == "org.apache.cassandra.dht.ByteOrderedPartitioner") return Partitioner::kByteOrdered;
  return std::nullopt;
}

const char* PartitionerClassName(Partitioner partitioner) {
  switch (partitioner) {
    case Partitioner::kMurmur3:
      return "org.apache.cassandra.dht.Murmur3Partitioner";
    case Partitioner::kRandom:
      return "org.apache.cassandra.dht.RandomPartitioner";
    case Partitioner::kByteOrdered:
      return "org.apache.cassandra.dht.ByteOrderedPartitioner";
  }
  return "";
}

std::string TokenString(Partitioner partitioner, std::string_view key) {
  switch (partitioner) {
    case Partitioner::kMurmur3:
      return std::to_string(Murmur3Token(key));
    case Partitioner::kRandom:
      return RandomTokenToString(RandomPartitionerToken(key));
    case Partitioner::kByteOrdered:
      break;
  }
  // BytesToken prints its bytes in lower-case hex.
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : key) {
    hex += kHex[c >> 4];
    hex += kHex[c & 15];
  }
  return hex;
}

Murmur3Range::Place Murmur3Range::Locate(std::string_view key) const {
  int64_t token = Murmur3Token(key);
  return token < first ? Place::kBefore : token > last ? Place::kAfter : Place::kInside;
}

std::vector<Murmur3Range> SplitMurmur3Ring(int count) {
  count = count < 1 ? 1 : count;
  // Offsets from INT64_MIN, in unsigned arithmetic: the ring spans 2^64 tokens.
  const unsigned __int128 ring = static_cast<unsigned __int128>(1) << 64;
  auto token = [](unsigned __int128 offset) { return static_cast<int64_t>(static_cast<uint64_t>(offset) ^ (uint64_t{1} << 63)); };
  std::vector<Murmur3Range> ranges;
  for (int i = 0; i < count; ++i) {
    unsigned __int128 first = ring * static_cast<unsigned>(i) / static_cast<unsigned>(count);
    unsigned __int128 end = ring * static_cast<unsigned>(i + 1) / static_cast<unsigned>(count);
    ranges.push_back({token(first), token(end - 1)});
  }
  return ranges;
}

Murmur3RangeSet::Murmur3RangeSet(std::vector<Murmur3Range> ranges) {
  std::sort(ranges.begin(), ranges.end(),
            [](const Murmur3Range& a, const Murmur3Range& b) { return a.first < b.first; });
  for (const Murmur3Range& r : ranges) {
    if (r.first > r.last) continue;
    // Overlapping or adjacent (the next token after last is first) ranges merge.
    if (!ranges_.empty() && (ranges_.back().last == INT64_MAX || r.first <= ranges_.back().last + 1)) {
      ranges_.back().last = std::max(ranges_.back().last, r.last);
      continue;
    }
    ranges_.push_back(r);
  }
}

Murmur3Range::Place Murmur3RangeSet::Locate(std::string_view key) const {
  int64_t token = Murmur3Token(key);
  // The first range that does not end before the token.
  auto it = std::lower_bound(ranges_.begin(), ranges_.end(), token,
                             [](const Murmur3Range& r, int64_t t) { return r.last < t; });
  if (it == ranges_.end()) return Murmur3Range::Place::kAfter;
  return it->Contains(token) ? Murmur3Range::Place::kInside : Murmur3Range::Place::kBefore;
}

bool Murmur3RangeSet::Intersects(int64_t first, int64_t last) const {
  auto it = std::lower_bound(ranges_.begin(), ranges_.end(), first,
                             [](const Murmur3Range& r, int64_t t) { return r.last < t; });
  return it != ranges_.end() && it->first <= last;
}

Murmur3RangeSet Murmur3RangeSet::Intersect(const Murmur3Range& other) const {
  std::vector<Murmur3Range> parts;
  for (const Murmur3Range& r : ranges_) {
    Murmur3Range part{std::max(r.first, other.first), std::min(r.last, other.last)};
    if (part.first <= part.last) parts.push_back(part);
  }
  return Murmur3RangeSet(std::move(parts));
}

bool Murmur3RangeSet::Intersects(const Murmur3RangeSet& other) const {
  for (const Murmur3Range& r : other.ranges_) {
    if (Intersects(r.first, r.last)) return true;
  }
  return false;
}

bool Murmur3RangeSet::operator==(const Murmur3RangeSet& other) const {
  if (ranges_.size() != other.ranges_.size()) return false;
  for (size_t i = 0; i < ranges_.size(); ++i) {
    if (ranges_[i].first != other.ranges_[i].first || ranges_[i].last != other.ranges_[i].last) return false;
  }
  return true;
}

std::string Murmur3RangeSet::ToString() const {
  std::vector<std::string> parts;
  for (const Murmur3Range& r : ranges_) parts.push_back(StrCat(r.first, ":", r.last));
  return Join(parts, ",");
}

Result<Murmur3RangeSet> Murmur3RangeSet::Parse(std::string_view text) {
  std::vector<Murmur3Range> ranges;
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument(StrCat("token ranges '", text, "': ", why,
                                          " (expected first:last[,first:last...], inclusive Murmur3 tokens)"));
  };
  if (text.empty()) return bad("empty");
  for (const std::string& part : Split(text, ',')) {
    size_t colon = part.find(':');
    if (colon == std::string::npos) return bad(StrCat("'", part, "' has no ':'"));
    std::optional<int64_t> first = ParseInt64(std::string_view(part).substr(0, colon));
    std::optional<int64_t> last = ParseInt64(std::string_view(part).substr(colon + 1));
    if (!first || !last) return bad(StrCat("'", part, "' is not two 64-bit integers"));
    if (*first > *last) return bad(StrCat("'", part, "' ends before it starts"));
    ranges.push_back({*first, *last});
  }
  return Murmur3RangeSet(std::move(ranges));
}

std::strong_ordering ComparePartitionKeys(Partitioner partitioner, std::string_view a, std::string_view b) {
  std::strong_ordering by_token = std::strong_ordering::equal;
  if (partitioner == Partitioner::kMurmur3) {
    by_token = Murmur3Token(a) <=> Murmur3Token(b);
  } else if (partitioner == Partitioner::kRandom) {
    RandomToken ta = RandomPartitionerToken(a), tb = RandomPartitionerToken(b);
    // The minimum token (-1) sorts before every other token.
    if (ta.minimum != tb.minimum) {
      by_token = ta.minimum ? std::strong_ordering::less : std::strong_ordering::greater;
    } else {
      by_token = ta.magnitude <=> tb.magnitude;
    }
  }
  if (by_token != 0) return by_token;
  // ByteBufferUtil.compareUnsigned (for ByteOrderedPartitioner, the token order too).
  size_t n = a.size() < b.size() ? a.size() : b.size();
  int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (c != 0) return c < 0 ? std::strong_ordering::less : std::strong_ordering::greater;
  return a.size() <=> b.size();
}

}  // namespace cqlite
