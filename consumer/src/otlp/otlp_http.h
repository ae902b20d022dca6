// SPDX-License-Identifier: Apache-2.0
// The pure parts of the OTLP/HTTP sender (otlp_exporter.cpp): the gzip body, the wait before a
// retry, and how a failed attempt is named and whether it is worth retrying.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "core/expected.h"

namespace vtscope {

// body as one gzip member (RFC 1952, zlib's deflate with a gzip wrapper), for
// Content-Encoding: gzip (OTLP/HTTP specification: "gzip" is the compression receivers take).
Expected<std::string> gzip_compress(const std::string& body);

// The bounds of the exponential backoff between attempts: 100 ms doubling to 5 s.
inline constexpr std::chrono::milliseconds kOtlpFirstBackoff{100};
inline constexpr std::chrono::milliseconds kOtlpMaxBackoff{5000};

// The wait before the next attempt. Without Retry-After: the backoff with "equal jitter" (half of
// it, plus a uniform share of the other half: unit is uniform in [0, 1)), so that exporters that
// failed together do not retry in step. With the receiver's Retry-After (429 and 503, RFC 9110
// section 10.2.3, in seconds): that wait, held within the backoff's bounds (a receiver cannot hold
// the session's export for minutes, nor make it spin).
std::chrono::milliseconds otlp_retry_wait(std::chrono::milliseconds backoff, std::optional<long> retry_after_s,
                                          double unit);

// A failed attempt: what it says, in one line (no header value), and whether to try again.
struct OtlpFailure {
    std::string text;
    bool retryable = false;
};
// An HTTP reply that is not 2xx. 429, 502, 503 and 504 are retryable (OTLP/HTTP specification,
// "Retryable Response Codes"); 401 and 403 say the credentials are refused. body: the reply's
// start, quoted (made one line) after the status.
OtlpFailure describe_http_status(long status, const std::string& body, std::optional<long> retry_after_s);
// A transport failure (libcurl's code, its message and error buffer). TLS verification failures
// and an unreadable certificate or key are not retryable: no later attempt fixes them. Every other
// one (no connection, reset, timeout) is.
OtlpFailure describe_transport_error(int curl_code, const std::string& message, const std::string& detail);

}  // namespace vtscope
