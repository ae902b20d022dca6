// SPDX-License-Identifier: Apache-2.0
package io.vtscope;

import io.vtscope.internal.NativeLibrary;
import io.vtscope.internal.RecordRegion;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Runs in a JVM started with {@code -agentpath:libvtscope.so=vtt,probes} by {@link AgentModeTest}:
 * checks that the Java side adopts the agent's record region and library instead of making its
 * own. Plain checks, no JUnit: exits non-zero with a message on the first failure.
 */
public final class AgentModeChild {
    public static void main(String[] args) throws Exception {
        Path agent = Path.of(args[0]);
        if (args.length > 1 && args[1].equals("probes-only")) {
            // The agent enabled no Virtual Thread Time: the Java side must say so, not fail later.
            check(!VirtualThreadTime.isSupported(), "unsupported when the agent lacks vtt");
            check(VirtualThreadTime.unsupportedReason().contains("initialized with features 2"),
                    VirtualThreadTime.unsupportedReason());
            try {
                VirtualThreadTime.initialize();
                check(false, "initialize() succeeded");
            } catch (IllegalStateException e) {
                check(e.getMessage().contains("(-8)"), "ERR_FEATURES: " + e.getMessage());
            }
            System.out.println("agent mode OK");
            return;
        }
        List<String> regionsAtStart = regionLines();
        check(regionsAtStart.size() == 1, "the agent created one region before main: " + regionsAtStart);
        long agentRegion = Long.parseUnsignedLong(regionsAtStart.getFirst().substring(0, regionsAtStart.getFirst().indexOf('-')), 16);

        check(VirtualThreadTime.isSupported(), "supported: " + VirtualThreadTime.unsupportedReason());
        VirtualThreadTime.initialize();
        NativeLibrary lib = NativeLibrary.get();
        check(lib.path().equals(agent), "the agent's library is reused, not " + lib.path());
        int features = NativeLibrary.FEATURE_VTT | NativeLibrary.FEATURE_PROBES;
        check((lib.features() & features) == features, "features " + lib.features());
        check(RecordRegion.global().address() == agentRegion, "the agent's region is adopted");
        check(regionLines().size() == 1, "no second region: " + regionLines());
        List<String> copies = Files.readAllLines(Path.of("/proc/self/maps")).stream()
                .filter(l -> l.contains("libvtscope")).map(l -> l.substring(l.lastIndexOf(' ') + 1)).distinct().toList();
        check(copies.equals(List.of(agent.toString())), "one copy of the library: " + copies);
        check(VtScope.publish("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", 1), "publish into the adopted region");

        Thread.ofVirtual().start(() -> {
            try (VirtualThreadTime time = VirtualThreadTime.register()) {
                Thread.yield();
                check(time.mountCount() == 1 && time.unmountCount() == 1,
                        "one yield: " + time.mountCount() + " mounts, " + time.unmountCount() + " unmounts");
            }
        }).join();
        check(lib.liveBlocks() == 0, "blocks freed");
        System.out.println("agent mode OK");
    }

    private static List<String> regionLines() throws Exception {
        return Files.readAllLines(Path.of("/proc/self/maps")).stream()
                .filter(l -> l.contains("/memfd:vtscope-records")).toList();
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            System.err.println("FAILED: " + what);
            System.exit(1);
        }
    }

    private AgentModeChild() {}
}
