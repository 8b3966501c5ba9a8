// AWS Signature Version 4 for S3 requests: the canonical request, the string
// to sign, the signing key and the Authorization header (SHA-256 and
// HMAC-SHA256 from OpenSSL's libcrypto). Pure functions of their inputs, so
// that the worked examples AWS publishes can be checked exactly; the time is
// given by the caller.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cqlite::net {

struct AwsCredentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // empty unless temporary credentials
  // Where they were found ("environment", or the profile and file), for messages.
  std::string source;
};

// Lower-case hex of the SHA-256 of `data`.
std::string Sha256Hex(std::string_view data);
// The raw 32-byte HMAC-SHA256 of `data` under `key`.
std::string HmacSha256(std::string_view key, std::string_view data);

// RFC 3986 percent-encoding as Signature V4 wants it: every byte but
// A-Z a-z 0-9 - . _ ~ as %XY (upper-case hex); '/' kept when `keep_slash`
// (an object key in a path).
std::string AwsUriEncode(std::string_view text, bool keep_slash);

// "20130524T000000Z" for a time in seconds since the Unix epoch.
std::string AmzDate(int64_t unix_seconds);

// The hashed payload of a request whose body is not signed.
inline constexpr char kUnsignedPayload[] = "UNSIGNED-PAYLOAD";

struct SigningInput {
  std::string method;      // GET, PUT, ...
  std::string canonical_uri;  // the path, already URI-encoded ("/bucket/key")
  // The query parameters, not encoded; sorted and encoded by the signer.
  std::vector<std::pair<std::string, std::string>> query;
  // The headers to sign (host included), any case; trimmed and sorted by the signer.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string payload_hash;  // Sha256Hex(body), or kUnsignedPayload
  std::string amz_date;      // "YYYYMMDDTHHMMSSZ"
  std::string region;
  std::string service = "s3";
};

struct Signature {
  std::string canonical_request;
  std::string string_to_sign;
  std::string signature;      // lower-case hex
  std::string authorization;  // the Authorization header's value
};

// The query string as sent and as signed: parameters sorted by name (then
// value), names and values encoded, "name=value" joined by '&'.
std::string CanonicalQueryString(const std::vector<std::pair<std::string, std::string>>& query);

Signature SignV4(const SigningInput& input, const AwsCredentials& credentials);

}  // namespace cqlite::net
