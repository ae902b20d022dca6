// SPDX-License-Identifier: Apache-2.0
// What `vtscope profile` reports, apart from where the samples come from: over the model
// (core/profile_model.h), the text report (profile_text.h), the "profile" object of
// --summary-json (profile_json.h) and folded stacks (folded_stacks.h). Pure functions:
// unit-tested alone.
#pragma once

#include "core/profile_model.h"
#include "output/folded_stacks.h"
#include "output/profile_json.h"
#include "output/profile_text.h"
