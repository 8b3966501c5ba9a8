#include "watch/generation_scan.h"

#include <algorithm>
#include <map>
#include <set>

#include "cassandra/sstable.h"
#include "cassandra/sstable_version.h"
#include "util/strings.h"

namespace cqlite::watch {

namespace {

// "oa-5-big-" from a record's path ".../oa-5-big-" or ".../oa-5-big".
std::string PrefixOfRecordPath(std::string_view path) {
  size_t slash = path.rfind('/');
  std::string name(slash == std::string_view::npos ? path : path.substr(slash + 1));
  if (!name.empty() && name.back() != '-') name.push_back('-');
  return name;
}

}  // namespace

bool IsTransactionLogName(std::string_view name) {
  return EndsWith(name, ".log") && name.find("_txn_") != std::string_view::npos;
}

TransactionLog ParseTransactionLog(std::string_view text) {
  TransactionLog log;
  for (const std::string& raw : Split(std::string(text), '\n')) {
    std::string_view line = Trim(raw);
    size_t colon = line.find(":[");
    if (colon == std::string_view::npos || line.back() != ']') continue;
    std::string_view type = line.substr(0, colon);
    std::string_view rest = line.substr(colon + 2);
    size_t comma = rest.find(',');
    if (comma == std::string_view::npos) continue;
    std::string_view path = rest.substr(0, comma);
    if (type == "ADD") {
      log.added.push_back(PrefixOfRecordPath(path));
    } else if (type == "REMOVE") {
      log.removed.push_back(PrefixOfRecordPath(path));
    } else if (type == "COMMIT") {
      log.committed = true;
    } else if (type == "ABORT") {
      log.aborted = true;
    }
  }
  return log;
}

Result<TableDirectoryScan> ScanTableDirectory(FileSystem& fs, const std::string& table_dir) {
  ASSIGN_OR_RETURN(std::vector<DirectoryEntry> entries, fs.ListDirectory(table_dir));
  std::map<std::string, std::string> unreadable;  // prefix -> why
  std::map<std::string, GenerationFiles> generations;
  std::map<std::string, std::string> generation_ids;
  for (const DirectoryEntry& entry : entries) {
    if (entry.is_directory) continue;
    const std::string& name = entry.name;
    if (IsTransactionLogName(name)) {
      auto text = fs.ReadFileToString(JoinPath(table_dir, name));
      if (!text.ok()) continue;  // deleted meanwhile: the transaction is over
      TransactionLog log = ParseTransactionLog(*text);
      if (log.committed) {
        for (const std::string& p : log.removed) unreadable[p] = StrCat("removed by committed ", name);
      } else {
        for (const std::string& p : log.added) {
          unreadable[p] = StrCat("added by ", log.aborted ? "aborted " : "unfinished ", name);
        }
      }
      continue;
    }
    if (StartsWith(name, "tmp-") || StartsWith(name, "tmplink-") || name.find("-tmp-") != std::string::npos ||
        name.find("-tmplink-") != std::string::npos) {
      continue;
    }
    auto parsed = ParseSSTableFileName(name);
    if (!parsed.ok()) continue;
    GenerationFiles& g = generations[parsed->prefix];
    g.prefix = parsed->prefix;
    g.files.push_back(name);
    generation_ids[parsed->prefix] = parsed->generation;
  }
  TableDirectoryScan scan;
  std::vector<std::string> order;
  for (auto& [prefix, g] : generations) {
    std::set<std::string> files(g.files.begin(), g.files.end());
    const std::string& generation = prefix;  // clang 14 lambdas cannot capture a structured binding
    auto held = [&](const std::string& why) { scan.held_back.push_back(StrCat(generation, ": ", why)); };
    if (auto it = unreadable.find(prefix); it != unreadable.end()) {
      held(it->second);
      continue;
    }
    bool complete = true;
    for (const char* required : {"TOC.txt", "Data.db", "Statistics.db"}) {
      if (!files.count(prefix + required)) {
        held(StrCat("no ", required, " yet"));
        complete = false;
        break;
      }
    }
    if (!complete) continue;
    auto toc = fs.ReadFileToString(JoinPath(table_dir, prefix + "TOC.txt"));
    if (!toc.ok()) {
      held("its TOC.txt vanished");
      continue;
    }
    for (const std::string& line : Split(*toc, '\n')) {
      std::string component(Trim(line));
      if (!component.empty() && !files.count(prefix + component)) {
        held(StrCat("its TOC.txt lists ", component, ", not there yet"));
        complete = false;
        break;
      }
    }
    if (!complete) continue;
    std::sort(g.files.begin(), g.files.end());
    order.push_back(prefix);
  }
  std::sort(order.begin(), order.end(), [&](const std::string& a, const std::string& b) {
    const std::string& ga = generation_ids[a];
    const std::string& gb = generation_ids[b];
    if (ga != gb) return GenerationLess(ga, gb);
    return a < b;
  });
  for (const std::string& prefix : order) scan.complete.push_back(std::move(generations[prefix]));
  return scan;
}

}  // namespace cqlite::watch
