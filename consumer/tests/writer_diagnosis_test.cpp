// SPDX-License-Identifier: Apache-2.0
#include "channels/writer_diagnosis.h"

#include <gtest/gtest.h>

#include "../../common/vtscope_record.h"
#include "channels/record_region.h"
#include "core/summary.h"

using vtscope::explain_missing_region;
using vtscope::ProcessFacts;

TEST(WriterDiagnosis, AgentWithoutExtensionIsNamed) {
    ProcessFacts facts;
    facts.arguments = {"java", "-javaagent:/opt/otel/opentelemetry-javaagent.jar", "-cp", "app.jar", "Main"};
    std::string why = explain_missing_region(facts);
    EXPECT_NE(why.find("OpenTelemetry Java agent (/opt/otel/opentelemetry-javaagent.jar) without vtscope's agent "
                       "extension"),
              std::string::npos)
        << why;
    EXPECT_EQ(why.find("put vtscope-java.jar"), std::string::npos) << why;
}

TEST(WriterDiagnosis, AgentWithExtensionHasNotPublishedYet) {
    ProcessFacts facts;
    facts.arguments = {"java", "-javaagent:otel/opentelemetry-javaagent-2.33.1.jar",
                       "-Dotel.javaagent.extensions=/x/vtscope-otel-agent-extension.jar", "-jar", "app.jar"};
    EXPECT_NE(explain_missing_region(facts).find("with vtscope's agent extension, which has published no context"),
              std::string::npos);
}

TEST(WriterDiagnosis, WriterOnTheClassPathOrOpen) {
    ProcessFacts facts;
    facts.arguments = {"java", "-cp", "/b/vtscope-java.jar:/b/app.jar", "Main"};
    EXPECT_NE(explain_missing_region(facts).find("writer is in the target but has published no context yet"),
              std::string::npos);
    ProcessFacts wildcard;
    wildcard.arguments = {"java", "-cp", "/b/java/*", "Main"};
    wildcard.open_files = {"/dev/null", "/b/java/vtscope-java.jar"};
    EXPECT_NE(explain_missing_region(wildcard).find("has published no context yet"), std::string::npos);
    ProcessFacts env;
    env.arguments = {"java", "Main"};
    env.class_path_env = "/lib/vtscope-java.jar";
    EXPECT_NE(explain_missing_region(env).find("has published no context yet"), std::string::npos);
}

TEST(WriterDiagnosis, NoWriterAtAll) {
    ProcessFacts facts;
    facts.arguments = {"java", "-cp", "app.jar", "Main"};
    EXPECT_NE(explain_missing_region(facts).find("no record region found"), std::string::npos);
}

TEST(WriterDiagnosis, MissingWriterNamesTheAgentOrTheWriters) {
    ProcessFacts agent;
    agent.arguments = {"java",
                       "-javaagent:/opt/otel/opentelemetry-javaagent.jar",
                       "-agentpath:/b/libvtscope.so=otep",
                       "-cp",
                       "app.jar",
                       "Main"};
    std::string why = vtscope::explain_missing_writer(agent);
    EXPECT_NE(why.find("OpenTelemetry Java agent (/opt/otel/opentelemetry-javaagent.jar) without vtscope's agent "
                       "extension"),
              std::string::npos)
        << why;
    EXPECT_NE(why.find("context_unknown (no_context_writer), never no_context"), std::string::npos) << why;

    // With the extension the agent is not the reason (its storage declares itself once installed).
    ProcessFacts extension = agent;
    extension.arguments.insert(extension.arguments.begin() + 2,
                               "-Dotel.javaagent.extensions=/b/vtscope-otel-agent-extension.jar");
    why = vtscope::explain_missing_writer(extension);
    EXPECT_EQ(why.find("OpenTelemetry Java agent ("), std::string::npos) << why;
    EXPECT_NE(why.find("no context writer (vtscope-otel, vtscope's agent extension or io.vtscope.VtScope)"),
              std::string::npos)
        << why;
}

TEST(WriterDiagnosis, ContextWriterBitsByName) {
    EXPECT_EQ(vtscope::describe_context_writers(0), "none");
    EXPECT_EQ(vtscope::describe_context_writers(VTSCOPE_WRITER_OTEL_STORAGE), "otel-storage");
    EXPECT_EQ(vtscope::describe_context_writers(VTSCOPE_WRITER_API), "api");
    EXPECT_EQ(vtscope::describe_context_writers(VTSCOPE_WRITER_OTEL_STORAGE | VTSCOPE_WRITER_API), "otel-storage,api");
    EXPECT_EQ(vtscope::describe_context_writers(VTSCOPE_WRITER_API | 8), "api,unknown(8)");
}

// A writer that declares itself while no event of the session had a context: one note says that
// no span was ever current, in the text and in the JSON; one event with a context silences it.
TEST(WriterDiagnosis, NoSpanEverCurrentIsSaid) {
    vtscope::Summary s;
    s.region_found = true;
    s.writer = vtscope::WriterStats{4, 0, 0, VTSCOPE_WRITER_OTEL_STORAGE};
    s.delivered[VTSCOPE_STATUS_NO_CONTEXT] = 120;
    std::string text = vtscope::render_summary_text(s);
    EXPECT_NE(text.find("vtscope: note: no event had a trace context: the context writer (otel-storage) is there, "
                        "but no span was current on any thread observed"),
              std::string::npos)
        << text;
    EXPECT_NE(vtscope::render_summary_json(s).find("\"why_no_context\":\"no event had a trace context"),
              std::string::npos);
    s.delivered[VTSCOPE_STATUS_OK] = 1;
    EXPECT_EQ(vtscope::no_context_explanation(s), "");
    EXPECT_EQ(vtscope::render_summary_text(s).find("no event had a trace context"), std::string::npos);
    s.delivered[VTSCOPE_STATUS_OK] = 0;
    s.writer->context_writers = 0;  // no writer: missing_writer says why instead
    EXPECT_EQ(vtscope::no_context_explanation(s), "");
}
