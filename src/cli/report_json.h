// The JSON report the commands that publish tables print with --json
// (materialize, commit, maintain): {"catalog", "seconds", "tables": [...]},
// one object a table, whose fields each command writes.
#pragma once

#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "util/json_writer.h"
#include "util/strings.h"

namespace cqlite {

template <typename Report>
void PrintTablesJson(const std::vector<Report>& reports, const std::string& catalog, double seconds,
                     const std::function<void(JsonWriter&, const Report&)>& fields) {
  JsonWriter w(std::cout, 2);
  w.BeginObject();
  w.Key("catalog");
  w.String(catalog);
  w.Key("seconds");
  w.Raw(StrCat(seconds));
  w.Key("tables");
  w.BeginArray();
  for (const Report& report : reports) {
    w.BeginObject();
    fields(w, report);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  std::cout << "\n";
}

}  // namespace cqlite
