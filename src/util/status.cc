#include "util/status.h"

namespace cqlite {

const char* StatusKindName(StatusKind kind) {
  switch (kind) {
    case StatusKind::kOk: return "OK";
    case StatusKind::kIOError: return "IO error";
    case StatusKind::kCorruption: return "Corruption";
    case StatusKind::kNotSupported: return "Not supported";
    case StatusKind::kInvalidArgument: return "Invalid argument";
    case StatusKind::kNotFound: return "Not found";
    case StatusKind::kCommitConflict: return "Commit conflict";
    case StatusKind::kBusy: return "Busy";
    case StatusKind::kCommitUnknown: return "Commit outcome unknown";
  }
  return "Unknown";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(StatusKindName(kind_)) + ": " + message_;
}

Status Status::WithContext(const std::string& context) const {
  if (ok()) return *this;
  return Status(kind_, context + ": " + message_);
}

}  // namespace cqlite
