// SPDX-License-Identifier: Apache-2.0
// OTLP/HTTP with the JSON encoding, all of it: where to send (otlp_config.h), the resource
// (otlp_resource.h), the model (otlp_model.h), the encoders of the three signals (log_encoder.h,
// metric_encoder.h, profile_encoder.h), stat's metrics (syscall_metrics.h) and the response
// (otlp_response.h). Pure functions: unit-tested without a Collector (otlp_encoding_test.cpp).
#pragma once

#include "otlp/log_encoder.h"
#include "otlp/metric_encoder.h"
#include "otlp/otlp_config.h"
#include "otlp/otlp_model.h"
#include "otlp/otlp_resource.h"
#include "otlp/otlp_response.h"
#include "otlp/profile_encoder.h"
#include "otlp/syscall_metrics.h"
