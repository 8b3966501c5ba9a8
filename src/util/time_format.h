// Renders instants the way java.time.Instant.toString does (ISO-8601 in UTC
// with 0, 3, 6 or 9 fraction digits), which is what Cassandra's tools print.
#pragma once

#include <cstdint>
#include <string>

namespace cqlite {

// seconds since the epoch plus nanoseconds (0..999,999,999).
std::string FormatInstant(int64_t epoch_seconds, int32_t nanos);
// Microseconds since the epoch (Cassandra write timestamps).
std::string FormatMicros(int64_t micros);

// Civil date of a day count since 1970-01-01 (proleptic Gregorian).
void CivilFromDays(int64_t days, int64_t* year, unsigned* month, unsigned* day);

}  // namespace cqlite
