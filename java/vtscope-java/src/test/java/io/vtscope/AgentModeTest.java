// SPDX-License-Identifier: Apache-2.0
package io.vtscope;

import static org.junit.jupiter.api.Assertions.*;

import io.vtscope.internal.NativeTestSupport;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JVM started with the library as an agent ({@link AgentModeChild} runs there): Java reuses its
 * library and record region, and respects the features it was started with.
 */
class AgentModeTest {
    @Test
    void javaAdoptsTheAgentsLibraryAndRegion(@TempDir Path tmp) throws Exception {
        runChild(tmp, "vtt,probes");
    }

    @Test
    void agentWithoutVirtualThreadTimeMakesItUnsupported(@TempDir Path tmp) throws Exception {
        runChild(tmp, "probes", "probes-only");
    }

    private static void runChild(Path tmp, String agentOptions, String... childArgs) throws Exception {
        Path library = NativeTestSupport.builtLibrary().toRealPath();
        String classPath = Path.of(VirtualThreadTime.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                + File.pathSeparator
                + Path.of(AgentModeChild.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "-agentpath:" + library + "=" + agentOptions,
                "-Dvtscope.probes=true",
                // Were the agent's library not reused, it would be extracted here instead.
                "-Dvtscope.tmpdir=" + tmp,
                "-cp", classPath,
                AgentModeChild.class.getName(), library.toString()));
        command.addAll(List.of(childArgs));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), "child JVM finished");
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, child.exitValue(), output);
        assertTrue(output.contains("agent mode OK"), output);
    }
}
