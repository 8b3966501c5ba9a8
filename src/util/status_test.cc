#include "util/status.h"

#include <gtest/gtest.h>

namespace cqlite {
namespace {

Result<int> Half(int x) {
  if (x % 2) return Status::InvalidArgument("odd");
  return x / 2;
}

Result<int> Quarter(int x) {
  ASSIGN_OR_RETURN(int half, Half(x));
  ASSIGN_OR_RETURN(int quarter, Half(half));
  return quarter;
}

TEST(StatusTest, PropagatesTheFirstError) {
  EXPECT_EQ(*Quarter(8), 2);
  Result<int> r = Quarter(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().kind(), StatusKind::kInvalidArgument);
  EXPECT_EQ(r.status().ToString(), "Invalid argument: odd");
}

TEST(StatusTest, WithContextPrefixesTheMessage) {
  Status s = Status::Corruption("bad byte").WithContext("x-Data.db");
  EXPECT_EQ(s.message(), "x-Data.db: bad byte");
  EXPECT_TRUE(Status::OK().WithContext("x").ok());
}

}  // namespace
}  // namespace cqlite
