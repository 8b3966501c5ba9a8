#include "cluster/range_split.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace cqlite {

std::vector<Murmur3Range> SplitRingByBytes(const std::vector<TokenSpan>& spans, int64_t target_bytes, int count) {
  long double total = 0;
  for (const TokenSpan& span : spans) total += static_cast<long double>(std::max<int64_t>(0, span.bytes));
  if (count <= 0) {
    count = target_bytes > 0 ? static_cast<int>(std::min<long double>(1 << 20, std::ceil(total / target_bytes))) : 1;
    count = std::max(count, 1);
  }
  // Bytes per token between consecutive span bounds: a span adds its
  // density at its first token and takes it away past its last.
  std::map<long double, long double> density_change;
  std::vector<TokenSpan> weighted = spans;
  if (total <= 0) weighted = {TokenSpan{kFirstMurmur3Token, INT64_MAX, 1}};  // nothing to weigh: equal widths
  for (const TokenSpan& span : weighted) {
    if (span.bytes <= 0 || span.first > span.last) continue;
    long double first = std::max(span.first, kFirstMurmur3Token), end = static_cast<long double>(span.last) + 1;
    long double density = static_cast<long double>(span.bytes) / (end - first);
    density_change[first] += density;
    density_change[end] -= density;
  }
  long double mass = 0;
  for (const TokenSpan& span : weighted) mass += static_cast<long double>(std::max<int64_t>(0, span.bytes));
  std::vector<int64_t> cuts;  // the last token of every range but the last
  long double density = 0, cumulative = 0;
  int next = 1;
  for (auto it = density_change.begin(); it != density_change.end() && next < count; ++it) {
    density += it->second;
    auto following = std::next(it);
    if (following == density_change.end()) break;
    long double width = following->first - it->first;
    long double segment = density * width;
    while (next < count && density > 0 && cumulative + segment >= mass * next / count) {
      long double at = it->first + (mass * next / count - cumulative) / density;
      int64_t cut = static_cast<int64_t>(std::floor(std::min<long double>(at, following->first - 1)));
      cut = std::clamp<int64_t>(cut, kFirstMurmur3Token, INT64_MAX - 1);
      if (cuts.empty() || cut > cuts.back()) cuts.push_back(cut);
      ++next;
    }
    cumulative += segment;
  }
  std::vector<Murmur3Range> ranges;
  int64_t first = kFirstMurmur3Token;
  for (int64_t cut : cuts) {
    ranges.push_back({first, cut});
    first = cut + 1;
  }
  ranges.push_back({first, INT64_MAX});
  return ranges;
}

}  // namespace cqlite
