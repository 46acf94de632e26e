#include "app/json.hpp"

#include <charconv>
#include <cmath>

namespace eigsolve {

std::string JsonWriter::quote(const std::string& s) {
  std::string q = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        q += "\\\"";
        break;
      case '\\':
        q += "\\\\";
        break;
      case '\n':
        q += "\\n";
        break;
      case '\t':
        q += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          q += buf;
        } else {
          q += c;
        }
    }
  }
  return q + "\"";
}

void JsonWriter::prefix(const char* key) {
  if (!first_.back()) out_ << ",";
  first_.back() = false;
  out_ << "\n" << std::string(2 * (first_.size() - 1), ' ');
  if (key) out_ << quote(key) << ": ";
}

JsonWriter& JsonWriter::begin_object(const char* key) {
  if (first_.size() > 1 || key) prefix(key);
  out_ << "{";
  first_.push_back(true);
  return *this;
}
JsonWriter& JsonWriter::end_object() {
  first_.pop_back();
  out_ << "\n" << std::string(2 * (first_.size() - 1), ' ') << "}";
  return *this;
}
JsonWriter& JsonWriter::begin_array(const char* key) {
  prefix(key);
  out_ << "[";
  first_.push_back(true);
  return *this;
}
JsonWriter& JsonWriter::end_array() {
  first_.pop_back();
  out_ << "\n" << std::string(2 * (first_.size() - 1), ' ') << "]";
  return *this;
}
JsonWriter& JsonWriter::value(const char* key, const std::string& s) {
  prefix(key);
  out_ << quote(s);
  return *this;
}
JsonWriter& JsonWriter::value(const char* key, double x) {
  prefix(key);
  if (!std::isfinite(x)) {
    out_ << "null";
  } else {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, x);
    out_ << std::string(buf, r.ptr);
  }
  return *this;
}
JsonWriter& JsonWriter::value(const char* key, long long x) {
  prefix(key);
  out_ << x;
  return *this;
}
JsonWriter& JsonWriter::value(const char* key, bool b) {
  prefix(key);
  out_ << (b ? "true" : "false");
  return *this;
}
JsonWriter& JsonWriter::raw_number(const char* key, const std::string& digits) {
  prefix(key);
  out_ << digits;
  return *this;
}

}  // namespace eigsolve
