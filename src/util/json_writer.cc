#include "util/json_writer.h"

namespace cqlite {

std::string JsonWriter::Quote(std::string_view value) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(value.size() + 2);
  out.push_back('"');
  for (char c : value) {
    auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (u < 0x20) {
          out += "\\u00";
          out.push_back(kHex[u >> 4]);
          out.push_back(kHex[u & 0xf]);
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
  return out;
}

void JsonWriter::NewLine() {
  if (indent_ == 0) return;
  out_ << '\n';
  for (size_t i = 0; i < has_elements_.size() * indent_; ++i) out_ << ' ';
}

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_elements_.empty()) {
    if (has_elements_.back()) out_ << ',';
    has_elements_.back() = true;
    NewLine();
  }
}

void JsonWriter::Key(std::string_view key) {
  BeforeValue();
  out_ << Quote(key) << (indent_ ? " : " : ":");
  after_key_ = true;
}

void JsonWriter::String(std::string_view value) {
  BeforeValue();
  out_ << Quote(value);
}

void JsonWriter::Raw(std::string_view json) {
  BeforeValue();
  out_ << json;
}

void JsonWriter::Open(char bracket) {
  BeforeValue();
  out_ << bracket;
  has_elements_.push_back(false);
}

void JsonWriter::Close(char bracket) {
  bool had = has_elements_.back();
  has_elements_.pop_back();
  if (had) NewLine();
  out_ << bracket;
  if (has_elements_.empty() && indent_) out_ << '\n';
}

}  // namespace cqlite
