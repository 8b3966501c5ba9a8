#include "util/time_format.h"

#include <cstdio>

namespace cqlite {

namespace {

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
int64_t FloorMod(int64_t a, int64_t b) { return a - FloorDiv(a, b) * b; }

}  // namespace

// Howard Hinnant's days-to-civil algorithm.
void CivilFromDays(int64_t days, int64_t* year, unsigned* month, unsigned* day) {
  days += 719468;
  const int64_t era = FloorDiv(days, 146097);
  const int64_t doe = days - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  *day = static_cast<unsigned>(doy - (153 * mp + 2) / 5 + 1);
  *month = static_cast<unsigned>(mp < 10 ? mp + 3 : mp - 9);
  *year = yoe + era * 400 + (*month <= 2);
}

std::string FormatInstant(int64_t epoch_seconds, int32_t nanos) {
  int64_t days = FloorDiv(epoch_seconds, 86400);
  int64_t secs_of_day = FloorMod(epoch_seconds, 86400);
  int64_t year;
  unsigned month, day;
  CivilFromDays(days, &year, &month, &day);

  char buf[96];
  std::string out;
  // java.time.LocalDate.toString: four digits, '+' beyond 9999, '-' before year 0.
  if (year > 9999) {
    std::snprintf(buf, sizeof(buf), "+%lld", static_cast<long long>(year));
  } else if (year < 0) {
    std::snprintf(buf, sizeof(buf), "-%04lld", static_cast<long long>(-year));
  } else {
    std::snprintf(buf, sizeof(buf), "%04lld", static_cast<long long>(year));
  }
  out += buf;
  std::snprintf(buf, sizeof(buf), "-%02u-%02uT%02d:%02d", month, day, static_cast<int>(secs_of_day / 3600),
                static_cast<int>(secs_of_day / 60 % 60));
  out += buf;
  // java.time.LocalTime.toString always prints seconds when Instant formats.
  std::snprintf(buf, sizeof(buf), ":%02d", static_cast<int>(secs_of_day % 60));
  out += buf;
  if (nanos > 0) {
    if (nanos % 1000000 == 0) {
      std::snprintf(buf, sizeof(buf), ".%03d", nanos / 1000000);
    } else if (nanos % 1000 == 0) {
      std::snprintf(buf, sizeof(buf), ".%06d", nanos / 1000);
    } else {
      std::snprintf(buf, sizeof(buf), ".%09d", nanos);
    }
    out += buf;
  }
  out += 'Z';
  return out;
}

std::string FormatMicros(int64_t micros) {
  int64_t seconds = FloorDiv(micros, 1000000);
  int32_t nanos = static_cast<int32_t>(FloorMod(micros, 1000000) * 1000);
  return FormatInstant(seconds, nanos);
}

}  // namespace cqlite
