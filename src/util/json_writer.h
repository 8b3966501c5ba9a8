// A streaming JSON writer: output goes to a std::ostream as it is produced, so
// dumping a large SSTable needs no memory for the document. Inserts commas
// and indentation; the caller keeps objects and arrays balanced.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace cqlite {

class JsonWriter {
 public:
  // indent 0 writes everything on one line.
  explicit JsonWriter(std::ostream& out, int indent = 2) : out_(out), indent_(indent) {}

  void BeginObject() { Open('{'); }
  void EndObject() { Close('}'); }
  void BeginArray() { Open('['); }
  void EndArray() { Close(']'); }
  // The next value belongs to this key.
  void Key(std::string_view key);
  void String(std::string_view value);
  // Text that is already JSON (a number, a quoted string, an object...).
  void Raw(std::string_view json);
  void Int(int64_t value) { Raw(std::to_string(value)); }
  void UInt(uint64_t value) { Raw(std::to_string(value)); }
  void Bool(bool value) { Raw(value ? "true" : "false"); }
  void Null() { Raw("null"); }

  // A quoted, escaped JSON string for `value` (UTF-8 passes through).
  static std::string Quote(std::string_view value);

 private:
  void Open(char bracket);
  void Close(char bracket);
  void BeforeValue();
  void NewLine();

  std::ostream& out_;
  int indent_;
  // Per open container: has it any element yet?
  std::vector<bool> has_elements_;
  bool after_key_ = false;
};

}  // namespace cqlite
