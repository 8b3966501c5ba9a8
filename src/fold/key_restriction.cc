#include "fold/key_restriction.h"

#include "cassandra/value_format.h"
#include "util/strings.h"

namespace cqlite {

Result<std::vector<KeyRestriction>> ParseKeyRestrictions(const std::vector<std::string>& where, const TableSchema& schema) {
  std::vector<KeyRestriction> restrictions;
  for (const std::string& clause : where) {
    size_t eq = clause.find('=');
    if (eq == std::string::npos) {
      return Status::InvalidArgument(StrCat("--where '", clause, "': expected column=value"));
    }
    std::string name(Trim(std::string_view(clause).substr(0, eq)));
    std::string value(Trim(std::string_view(clause).substr(eq + 1)));
    if (name.size() >= 2 && name.front() == '"' && name.back() == '"') {
      name = name.substr(1, name.size() - 2);
    } else {
      name = ToLowerAscii(name);
    }
    if (value.size() >= 2 && value.front() == '\'' && value.back() == '\'') value = value.substr(1, value.size() - 2);
    const ColumnSchema* column = schema.FindColumn(name);
    if (!column || column->kind != ColumnKind::kPartitionKey) {
      std::string keys;
      for (const ColumnSchema* key : schema.PartitionKeyColumns()) keys += (keys.empty() ? "" : ", ") + key->name;
      return Status::InvalidArgument(
          StrCat("--where '", clause, "': ", name, " is not a partition key column (the key is: ", keys, ")"));
    }
    restrictions.push_back({column->position, column->type.get(), value});
  }
  return restrictions;
}

bool MatchesKeyRestrictions(const std::vector<KeyRestriction>& restrictions, const std::vector<std::string>& key) {
  for (const KeyRestriction& restriction : restrictions) {
    auto text = ValueToString(*restriction.type, key[restriction.position]);
    if (!text.ok() || *text != restriction.text) return false;
  }
  return true;
}

}  // namespace cqlite
