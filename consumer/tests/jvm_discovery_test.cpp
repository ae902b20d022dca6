// SPDX-License-Identifier: Apache-2.0
// `vtscope list` and `--pid NAME` without a process: the main class or jar of a java command
// line, the JDK's version, which JVM a name selects, and the output with the target's strings.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "jvm/jvm_discovery.h"
#include "output/jvm_list.h"

using vtscope::java_main;
using vtscope::JvmProcess;

TEST(JvmDiscovery, MainClassOrJarOfACommandLine) {
    EXPECT_EQ(java_main({"java", "-jar", "/srv/app/demo.jar", "--port", "8080"}), "demo.jar");
    EXPECT_EQ(java_main({"java", "-cp", "a.jar:b.jar", "-Xmx1g", "io.demo.Main", "x"}), "io.demo.Main");
    EXPECT_EQ(java_main({"java", "--class-path", "lib/*", "-Dotel.service.name=s", "Main"}), "Main");
    EXPECT_EQ(
        java_main({"java", "--add-opens", "java.base/java.lang=ALL-UNNAMED", "-p", "mods", "--module", "app/app.Main"}),
        "app.Main");
    EXPECT_EQ(java_main({"java", "--module=app/app.Main"}), "app.Main");
    EXPECT_EQ(java_main({"java", "-m", "app"}), "app");
    EXPECT_EQ(java_main({"java", "@args.txt", "--enable-native-access", "ALL-UNNAMED", "Main"}), "Main");
    // A launcher with nothing else (an embedded JVM): its own name.
    EXPECT_EQ(java_main({"/opt/app/bin/server"}), "server");
    EXPECT_EQ(java_main({"java", "-jar"}), "");
    EXPECT_EQ(java_main({}), "");
}

TEST(JvmDiscovery, JavaVersionOfAReleaseFile) {
    EXPECT_EQ(vtscope::release_java_version("IMPLEMENTOR=\"Eclipse Adoptium\"\nJAVA_VERSION=\"25.0.3\"\n"), "25.0.3");
    EXPECT_EQ(vtscope::release_java_version("JAVA_VERSION=\"21.0.8\"\nMODULES=\"java.base\"\n"), "21.0.8");
    EXPECT_EQ(vtscope::release_java_version("JAVA_RUNTIME_VERSION=\"25.0.3+9-LTS\"\n"), "");
    EXPECT_EQ(vtscope::release_java_version("JAVA_VERSION=\"unterminated"), "");
    EXPECT_EQ(vtscope::release_java_version("JAVA_VERSION=\"" + std::string(100, '9') + "\""), "");
}

namespace {
std::vector<JvmProcess> host() {
    std::vector<JvmProcess> jvms(4);
    jvms[0] = {101, "io.demo.Checkout", "checkout", "25.0.3", 10, "vtscope"};
    jvms[1] = {102, "io.demo.CheckoutWorker", "", "21.0.8", 20, "none"};
    jvms[2] = {103, "billing.jar", "billing", "25.0.3", 30, "agent"};
    jvms[3] = {104, "billing.jar", "billing-canary", "25.0.3", 40, "agent"};
    return jvms;
}
}  // namespace

TEST(JvmDiscovery, ANameSelectsOneJvmOrListsTheCandidates) {
    auto jvms = host();
    // Equal to a simple name, a full name or a service.name wins over names that contain it.
    EXPECT_EQ(*vtscope::select_jvm("Checkout", jvms), 101);
    EXPECT_EQ(*vtscope::select_jvm("io.demo.CheckoutWorker", jvms), 102);
    EXPECT_EQ(*vtscope::select_jvm("billing-canary", jvms), 104);
    EXPECT_EQ(*vtscope::select_jvm("Worker", jvms), 102);
    auto two = vtscope::select_jvm("billing.jar", jvms);
    ASSERT_FALSE(two);
    EXPECT_EQ(two.error().message,
              "'billing.jar' matches 2 JVMs: 103 (billing.jar), 104 (billing.jar); give one with --pid PID");
    auto none = vtscope::select_jvm("\x1b]0;x\x07", jvms);
    ASSERT_FALSE(none);
    EXPECT_EQ(none.error().message, "no JVM matches '\\x1b]0;x\\x07' (vtscope list shows the JVMs on this host)");
}

TEST(JvmList, TargetStringsStayOneSafeLine) {
    std::vector<JvmProcess> jvms(1);
    jvms[0] = {7, "evil\nMain\x1b[2J\xff", "svc\t\xc3", "25.0.3", 3725, "none"};
    std::string table = vtscope::render_jvm_table(jvms);
    EXPECT_EQ(
        table,
        "PID      UPTIME   JDK        WRITER      SERVICE               MAIN\n"
        "7        1h02m    25.0.3     none        svc\\t\xEF\xBF\xBD              evil\\nMain\\x1b[2J\xEF\xBF\xBD\n");
    std::string json = vtscope::render_jvm_json_lines(jvms);
    auto line = nlohmann::json::parse(json, nullptr, false);
    ASSERT_FALSE(line.is_discarded()) << json;
    EXPECT_EQ(line["main"], "evil\nMain\x1b[2J\xEF\xBF\xBD");
    EXPECT_EQ(line["uptime_s"], 3725);
    EXPECT_EQ(vtscope::uptime_text(42), "42s");
    EXPECT_EQ(vtscope::uptime_text(723), "12m03s");
    EXPECT_EQ(vtscope::uptime_text(2 * 86400 + 4 * 3600 + 5), "2d04h");
}
