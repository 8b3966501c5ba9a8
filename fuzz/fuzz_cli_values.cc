// Fuzzes the values the command line parses: `--now` (seconds or ISO-8601)
// and `--where column=value` against a table with a composite partition key
// of several types, then matched against a fixed key. The input is split at
// its first newline: `--now` text before, `--where` clauses (one per
// further line) after.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cassandra/cql_schema.h"
#include "fold/key_restriction.h"
#include "util/time_format.h"

namespace {

const cqlite::TableSchema& Table() {
  static const cqlite::TableSchema table = *cqlite::ParseCqlTableSchema(
      "CREATE TABLE ks.t (region text, day date, shard int, id uuid, at timestamp, v text, "
      "PRIMARY KEY ((region, day, shard, id), at));");
  return table;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cqlite;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const size_t newline = text.find('\n');
  (void)ParseInstantSeconds(text.substr(0, newline), "--now");
  if (newline == std::string_view::npos) return 0;
  std::vector<std::string> clauses;
  std::string_view rest = text.substr(newline + 1);
  while (!rest.empty()) {
    const size_t end = rest.find('\n');
    clauses.emplace_back(rest.substr(0, end));
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  }
  auto restrictions = ParseKeyRestrictions(clauses, Table());
  if (!restrictions.ok()) return 0;
  // region 'eu', day 2026-12-02 (2^31 + 20789), shard 7, a uuid.
  const std::vector<std::string> key = {
      "eu", std::string("\x80\x00\x51\x35", 4), std::string("\x00\x00\x00\x07", 4),
      std::string("\x12\x34\x56\x78\x9a\xbc\x4d\xef\x80\x11\x22\x33\x44\x55\x66\x77", 16)};
  (void)MatchesKeyRestrictions(*restrictions, key);
  return 0;
}
