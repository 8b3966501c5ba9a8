// Conversions between Cassandra's serialized values (CQL native-protocol
// bytes) and the typed Parquet values of the envelope files, following the
// CQL -> Arrow mapping of the envelope v1 schema (docs/formats/envelope.md):
// text types, inet, duration and custom types as UTF-8 strings, decimal as
// decimal(38, 9), varint as decimal(38, 0), timestamp in milliseconds, time in
// nanoseconds, date as signed days, uuids as 16 fixed bytes, collections and
// vectors as lists and maps, tuples and user types as structs.
//
// Not every serialized value has a typed form (a decimal with more than 9
// fractional digits, a varint beyond 38 digits, text that is not UTF-8, an
// empty int ...), and not every typed form gives back the same bytes (a
// decimal's scale). Writers therefore check the round trip (Reproduces) and
// keep the exact bytes beside the typed value when it fails. Pure functions;
// thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cassandra/cql_type.h"
#include "cassandra/value_format.h"
#include "parquet/schema.h"
#include "parquet/value.h"
#include "util/status.h"

namespace cqlite::envelope {

// The Parquet field a value of `type` is stored in (the Arrow type of the
// envelope v1 mapping, as Arrow writes it to Parquet). Multi-cell types map
// like their frozen forms.
parquet::Field TypedField(const std::string& name, const CqlType& type, parquet::Repetition repetition);

// The typed form of `bytes` serialized as `type`, or nullopt when the type
// mapping cannot hold it.
std::optional<parquet::Value> ToTyped(const CqlType& type, std::string_view bytes);

// Cassandra's serialization of a typed value (the inverse of ToTyped).
// InvalidArgument, without a path, when the value does not fit the type; the
// caller adds the file and column. REQUIRES: `value` is not null.
Result<std::string> FromTyped(const CqlType& type, const parquet::Value& value);

// True when FromTyped(ToTyped(bytes)) gives back exactly `bytes`.
bool Reproduces(const CqlType& type, std::string_view bytes, const parquet::Value& typed);

// A counter context holding `shards` in their order (CounterContext's
// layout: header count, global and local shard indexes, then the shards).
std::string CounterContext(const std::vector<CounterShard>& shards);

// Cassandra's unsigned vint (VIntCoding.writeUnsignedVInt).
void AppendUnsignedVInt(uint64_t value, std::string* out);

// Parses Duration.toString text ("1y2mo3d4h5m6s7ms8us9ns", "-2d", "" for
// zero) back into months, days and nanoseconds. False on any other text.
bool ParseDurationText(std::string_view text, int64_t* months, int64_t* days, int64_t* nanos);

}  // namespace cqlite::envelope
