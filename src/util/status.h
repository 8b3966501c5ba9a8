// Errors as values. Every fallible operation in CQLite returns a Status or a
// Result<T>; exceptions from third-party libraries are caught in the one file
// that wraps the library, and main() is the only other catch.
//
// A Status carries a kind (what went wrong, for callers that branch on it) and
// a message that names the file, component and byte offset where that makes
// sense (for the person reading it). Thread-compatible value types.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace cqlite {

enum class StatusKind {
  kOk,
  kIOError,          // the operating system refused a read or write
  kCorruption,       // bytes on disk do not follow the format
  kNotSupported,     // a valid input this version does not handle
  kInvalidArgument,  // the caller (often the user) asked for something wrong
  kNotFound,         // a file, table or column that should exist does not
  kCommitConflict,   // someone else committed first
  kBusy,             // another process holds what is asked for (a lock)
  kCommitUnknown,    // a commit whose outcome could not be learned (a lost connection)
};

const char* StatusKindName(StatusKind kind);

class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status OK() { return Status(); }
  static Status IOError(std::string msg) { return Status(StatusKind::kIOError, std::move(msg)); }
  static Status Corruption(std::string msg) { return Status(StatusKind::kCorruption, std::move(msg)); }
  static Status NotSupported(std::string msg) { return Status(StatusKind::kNotSupported, std::move(msg)); }
  static Status InvalidArgument(std::string msg) {
    return Status(StatusKind::kInvalidArgument, std::move(msg));
  }
  static Status NotFound(std::string msg) { return Status(StatusKind::kNotFound, std::move(msg)); }
  static Status CommitConflict(std::string msg) {
    return Status(StatusKind::kCommitConflict, std::move(msg));
  }
  static Status Busy(std::string msg) { return Status(StatusKind::kBusy, std::move(msg)); }
  static Status CommitUnknown(std::string msg) { return Status(StatusKind::kCommitUnknown, std::move(msg)); }

  bool ok() const { return kind_ == StatusKind::kOk; }
  StatusKind kind() const { return kind_; }
  const std::string& message() const { return message_; }

  // "Corruption: <message>", or "OK".
  std::string ToString() const;

  // Returns a copy whose message is "<context>: <message>".
  Status WithContext(const std::string& context) const;

 private:
  Status(StatusKind kind, std::string message) : kind_(kind), message_(std::move(message)) {}

  StatusKind kind_ = StatusKind::kOk;
  std::string message_;
};

// A value or the Status explaining why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Status status) : state_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    assert(!std::get<Status>(state_).ok() && "a Result needs a value or an error");
  }

  bool ok() const { return std::holds_alternative<T>(state_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(state_);
  }

  // REQUIRES: ok()
  T& value() & { return std::get<T>(state_); }
  const T& value() const& { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> state_;
};

}  // namespace cqlite

#define CQLITE_CONCAT_INNER(a, b) a##b
#define CQLITE_CONCAT(a, b) CQLITE_CONCAT_INNER(a, b)

// Returns the Status from the enclosing function if it is not OK.
#define RETURN_IF_ERROR(expr)                  \
  do {                                         \
    ::cqlite::Status _st = (expr);             \
    if (!_st.ok()) return _st;                 \
  } while (0)

#define ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                          \
  if (!tmp.ok()) return tmp.status();         \
  lhs = std::move(tmp).value()

// `ASSIGN_OR_RETURN(auto x, Foo());` declares x from a Result or returns its error.
#define ASSIGN_OR_RETURN(lhs, expr) \
  ASSIGN_OR_RETURN_IMPL(CQLITE_CONCAT(_result_, __LINE__), lhs, expr)
