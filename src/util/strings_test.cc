#include "util/strings.h"

#include <gtest/gtest.h>

#include <string>

namespace cqlite {
namespace {

TEST(IsValidUtf8Test, AcceptsAsciiAndWellFormedSequences) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain ascii, longer than one eight-byte word"));
  EXPECT_TRUE(IsValidUtf8("\xc3\xa9"));          // U+00E9
  EXPECT_TRUE(IsValidUtf8("\xe6\x97\xa5"));      // U+65E5
  EXPECT_TRUE(IsValidUtf8("\xf0\x9f\x99\x82"));  // U+1F642
  EXPECT_TRUE(IsValidUtf8("\xf4\x8f\xbf\xbf"));  // U+10FFFF
}

TEST(IsValidUtf8Test, RejectsMalformedSequences) {
  EXPECT_FALSE(IsValidUtf8("\x80"));              // a lone continuation byte
  EXPECT_FALSE(IsValidUtf8("\xc3"));              // cut short
  EXPECT_FALSE(IsValidUtf8("\xc0\xaf"));          // overlong
  EXPECT_FALSE(IsValidUtf8("\xe0\x80\xaf"));      // overlong
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80"));      // a surrogate, U+D800
  EXPECT_FALSE(IsValidUtf8("\xf4\x90\x80\x80"));  // past U+10FFFF
  EXPECT_FALSE(IsValidUtf8("\xff"));
}

// Whatever ASCII surrounds it, and wherever it falls against the eight-byte
// words the ASCII is skipped in, a sequence is judged alone.
TEST(IsValidUtf8Test, ASequenceIsJudgedAtEveryOffset) {
  const std::string good[] = {"\xc3\xa9", "\xe6\x97\xa5", "\xf0\x9f\x99\x82"};
  const std::string bad[] = {"\x80", "\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xe6\x97", "\xff"};
  for (size_t before = 0; before < 20; ++before) {
    for (size_t after = 0; after < 20; after += 3) {
      std::string head(before, 'a'), tail(after, 'z');
      for (const std::string& g : good) EXPECT_TRUE(IsValidUtf8(head + g + tail)) << before << " " << after;
      for (const std::string& b : bad) {
        // A cut-short sequence followed by ASCII is malformed too.
        EXPECT_FALSE(IsValidUtf8(head + b + tail)) << before << " " << after << " " << b.size();
      }
    }
  }
}

TEST(ParseByteSizeTest, BytesAndUnits) {
  EXPECT_EQ(ParseByteSize("0"), 0);
  EXPECT_EQ(ParseByteSize("512"), 512);
  EXPECT_EQ(ParseByteSize("10B"), 10);
  EXPECT_EQ(ParseByteSize("64MiB"), int64_t{64} << 20);
  EXPECT_EQ(ParseByteSize("2GiB"), int64_t{2} << 30);
  EXPECT_EQ(ParseByteSize("3KB"), 3000);
  EXPECT_EQ(ParseByteSize("5 MB"), 5'000'000);
  for (const char* bad : {"", "MiB", "-1", "1.5MiB", "12XB", "99999999TiB"}) EXPECT_FALSE(ParseByteSize(bad)) << bad;
}

}  // namespace
}  // namespace cqlite
