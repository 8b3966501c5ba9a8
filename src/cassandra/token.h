// Partitioner tokens: where Cassandra places a partition key on the ring and
// therefore the order in which partitions appear in an SSTable.
//
//  - Murmur3Partitioner: the first 64-bit half of Cassandra's variant of
//    MurmurHash3_x64_128 (seed 0). The variant sign-extends the trailing
//    (non-block) bytes, so it differs from the reference hash for keys whose
//    length is not a multiple of 16 and whose tail has a byte >= 0x80. A hash
//    of Long.MIN_VALUE becomes Long.MAX_VALUE; the empty key has the minimum
//    token Long.MIN_VALUE.
//  - RandomPartitioner: abs(new BigInteger(md5(key))), a value in
//    [0, 2^127]; the empty key has the minimum token -1.
//  - ByteOrderedPartitioner: the key bytes themselves, compared unsigned.
//
// Partitions are ordered by token, then by the unsigned bytes of the key
// (DecoratedKey.compareTo). All functions are pure and thread-safe.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace cqlite {

enum class Partitioner { kMurmur3, kRandom, kByteOrdered };

// The partitioner a Java class name (as Statistics.db records it) names, or
// nullopt for one whose key order CQLite does not know.
std::optional<Partitioner> PartitionerFromClassName(std::string_view class_name);
// The Java class name of `partitioner`.
const char* PartitionerClassName(Partitioner partitioner);

// org.apache.cassandra.utils.MurmurHash.hash3_x64_128 with seed `seed`:
// both 64-bit halves.
std::array<int64_t, 2> CassandraMurmur3Hash(std::string_view key, int64_t seed = 0);

// Murmur3Partitioner.getToken.
int64_t Murmur3Token(std::string_view key);

// The MD5 digest (RFC 1321).
std::array<uint8_t, 16> Md5(std::string_view data);

// A RandomPartitioner token: the absolute value of the digest read as a
// signed 128-bit integer, big-endian in 16 bytes, and a flag for the
// minimum token of the empty key.
struct RandomToken {
  bool minimum = false;  // the empty key's token, -1
  std::array<uint8_t, 16> magnitude{};
};
RandomToken RandomPartitionerToken(std::string_view key);
// The decimal text Cassandra prints for a RandomPartitioner token.
std::string RandomTokenToString(const RandomToken& token);

// The decimal text of the key's token under `partitioner`.
std::string TokenString(Partitioner partitioner, std::string_view key);

// DecoratedKey order: token first, then unsigned key bytes.
std::strong_ordering ComparePartitionKeys(Partitioner partitioner, std::string_view a, std::string_view b);

// A contiguous range of Murmur3Partitioner tokens, [first, last]: a part of
// the ring whose partitions a thread folds on its own.
struct Murmur3Range {
  int64_t first = INT64_MIN;
  int64_t last = INT64_MAX;
  bool Contains(int64_t token) const { return first <= token && token <= last; }

  // Where the partition whose key is `key` lies: before the range, in it,
  // or after it (partitions come in token order, so after it a reader of
  // the range can stop).
  enum class Place { kBefore, kInside, kAfter };
  Place Locate(std::string_view key) const;
};

// `count` (at least 1) ranges of equal width that together cover the ring,
// in token order.
std::vector<Murmur3Range> SplitMurmur3Ring(int count);

// Murmur3 token ranges, sorted and disjoint: the part of the ring a fold
// reads (a node's primary ranges, a thread's share of them). Adjacent and
// overlapping ranges are merged, so equal sets have equal range lists.
class Murmur3RangeSet {
 public:
  Murmur3RangeSet() = default;  // no token at all
  explicit Murmur3RangeSet(std::vector<Murmur3Range> ranges);
  static Murmur3RangeSet WholeRing() { return Murmur3RangeSet({Murmur3Range{}}); }

  const std::vector<Murmur3Range>& ranges() const { return ranges_; }
  bool empty() const { return ranges_.empty(); }
  bool whole_ring() const { return ranges_.size() == 1 && ranges_[0].first == INT64_MIN && ranges_[0].last == INT64_MAX; }
  // kBefore for a token before the first range or between two (a reader in
  // token order passes it over), kAfter past the last.
  Murmur3Range::Place Locate(std::string_view key) const;
  // Whether a token in [first, last] is in the set.
  bool Intersects(int64_t first, int64_t last) const;
  // The set's tokens that are also in `other`.
  Murmur3RangeSet Intersect(const Murmur3Range& other) const;
  bool Intersects(const Murmur3RangeSet& other) const;
  bool operator==(const Murmur3RangeSet& other) const;

  // "first:last,first:last,..." (inclusive bounds), as Parse reads it.
  std::string ToString() const;
  // InvalidArgument naming the text when it is not such a list, a range ends
  // before it starts, or a bound is not a 64-bit integer.
  static Result<Murmur3RangeSet> Parse(std::string_view text);

 private:
  std::vector<Murmur3Range> ranges_;
};

// A strict weak order for std::sort over serialized partition keys.
struct PartitionKeyLess {
  Partitioner partitioner = Partitioner::kMurmur3;
  bool operator()(std::string_view a, std::string_view b) const {
    return ComparePartitionKeys(partitioner, a, b) < 0;
  }
};

}  // namespace cqlite
