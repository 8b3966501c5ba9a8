// Renders instants the way java.time.Instant.toString does (ISO-8601 in UTC
// with 0, 3, 6 or 9 fraction digits), which is what Cassandra's tools print,
// parses the instants people give on the command line, and says what time it
// is for the commands that decide TTL expiry.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "util/status.h"

namespace cqlite {

// seconds since the epoch plus nanoseconds (0..999,999,999).
std::string FormatInstant(int64_t epoch_seconds, int32_t nanos);
// Microseconds since the epoch (Cassandra write timestamps).
std::string FormatMicros(int64_t micros);

// Civil date of a day count since 1970-01-01 (proleptic Gregorian).
void CivilFromDays(int64_t days, int64_t* year, unsigned* month, unsigned* day);

// Days since 1970-01-01 of a civil date (proleptic Gregorian).
int64_t DaysFromCivil(int64_t year, unsigned month, unsigned day);

// Seconds since the Unix epoch of a time given as whole seconds
// ("1798761600") or in ISO-8601: a date ("2027-01-01", midnight UTC) or a
// date and time ("2027-01-01T08:30", "2027-01-01 08:30:15.250Z",
// "2027-01-01T10:30:00+02:00"; no offset means UTC; a fraction of a second
// is dropped). InvalidArgument, naming `what` and the text, for anything
// else, a field out of range, or a time before 1970 (`what` may be empty).
Result<int64_t> ParseInstantSeconds(std::string_view text, std::string_view what);

// Seconds of a span of time given as a count and a unit: "90s", "15m",
// "36h", "7d", "2w" (a bare number is seconds). InvalidArgument, naming
// `what` and the text, for anything else or a span past 100 years.
Result<int64_t> ParseDurationSeconds(std::string_view text, std::string_view what);

// Whole seconds since the Unix epoch by the system clock.
int64_t WallClockSeconds();

// `now_seconds` when it is given (0 or more, as --now sets it), else the
// system clock's time: the "now" TTLs expire by.
int64_t NowOrWallClock(int64_t now_seconds);

}  // namespace cqlite
