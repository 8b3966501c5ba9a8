#include "util/time_format.h"

#include <cctype>
#include <chrono>
#include <optional>
#include <cstdio>
#include <limits>

#include "util/strings.h"

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

// Howard Hinnant's days-from-civil algorithm.
int64_t DaysFromCivil(int64_t year, unsigned month, unsigned day) {
  year -= month <= 2;
  const int64_t era = FloorDiv(year, 400);
  const int64_t yoe = year - era * 400;
  const int64_t doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

namespace {

// Reads exactly `digits` decimal digits at text[*pos...].
bool TakeDigits(std::string_view text, size_t* pos, int digits, int64_t* out) {
  if (text.size() - *pos < static_cast<size_t>(digits)) return false;
  int64_t v = 0;
  for (int i = 0; i < digits; ++i) {
    const char c = text[*pos + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *pos += digits;
  *out = v;
  return true;
}

bool Take(std::string_view text, size_t* pos, char c) {
  if (*pos < text.size() && text[*pos] == c) {
    ++*pos;
    return true;
  }
  return false;
}

unsigned DaysInMonth(int64_t year, unsigned month) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

}  // namespace

Result<int64_t> ParseDurationSeconds(std::string_view text, std::string_view what) {
  auto invalid = [&](std::string_view why) {
    return Status::InvalidArgument(StrCat(what, what.empty() ? "" : " ", "'", text, "': ", why,
                                          " (give a count and a unit: s, m, h, d or w, such as 90m or 7d)"));
  };
  std::string_view digits = text;
  int64_t unit = 1;
  if (!text.empty() && !std::isdigit(static_cast<unsigned char>(text.back()))) {
    switch (text.back()) {
      case 's': unit = 1; break;
      case 'm': unit = 60; break;
      case 'h': unit = 3600; break;
      case 'd': unit = 86400; break;
      case 'w': unit = 7 * 86400; break;
      default: return invalid("not a span of time");
    }
    digits.remove_suffix(1);
  }
  std::optional<int64_t> count = ParseInt64(digits);
  if (digits.empty() || !count || *count < 0) return invalid("not a span of time");
  constexpr int64_t kHundredYears = int64_t{100} * 366 * 86400;
  if (*count > kHundredYears / unit) return invalid("longer than 100 years");
  return *count * unit;
}

Result<int64_t> ParseInstantSeconds(std::string_view text, std::string_view what) {
  auto invalid = [&](std::string_view why) {
    return Status::InvalidArgument(StrCat(what, what.empty() ? "" : " ", "'", text, "': ", why,
                                          " (give seconds since the Unix epoch or an ISO-8601 time such as "
                                          "2027-01-01T08:30:00Z)"));
  };
  if (text.empty()) return invalid("empty");
  if (text.find_first_not_of("0123456789") == std::string_view::npos) {
    if (text.size() > 18) return invalid("too large");
    int64_t seconds = 0;
    for (char c : text) seconds = seconds * 10 + (c - '0');
    return seconds;
  }
  size_t pos = 0;
  int64_t year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!TakeDigits(text, &pos, 4, &year) || !Take(text, &pos, '-') || !TakeDigits(text, &pos, 2, &month) ||
      !Take(text, &pos, '-') || !TakeDigits(text, &pos, 2, &day)) {
    return invalid("not a number of seconds, nor a date as YYYY-MM-DD");
  }
  if (month < 1 || month > 12) return invalid("no such month");
  if (day < 1 || day > DaysInMonth(year, static_cast<unsigned>(month))) return invalid("no such day");
  int64_t offset_seconds = 0;
  if (pos < text.size()) {
    if (!Take(text, &pos, 'T') && !Take(text, &pos, 't') && !Take(text, &pos, ' ')) {
      return invalid("expected T and a time after the date");
    }
    if (!TakeDigits(text, &pos, 2, &hour) || !Take(text, &pos, ':') || !TakeDigits(text, &pos, 2, &minute)) {
      return invalid("expected a time as HH:MM[:SS]");
    }
    if (Take(text, &pos, ':')) {
      if (!TakeDigits(text, &pos, 2, &second)) return invalid("expected seconds as SS");
      if (Take(text, &pos, '.') || Take(text, &pos, ',')) {
        const size_t fraction = pos;
        while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') ++pos;
        if (pos == fraction) return invalid("expected digits after the decimal point");
      }
    }
    if (hour > 23 || minute > 59 || second > 59) return invalid("no such time of day");
    if (Take(text, &pos, 'Z') || Take(text, &pos, 'z')) {
      // UTC
    } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
      const int sign = text[pos++] == '-' ? -1 : 1;
      int64_t offset_hours = 0, offset_minutes = 0;
      if (!TakeDigits(text, &pos, 2, &offset_hours)) return invalid("expected an offset as +HH:MM");
      if (Take(text, &pos, ':')) {
        if (!TakeDigits(text, &pos, 2, &offset_minutes)) return invalid("expected an offset as +HH:MM");
      } else if (pos < text.size()) {
        if (!TakeDigits(text, &pos, 2, &offset_minutes)) return invalid("expected an offset as +HH:MM");
      }
      if (offset_hours > 18 || offset_minutes > 59) return invalid("no such offset");
      offset_seconds = sign * (offset_hours * 3600 + offset_minutes * 60);
    }
    if (pos != text.size()) return invalid(StrCat("unexpected '", text.substr(pos), "'"));
  }
  const int64_t seconds = DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day)) * 86400 +
                          hour * 3600 + minute * 60 + second - offset_seconds;
  if (seconds < 0) return invalid("before 1970");
  return seconds;
}

int64_t WallClockSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

int64_t NowOrWallClock(int64_t now_seconds) { return now_seconds >= 0 ? now_seconds : WallClockSeconds(); }

}  // namespace cqlite
