// A minimal JSON writer for the run report (objects, arrays, strings, numbers, booleans).
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace eigsolve {

class JsonWriter {
 public:
  JsonWriter& begin_object(const char* key = nullptr);
  JsonWriter& end_object();
  JsonWriter& begin_array(const char* key = nullptr);
  JsonWriter& end_array();
  JsonWriter& value(const char* key, const std::string& s);
  JsonWriter& value(const char* key, const char* s) { return value(key, std::string(s)); }
  JsonWriter& value(const char* key, double x);  ///< shortest round-trip; NaN/Inf -> null
  JsonWriter& value(const char* key, long long x);
  JsonWriter& value(const char* key, int x) { return value(key, static_cast<long long>(x)); }
  JsonWriter& value(const char* key, bool b);
  /// A number already formatted (e.g. a dd eigenvalue with 34 digits), written unquoted.
  JsonWriter& raw_number(const char* key, const std::string& digits);
  std::string str() const { return out_.str() + "\n"; }

 private:
  void prefix(const char* key);
  static std::string quote(const std::string& s);
  std::ostringstream out_;
  std::vector<bool> first_{true};
};

}  // namespace eigsolve
