#include "net/aws_sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <algorithm>
#include <ctime>
#include <map>

#include "util/strings.h"

namespace cqlite::net {

namespace {

std::string LowerHex(const unsigned char* bytes, size_t n) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(n * 2);
  for (size_t i = 0; i < n; ++i) {
    out.push_back(kDigits[bytes[i] >> 4]);
    out.push_back(kDigits[bytes[i] & 15]);
  }
  return out;
}

// A header value as signed: trimmed, runs of spaces made one.
std::string CanonicalHeaderValue(std::string_view value) {
  std::string out;
  bool space = false;
  for (char c : Trim(value)) {
    if (c == ' ' || c == '\t') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

}  // namespace

std::string Sha256Hex(std::string_view data) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest);
  return LowerHex(digest, sizeof(digest));
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), digest, &length);
  return std::string(reinterpret_cast<const char*>(digest), length);
}

std::string AwsUriEncode(std::string_view text, bool keep_slash) {
  static const char kDigits[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    bool unreserved = (byte >= 'A' && byte <= 'Z') || (byte >= 'a' && byte <= 'z') || (byte >= '0' && byte <= '9') ||
                      byte == '-' || byte == '.' || byte == '_' || byte == '~';
    if (unreserved || (keep_slash && byte == '/')) {
      out.push_back(c);
    } else {
      out.push_back('%');
      out.push_back(kDigits[byte >> 4]);
      out.push_back(kDigits[byte & 15]);
    }
  }
  return out;
}

std::string AmzDate(int64_t unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y%m%dT%H%M%SZ", &tm);
  return buffer;
}

std::string CanonicalQueryString(const std::vector<std::pair<std::string, std::string>>& query) {
  std::vector<std::pair<std::string, std::string>> encoded;
  encoded.reserve(query.size());
  for (const auto& [name, value] : query) {
    encoded.emplace_back(AwsUriEncode(name, false), AwsUriEncode(value, false));
  }
  std::sort(encoded.begin(), encoded.end());
  std::string out;
  for (const auto& [name, value] : encoded) {
    if (!out.empty()) out.push_back('&');
    out += name;
    out.push_back('=');
    out += value;
  }
  return out;
}

Signature SignV4(const SigningInput& input, const AwsCredentials& credentials) {
  // Names in lower case, sorted; values of a repeated name joined by commas.
  std::map<std::string, std::string> headers;
  for (const auto& [name, value] : input.headers) {
    std::string key = ToLowerAscii(Trim(name));
    std::string canonical = CanonicalHeaderValue(value);
    auto [it, inserted] = headers.emplace(key, canonical);
    if (!inserted) it->second += "," + canonical;
  }
  std::string canonical_headers, signed_headers;
  for (const auto& [name, value] : headers) {
    canonical_headers += StrCat(name, ":", value, "\n");
    if (!signed_headers.empty()) signed_headers.push_back(';');
    signed_headers += name;
  }
  Signature out;
  out.canonical_request = StrCat(input.method, "\n", input.canonical_uri.empty() ? "/" : input.canonical_uri, "\n",
                                 CanonicalQueryString(input.query), "\n", canonical_headers, "\n", signed_headers,
                                 "\n", input.payload_hash);
  const std::string date = input.amz_date.substr(0, 8);
  const std::string scope = StrCat(date, "/", input.region, "/", input.service, "/aws4_request");
  out.string_to_sign =
      StrCat("AWS4-HMAC-SHA256\n", input.amz_date, "\n", scope, "\n", Sha256Hex(out.canonical_request));
  std::string key = HmacSha256(StrCat("AWS4", credentials.secret_access_key), date);
  key = HmacSha256(key, input.region);
  key = HmacSha256(key, input.service);
  key = HmacSha256(key, "aws4_request");
  std::string raw = HmacSha256(key, out.string_to_sign);
  out.signature = LowerHex(reinterpret_cast<const unsigned char*>(raw.data()), raw.size());
  out.authorization = StrCat("AWS4-HMAC-SHA256 Credential=", credentials.access_key_id, "/", scope,
                             ",SignedHeaders=", signed_headers, ",Signature=", out.signature);
  return out;
}

}  // namespace cqlite::net
