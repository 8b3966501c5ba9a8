#include <filesystem>
#include <string>

#include "catalog/catalog.h"
#include "catalog/postgres_db.h"
#include "cli/commands.h"
#include "util/strings.h"

namespace cqlite {

std::string AbsolutePath(const std::string& path) {
  std::error_code error;
  auto absolute = std::filesystem::absolute(path, error);
  if (error) return path;
  return absolute.lexically_normal().string();
}

std::string CatalogAddress(const std::string& option, const std::string& warehouse) {
  if (catalog::IsPostgresUri(option) || catalog::IsRestCatalogAddress(option)) return option;
  std::string path = option.empty() ? (std::filesystem::path(warehouse) / "catalog.db").string() : option;
  if (StartsWith(path, "sqlite:")) path = path.substr(7);
  return AbsolutePath(path);
}

}  // namespace cqlite
