#include "catalog/catalog.h"

#include "catalog/rest_catalog.h"
#include "catalog/sql_catalog.h"
#include "util/strings.h"

namespace cqlite::catalog {

namespace {

// The width of the JDBC catalog schema's name columns; names are held to it
// whatever the catalog, so that a table can move between catalogs.
constexpr size_t kMaxNameBytes = 255;
constexpr std::string_view kRestPrefix = "rest:";

// Why `name` cannot be a namespace level or table name, or empty if it can.
std::string NameProblem(std::string_view name) {
  if (name.empty()) return "is empty";
  if (name.size() > kMaxNameBytes) return StrCat("is longer than ", kMaxNameBytes, " bytes");
  if (!IsValidUtf8(name)) return "is not valid UTF-8";
  for (char c : name) {
    auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) return "contains a control character";
    switch (c) {
      case '.':
      case '/':
      case '\\':
      case '\'':
      case '"':
      case '`':
        return StrCat("contains '", c, "'");
      default:
        break;
    }
  }
  return "";
}

}  // namespace

std::string QuotedName(std::string_view name) {
  std::string out = "\"";
  for (char c : name) {
    auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      const char* digits = "0123456789abcdef";
      out += "\\x";
      out += digits[byte >> 4];
      out += digits[byte & 0xf];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string NamespaceToString(const Namespace& ns) {
  std::string out;
  for (size_t i = 0; i < ns.size(); ++i) {
    if (i > 0) out += '.';
    out += ns[i];
  }
  return out;
}

Result<Namespace> ParseNamespace(const std::string& text) {
  Namespace ns = Split(text, '.');
  RETURN_IF_ERROR(ValidateNamespace(ns));
  return ns;
}

Status ValidateNamespace(const Namespace& ns) {
  if (ns.empty()) return Status::InvalidArgument("a namespace needs at least one level");
  std::string joined = NamespaceToString(ns);
  for (const std::string& level : ns) {
    std::string problem = NameProblem(level);
    if (!problem.empty()) {
      return Status::InvalidArgument(
          StrCat("namespace level ", QuotedName(level), " of namespace ", QuotedName(joined), " ", problem));
    }
  }
  if (joined.size() > kMaxNameBytes) {
    return Status::InvalidArgument(
        StrCat("namespace ", QuotedName(joined), " is longer than ", kMaxNameBytes, " bytes"));
  }
  return Status::OK();
}

Status ValidateTableName(const std::string& table) {
  std::string problem = NameProblem(table);
  if (!problem.empty()) return Status::InvalidArgument(StrCat("table name ", QuotedName(table), " ", problem));
  return Status::OK();
}

bool IsRestCatalogAddress(std::string_view address) { return StartsWith(address, kRestPrefix); }

Result<std::unique_ptr<Catalog>> OpenCatalog(const std::string& address, const std::string& catalog_name,
                                             bool create_if_missing) {
  if (IsRestCatalogAddress(address)) {
    ASSIGN_OR_RETURN(std::unique_ptr<RestCatalog> rest, RestCatalog::Open(address.substr(kRestPrefix.size())));
    return std::unique_ptr<Catalog>(std::move(rest));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<SqlCatalog> sql, SqlCatalog::Open(address, catalog_name, create_if_missing));
  return std::unique_ptr<Catalog>(std::move(sql));
}

}  // namespace cqlite::catalog
