#include "cassandra/sstable_version.h"

#include <array>

#include "util/strings.h"

namespace cqlite {
namespace {

// Versions Cassandra 3.0 .. 5.0 write (BigFormat.BigVersion, BtiFormat.BtiVersion).
// `nc` is a 5.0 development version still found in Cassandra's own test data.
constexpr std::array<std::string_view, 9> kBigVersions = {"ma", "mb", "mc", "md", "me", "na", "nb", "nc", "oa"};
constexpr std::array<std::string_view, 1> kBtiVersions = {"da"};

bool IsGenerationChar(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '_';
}

}  // namespace

Result<SSTableVersion> MakeSSTableVersion(std::string_view name, SSTableFormat format) {
  bool known = false;
  if (format == SSTableFormat::kBig) {
    for (auto v : kBigVersions) known = known || v == name;
  } else {
    for (auto v : kBtiVersions) known = known || v == name;
  }
  if (!known) {
    return Status::NotSupported(StrCat("SSTable version '", name, "' of format ",
                                       format == SSTableFormat::kBig ? "big" : "bti",
                                       " is not supported (CQLite reads ma..oa big and da bti)"));
  }
  SSTableVersion version;
  version.name = std::string(name);
  version.format = format;
  return version;
}

Result<SSTableFileName> ParseSSTableFileName(std::string_view file_name) {
  auto invalid = [&](const std::string& why) {
    return Status::InvalidArgument(StrCat(file_name, ": not an SSTable component file name (", why, ")"));
  };
  // <version>-<generation>-<format>-<Component>; the component may itself hold '-'.
  size_t d1 = file_name.find('-');
  size_t d2 = d1 == std::string_view::npos ? d1 : file_name.find('-', d1 + 1);
  size_t d3 = d2 == std::string_view::npos ? d2 : file_name.find('-', d2 + 1);
  if (d3 == std::string_view::npos) return invalid("expected <version>-<generation>-<format>-<component>");
  std::string_view version = file_name.substr(0, d1);
  std::string_view generation = file_name.substr(d1 + 1, d2 - d1 - 1);
  std::string_view format = file_name.substr(d2 + 1, d3 - d2 - 1);
  std::string_view component = file_name.substr(d3 + 1);
  if (version.size() != 2 || version[0] < 'a' || version[0] > 'z' || version[1] < 'a' || version[1] > 'z') {
    return invalid(StrCat("version '", version, "' is not two lower-case letters"));
  }
  if (generation.empty()) return invalid("empty generation");
  for (char c : generation) {
    if (!IsGenerationChar(c)) return invalid(StrCat("generation '", generation, "' has a bad character"));
  }
  if (component.empty()) return invalid("empty component");
  SSTableFormat fmt;
  if (format == "big") {
    fmt = SSTableFormat::kBig;
  } else if (format == "bti") {
    fmt = SSTableFormat::kBti;
  } else {
    return Status::NotSupported(StrCat(file_name, ": SSTable format '", format, "' is not supported (big, bti)"));
  }
  auto v = MakeSSTableVersion(version, fmt);
  if (!v.ok()) return v.status().WithContext(std::string(file_name));
  SSTableFileName out;
  out.version = std::move(v).value();
  out.generation = std::string(generation);
  out.component = std::string(component);
  out.prefix = std::string(file_name.substr(0, d3 + 1));
  return out;
}

}  // namespace cqlite
