// Integers read from parsed JSON (nlohmann::json) that other programs wrote:
// nlohmann's get<T>() converts a float or an out-of-range number without a
// word (and a float beyond the type's range is undefined behaviour), so the
// readers of table metadata, schemas and fold states take integers through
// JsonInteger, which accepts only an integer number that fits T and throws
// nlohmann's own exceptions otherwise, as get<T>() does for other mismatches.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include <nlohmann/json.hpp>

namespace cqlite {

template <typename T>
T JsonInteger(const nlohmann::json& j) {
  static_assert(std::is_integral_v<T> && std::is_signed_v<T>);
  if (j.is_number_unsigned()) {
    const uint64_t v = j.get<uint64_t>();
    if (v > static_cast<uint64_t>(std::numeric_limits<T>::max())) {
      throw nlohmann::json::out_of_range::create(406, "integer " + j.dump() + " is out of range", &j);
    }
    return static_cast<T>(v);
  }
  if (j.is_number_integer()) {
    const int64_t v = j.get<int64_t>();
    if (v < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
        v > static_cast<int64_t>(std::numeric_limits<T>::max())) {
      throw nlohmann::json::out_of_range::create(406, "integer " + j.dump() + " is out of range", &j);
    }
    return static_cast<T>(v);
  }
  throw nlohmann::json::type_error::create(302, std::string("type must be an integer, but is ") + j.type_name(), &j);
}

// JsonInteger of member `key` of the object `j`, or `otherwise` when it has
// no such member (where nlohmann's j.value(key, otherwise) would convert a
// float or an out-of-range number).
template <typename T>
T JsonIntegerOr(const nlohmann::json& j, const char* key, T otherwise) {
  auto it = j.find(key);
  return it == j.end() ? otherwise : JsonInteger<T>(*it);
}

}  // namespace cqlite
