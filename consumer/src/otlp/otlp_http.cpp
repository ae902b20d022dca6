// SPDX-License-Identifier: Apache-2.0
#include "otlp/otlp_http.h"

#include <curl/curl.h>
#include <zlib.h>

#include <algorithm>

#include "output/safe_text.h"

namespace vtscope {

Expected<std::string> gzip_compress(const std::string& body) {
    z_stream z{};
    // windowBits 15 + 16: a gzip header and trailer instead of zlib's (zlib.h, deflateInit2).
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return make_error("otlp: cannot start gzip (zlib deflateInit2)");
    std::string out(deflateBound(&z, body.size()), '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(body.data()));
    z.avail_in = static_cast<uInt>(body.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    int rc = deflate(&z, Z_FINISH);
    size_t written = out.size() - z.avail_out;
    deflateEnd(&z);
    // deflateBound is enough for one Z_FINISH call (zlib.h), so anything else is an error.
    if (rc != Z_STREAM_END) return make_error("otlp: gzip failed (zlib deflate " + std::to_string(rc) + ")");
    out.resize(written);
    return out;
}

std::chrono::milliseconds otlp_retry_wait(std::chrono::milliseconds backoff, std::optional<long> retry_after_s,
                                          double unit) {
    using std::chrono::milliseconds;
    if (retry_after_s) {
        milliseconds asked(std::min<long>(std::max<long>(*retry_after_s, 0), 3600) * 1000);
        return std::clamp(asked, kOtlpFirstBackoff, kOtlpMaxBackoff);
    }
    unit = std::clamp(unit, 0.0, 1.0);
    auto half = backoff / 2;
    return half + milliseconds(static_cast<int64_t>(static_cast<double>((backoff - half).count()) * unit));
}

OtlpFailure describe_http_status(long status, const std::string& body, std::optional<long> retry_after_s) {
    OtlpFailure f;
    f.retryable = status == 429 || status == 502 || status == 503 || status == 504;
    f.text = "HTTP " + std::to_string(status);
    if (status == 401)
        f.text +=
            " Unauthorized: the receiver wants credentials it was not given or refused them (a header such "
            "as Authorization: --otlp-header or OTEL_EXPORTER_OTLP_HEADERS)";
    else if (status == 403)
        f.text += " Forbidden: the receiver refused the credentials for this endpoint";
    if (retry_after_s && f.retryable) f.text += " (Retry-After " + std::to_string(*retry_after_s) + " s)";
    // The receiver's words help (bearertokenauth: "missing or empty authorization header"); a
    // reply is the receiver's, made one line and cut short.
    if (!body.empty()) f.text += ": " + terminal_safe(body.substr(0, 200));
    return f;
}

OtlpFailure describe_transport_error(int curl_code, const std::string& message, const std::string& detail) {
    OtlpFailure f;
    f.text = terminal_safe(detail.empty() ? message : detail);
    switch (curl_code) {
        case CURLE_PEER_FAILED_VERIFICATION:
            f.text = "TLS: the receiver's certificate is not trusted (" + f.text +
                     "); give its CA with --otlp-certificate or OTEL_EXPORTER_OTLP_CERTIFICATE";
            return f;
        case CURLE_SSL_CACERT_BADFILE:
        case CURLE_SSL_CERTPROBLEM:
        case CURLE_SSL_CIPHER:
        case CURLE_SSL_ENGINE_NOTFOUND:
        case CURLE_SSL_ENGINE_SETFAILED:
        case CURLE_SSL_ENGINE_INITFAILED: f.text = "TLS: " + f.text; return f;
        case CURLE_COULDNT_CONNECT: f.text = "cannot connect: " + f.text; break;
        case CURLE_OPERATION_TIMEDOUT: f.text = "timed out: " + f.text; break;
        default: break;
    }
    f.retryable = true;
    return f;
}

}  // namespace vtscope
