// SPDX-License-Identifier: Apache-2.0
// OTLP, all of it but the transports: where to send (otlp_config.h), the resource
// (otlp_resource.h), the model (otlp_model.h), the requests of the three signals as the
// generated opentelemetry-proto messages (log_encoder.h, metric_encoder.h, profile_encoder.h),
// their bodies for http/protobuf and http/json (otlp_protocol.h, otlp_json.h), stat's metrics
// (syscall_metrics.h) and the response (otlp_response.h). Pure functions: unit-tested without a
// Collector (otlp_encoding_test.cpp).
#pragma once

#include "otlp/log_encoder.h"
#include "otlp/metric_encoder.h"
#include "otlp/otlp_config.h"
#include "otlp/otlp_json.h"
#include "otlp/otlp_model.h"
#include "otlp/otlp_protocol.h"
#include "otlp/otlp_resource.h"
#include "otlp/otlp_response.h"
#include "otlp/profile_encoder.h"
#include "otlp/syscall_metrics.h"
