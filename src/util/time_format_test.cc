#include "util/time_format.h"

#include <gtest/gtest.h>

#include <chrono>

namespace cqlite {
namespace {

int64_t Seconds(std::string_view text) {
  auto parsed = ParseInstantSeconds(text, "--now");
  EXPECT_TRUE(parsed.ok()) << text << ": " << parsed.status().ToString();
  return parsed.ok() ? *parsed : -1;
}

// The expected numbers are Python's calendar.timegm and datetime.timestamp
// of the same texts.
TEST(ParseInstantSecondsTest, SecondsAndIso8601) {
  EXPECT_EQ(Seconds("0"), 0);
  EXPECT_EQ(Seconds("1796207415"), 1796207415);
  EXPECT_EQ(Seconds("1970-01-01"), 0);
  EXPECT_EQ(Seconds("2027-01-01"), 1798761600);
  EXPECT_EQ(Seconds("2027-01-01T00:00:00Z"), 1798761600);
  EXPECT_EQ(Seconds("2026-12-02T10:30:15"), 1796207415);
  EXPECT_EQ(Seconds("2026-12-02 10:30:15.999Z"), 1796207415);
  EXPECT_EQ(Seconds("2026-12-02t10:30:15,5z"), 1796207415);
  EXPECT_EQ(Seconds("2024-02-29T23:59:59Z"), 1709251199);
  EXPECT_EQ(Seconds("2000-03-01T00:00"), 951868800);
  EXPECT_EQ(Seconds("2027-01-01T10:30:00+02:00"), 1798792200);
  EXPECT_EQ(Seconds("2027-01-01T10:30:00+0200"), 1798792200);
  EXPECT_EQ(Seconds("2027-01-01T10:30:00+02"), 1798792200);
  EXPECT_EQ(Seconds("2027-01-01T01:00:00-05:30"), 1798785000);
}

TEST(ParseInstantSecondsTest, AnythingElseIsAnErrorNamingTheOption) {
  for (std::string_view bad :
       {"", "-5", "1.5", "now", "2027-1-01", "2027-13-01", "2023-02-29", "2027-04-31", "2027-01-00",
        "2027-01-01T24:00", "2027-01-01T10:60", "2027-01-01T10:30:61", "2027-01-01T10", "2027-01-01T10:30:00.",
        "2027-01-01T10:30:00+19:00", "2027-01-01T10:30:00 UTC", "2027-01-01X", "1969-12-31T23:59:59Z",
        "1970-01-01T00:30:00+01:00", "9999999999999999999"}) {
    auto parsed = ParseInstantSeconds(bad, "--now");
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().kind(), StatusKind::kInvalidArgument) << bad;
    EXPECT_NE(parsed.status().message().find("--now '"), std::string::npos) << parsed.status().ToString();
  }
}

TEST(DaysFromCivilTest, InvertsCivilFromDays) {
  for (int64_t days = -800000; days <= 800000; days += 97) {
    int64_t year;
    unsigned month, day;
    CivilFromDays(days, &year, &month, &day);
    ASSERT_EQ(DaysFromCivil(year, month, day), days);
  }
}

TEST(NowOrWallClockTest, AGivenTimeWinsOverTheClock) {
  EXPECT_EQ(NowOrWallClock(1798761600), 1798761600);
  EXPECT_EQ(NowOrWallClock(0), 0);  // the epoch is a time one may give
  auto clock = [] {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  int64_t before = clock();
  int64_t now = NowOrWallClock(-1);
  int64_t after = clock();
  EXPECT_GE(now, before);
  EXPECT_LE(now, after);
  EXPECT_GT(now, Seconds("2020-01-01"));
}

TEST(ParseDurationSecondsTest, ACountAndAUnit) {
  EXPECT_EQ(*ParseDurationSeconds("0s", ""), 0);
  EXPECT_EQ(*ParseDurationSeconds("45", ""), 45);
  EXPECT_EQ(*ParseDurationSeconds("90m", ""), 5400);
  EXPECT_EQ(*ParseDurationSeconds("36h", ""), 129600);
  EXPECT_EQ(*ParseDurationSeconds("7d", ""), 604800);
  EXPECT_EQ(*ParseDurationSeconds("2w", ""), 1209600);
  for (const char* bad : {"", "d", "-1d", "7 d", "7y", "1.5h", "99999999999d"}) {
    auto parsed = ParseDurationSeconds(bad, "--orphan-age");
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_NE(parsed.status().message().find("--orphan-age"), std::string::npos) << parsed.status().ToString();
  }
}

}  // namespace
}  // namespace cqlite
