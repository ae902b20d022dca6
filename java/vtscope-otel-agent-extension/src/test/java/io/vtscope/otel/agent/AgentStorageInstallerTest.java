// SPDX-License-Identifier: Apache-2.0
package io.vtscope.otel.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.opentelemetry.context.Context;
import io.vtscope.otel.VtScopeContextStorage;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The installer against the plain opentelemetry-context (the same code the agent carries, shaded):
 * outside the agent it does nothing, and a wrapper registered after the storage was initialised
 * (what happens when the extension runs too late) gives exactly one WARN line. The storage can be
 * initialised only once per JVM, so one test walks through the cases in order.
 */
class AgentStorageInstallerTest {
    private final List<LogRecord> records = new ArrayList<>();
    private final Logger logger = Logger.getLogger(AgentStorageInstaller.class.getName());
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    @BeforeEach
    void capture() {
        logger.addHandler(handler);
        logger.setUseParentHandlers(false); // the expected WARN goes to the test, not the console
        AgentStorageInstaller.resetForTest();
    }

    @AfterEach
    void release() {
        logger.removeHandler(handler);
        logger.setUseParentHandlers(true);
        AgentStorageInstaller.resetForTest();
    }

    @Test
    void outsideTheAgentNothingThenTooLateWarnsOnce() {
        // Unshaded context: not the agent's, so the extension leaves it alone and says nothing.
        AgentStorageInstaller.install();
        assertNull(AgentStorageInstaller.verify());
        assertTrue(records.stream().noneMatch(r -> r.getLevel().intValue() >= Level.WARNING.intValue()));

        // The storage is initialised now (the call above, as any early Context use would), so a
        // wrapper registered after it is dropped by OpenTelemetry: the too-late case.
        Context.current();
        AgentStorageInstaller.resetForTest();
        records.clear();
        AgentStorageInstaller.installForTest();
        String warning = AgentStorageInstaller.verify();
        assertNotNull(warning);
        assertTrue(warning.contains("initialised before the extension ran"), warning);
        List<LogRecord> warnings = records.stream().filter(r -> r.getLevel() == Level.WARNING).toList();
        assertEquals(1, warnings.size());
        assertEquals(warning, warnings.get(0).getMessage());
        assertNull(System.getProperty(VtScopeContextStorage.PUBLISHER_PROPERTY), "no publisher claimed");

        // Verified once: a second check logs nothing more.
        assertNull(AgentStorageInstaller.verify());
        assertEquals(1, records.stream().filter(r -> r.getLevel() == Level.WARNING).count());
    }
}
