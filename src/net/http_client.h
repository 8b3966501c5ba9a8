// A small HTTP/1.1 client (http and https) over libcurl, for the REST
// catalog: the only file in CQLite that includes <curl/curl.h>. A request
// has a connect timeout and a total timeout; SendWithRetries repeats an
// idempotent request after a pause that doubles each time (with jitter) when
// the connection fails or the server answers 5xx, and gives back the last
// outcome. An HTTP error status is a response, not an error: the caller
// decides what it means. Messages name the method and the URL (whose user
// part, if any, is left out), never a header's value, since headers carry
// credentials.
//
// Thread-compatible: one HttpClient per thread (it keeps one connection
// open between requests).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/status.h"

namespace cqlite::net {

struct HttpRequest {
  std::string method = "GET";  // GET, HEAD, POST, PUT, DELETE
  std::string url;             // http://... or https://...
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;            // sent when not empty, or for POST and PUT
};

struct HttpResponse {
  int status = 0;
  std::string body;
  std::string content_type;  // empty when the server sent none
  // The response's header fields, names in lower case, in the order sent
  // (the last response's, after redirects or 100-continue).
  std::vector<std::pair<std::string, std::string>> headers;

  // The value of the first header field named `name` (lower case), if any.
  const std::string* Header(std::string_view name) const;
};

struct HttpClientOptions {
  int connect_timeout_ms = 10'000;
  int request_timeout_ms = 120'000;  // the whole exchange, connecting included
  int max_attempts = 4;              // SendWithRetries: first try included
  int initial_backoff_ms = 250;      // the first pause; then doubled, up to max_backoff_ms
  int max_backoff_ms = 8'000;
  // A PEM file of the certificate authorities https servers are checked
  // against; empty: the system's (OpenSSL's default store).
  std::string ca_file;
  // Called instead of sleeping between attempts (tests).
  std::function<void(int ms)> sleep;
};

// Whether `method` may be repeated without changing the outcome (RFC 9110 9.2.2).
bool IsIdempotent(std::string_view method);
// Whether a response with this status is worth retrying: 500, 502, 503, 504.
bool IsRetryableStatus(int status);
// `url` without its query and user part: what messages name an endpoint by.
std::string UrlForMessages(std::string_view url);

class HttpClient {
 public:
  explicit HttpClient(HttpClientOptions options = {});
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Sends `request` once. IOError naming the method and URL when no full
  // response came back (connection refused or lost, timeout, TLS failure):
  // the request may or may not have reached the server.
  Result<HttpResponse> Send(const HttpRequest& request);

  // Send, repeated while the outcome is an IOError or a retryable status and
  // the request is idempotent, at most max_attempts times; the last outcome.
  Result<HttpResponse> SendWithRetries(const HttpRequest& request);

  // The pause before attempt `attempt` + 1 (attempt counts from 1).
  int BackoffMs(int attempt) const;

  const HttpClientOptions& options() const { return options_; }

 private:
  struct Handle;
  HttpClientOptions options_;
  std::unique_ptr<Handle> handle_;
};

}  // namespace cqlite::net
