#include "util/uninitialized_vector.h"

#include <cstdint>
#include <string>

#include <gtest/gtest.h>

namespace cqlite {
namespace {

TEST(UninitializedVectorTest, HoldsWhatIsWrittenAsAVectorDoes) {
  UninitializedVector<int64_t> values;
  values.resize(1000);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int64_t>(i) * 3;
  values.push_back(-1);
  values.resize(2000);  // grows past the capacity: the first values move with it
  for (size_t i = 0; i < 1000; ++i) ASSERT_EQ(values[i], static_cast<int64_t>(i) * 3) << i;
  EXPECT_EQ(values[1000], -1);
  // Elements made with a value get it, as in std::vector.
  UninitializedVector<int64_t> sevens(10, 7);
  for (int64_t v : sevens) EXPECT_EQ(v, 7);
  sevens.insert(sevens.end(), 5, 9);
  EXPECT_EQ(sevens.size(), 15u);
  EXPECT_EQ(sevens.back(), 9);
  // A class type is still constructed.
  UninitializedVector<std::string> strings;
  strings.resize(3);
  EXPECT_EQ(strings[2], "");
  strings.emplace_back(4, 'x');
  EXPECT_EQ(strings.back(), "xxxx");
}

}  // namespace
}  // namespace cqlite
