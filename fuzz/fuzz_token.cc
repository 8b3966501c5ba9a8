// Fuzzes the partitioners over arbitrary keys. Byte 0 splits the rest into
// two keys, which are also compared under both partitioners.
#include <compare>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "cassandra/token.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cqlite;
  if (size < 1) return 0;
  std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  size_t cut = rest.empty() ? 0 : data[0] % (rest.size() + 1);
  std::string_view a = rest.substr(0, cut), b = rest.substr(cut);
  (void)CassandraMurmur3Hash(rest, static_cast<int64_t>(data[0]));
  (void)Murmur3Token(rest);
  (void)Md5(rest);
  RandomToken token = RandomPartitionerToken(rest);
  (void)RandomTokenToString(token);
  for (Partitioner p : {Partitioner::kMurmur3, Partitioner::kRandom}) {
    (void)TokenString(p, rest);
    auto ab = ComparePartitionKeys(p, a, b);
    auto ba = ComparePartitionKeys(p, b, a);
    if ((ab < 0) != (ba > 0) || (ab == 0) != (ba == 0)) abort();  // must be antisymmetric
    if (ComparePartitionKeys(p, a, a) != 0) abort();
  }
  return 0;
}
