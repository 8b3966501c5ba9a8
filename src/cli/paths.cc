#include <filesystem>
#include <string>

#include "catalog/catalog.h"
#include "catalog/postgres_db.h"
#include "cli/commands.h"
#include "net/s3_file_system.h"
#include "util/strings.h"

namespace cqlite {

std::string AbsolutePath(const std::string& path) {
  std::error_code error;
  auto absolute = std::filesystem::absolute(path, error);
  if (error) return path;
  return absolute.lexically_normal().string();
}

std::string WarehousePath(const std::string& option) {
  if (!net::IsS3Uri(option)) return AbsolutePath(option);
  std::string uri = option;
  while (uri.size() > 5 && uri.back() == '/') uri.pop_back();
  return uri;
}

Result<std::shared_ptr<FileSystem>> WarehouseFileSystem(const std::string& warehouse,
                                                        const std::vector<std::string>& other_paths) {
  std::vector<std::string> paths = other_paths;
  paths.push_back(warehouse);
  return SourceFileSystem(paths);
}

Result<std::shared_ptr<FileSystem>> SourceFileSystem(const std::vector<std::string>& paths) {
  bool s3 = false;
  for (const std::string& path : paths) {
    if (!net::IsS3Uri(path)) continue;
    RETURN_IF_ERROR(net::ParseS3Uri(path).status().WithContext(path));
    s3 = true;
  }
  if (!s3) return std::shared_ptr<FileSystem>(&LocalFileSystem(), [](FileSystem*) {});
  ASSIGN_OR_RETURN(net::S3Options options, net::S3OptionsFromEnvironment());
  return std::shared_ptr<FileSystem>(
      std::make_shared<net::LocalAndS3FileSystem>(std::make_unique<net::S3FileSystem>(std::move(options))));
}

Result<std::string> CatalogName(const std::string& option, const std::string& catalog_address) {
  if (option.empty()) return std::string("cqlite");
  if (catalog::IsRestCatalogAddress(catalog_address)) {
    return Status::InvalidArgument(StrCat("--catalog-name ", option, ": a REST catalog server names its own catalog "
                                          "(a server that keeps several takes the one to use as ?warehouse= in "
                                          "--catalog)"));
  }
  return option;
}

std::string CatalogAddress(const std::string& option, const std::string& warehouse) {
  if (catalog::IsPostgresUri(option) || catalog::IsRestCatalogAddress(option)) return option;
  std::string path = option.empty() ? (std::filesystem::path(warehouse) / "catalog.db").string() : option;
  if (StartsWith(path, "sqlite:")) path = path.substr(7);
  return AbsolutePath(path);
}

}  // namespace cqlite
