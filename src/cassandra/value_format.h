// Text renderings of serialized CQL values, matching what Cassandra 5.0's
// sstabledump (org.apache.cassandra.tools.JsonTransformer) prints:
//
//  - ValueToJson is AbstractType.toJSONString(value, ProtocolVersion.CURRENT),
//    used for cell values and clustering values. The result is raw JSON:
//    strings come quoted and escaped, numbers bare, NaN/Infinity as null.
//  - ValueToString is AbstractType.getString(value), used for partition keys
//    and for the cell paths of non-frozen collections. No quoting.
//
// Where Cassandra itself would throw on a value (bytes too short for the
// type, invalid UTF-8, a null element of a frozen collection, an empty value
// of a type whose toJSONString dereferences null) these functions return a
// Corruption Status or, where noted, a harmless rendering; they never read
// past the given bytes. All functions are pure and thread-safe.
//
// Deviations from Cassandra, chosen so that a damaged value never aborts a
// dump: an empty boolean/tinyint/counter renders as "" (Cassandra throws
// NullPointerException); a tuple with fewer serialized fields than its type
// renders the missing fields as null (Cassandra throws); a null element of a
// frozen list/set/map renders as null. Fixed-width types whose byte length
// is wrong are Corruption (Cassandra reads the first bytes of a longer value).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cassandra/cql_type.h"
#include "util/status.h"

namespace cqlite {

// AbstractType.toJSONString for `bytes` serialized as `type`.
Result<std::string> ValueToJson(const CqlType& type, std::string_view bytes);

// AbstractType.getString for `bytes` serialized as `type`.
Result<std::string> ValueToString(const CqlType& type, std::string_view bytes);

// Splits a CompositeType partition key into the raw bytes of its components,
// the way JsonTransformer.serializePartitionKey does: an optional 0xFFFF
// static marker, then per component a u16 length, the bytes and an
// end-of-component byte; a non-zero end-of-component byte stops the split.
// May return fewer components than `composite` has.
// REQUIRES: composite.kind == CqlKind::kComposite.
Result<std::vector<std::string>> SplitCompositeKey(const CqlType& composite, std::string_view key);

// One part of a serialized collection, tuple or user type value.
struct ValuePart {
  bool present = false;  // false: null (a negative length)
  std::string_view bytes;
};

// The parts of a serialized collection value (CollectionSerializer): an int32
// count, then count * per_entry int32-length-prefixed parts (per_entry 2 for
// a map: key, value, key, value...). Corruption when the parts do not fit;
// bytes after the last part are not looked at, and `end` (when given) is set
// to where they start.
Result<std::vector<ValuePart>> SplitCollection(std::string_view bytes, size_t per_entry, size_t* end = nullptr);

// The fields of a serialized tuple or user type value (TupleType.split):
// int32-length-prefixed, a negative length for null, possibly fewer than the
// type has (the rest are null). Corruption when a field does not fit or the
// value holds more fields than the type.
Result<std::vector<ValuePart>> SplitTuple(const CqlType& type, std::string_view bytes);

// The elements of a serialized vector value (VectorType): fixed-length
// elements back to back, or unsigned-vint-length-prefixed ones. Corruption
// unless exactly the type's dimension of them fill the value.
Result<std::vector<std::string_view>> SplitVector(const CqlType& type, std::string_view bytes);

// The strings sstabledump prints in a partition's "key" array: one per
// component (each with its own type's getString) for a CompositeType key,
// otherwise one.
Result<std::vector<std::string>> PartitionKeyStrings(const CqlType& key_type, std::string_view key);

// One shard of a counter context (org.apache.cassandra.db.context.CounterContext).
struct CounterShard {
  enum class Kind { kGlobal, kLocal, kRemote };
  Kind kind = Kind::kRemote;
  std::array<uint8_t, 16> counter_id{};  // a CounterId (a time UUID)
  int64_t clock = 0;
  int64_t count = 0;
};

// Parses a counter context: an int16 header count n, n int16 header elements
// (a global shard's index stored as index + Short.MIN_VALUE, a local shard's
// index as is), then shards of counter id (16 bytes), clock (8), count (8).
// Shards not named in the header are remote shards.
Result<std::vector<CounterShard>> ParseCounterContext(std::string_view context);

// CounterContext.total: the sum of the counts of all shards. A malformed
// context sums only the complete shards that fit (never reads past the end).
int64_t CounterTotal(std::string_view context);

// Java's Double.toString / Float.toString (shortest digits that round-trip,
// "1.0E10" style outside [1e-3, 1e7), "NaN", "Infinity").
std::string JavaDoubleToString(double value);
std::string JavaFloatToString(float value);

// JsonUtils.quoteAsJsonString (Jackson's escaping, without the quotes).
std::string QuoteAsJsonString(std::string_view text);

// The decimal text of a two's-complement big-endian integer (BigInteger).
// Empty input is zero.
std::string VarintToDecimal(std::string_view bytes);

}  // namespace cqlite
