// SPDX-License-Identifier: Apache-2.0
package io.vtscope.otel;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.vtscope.internal.ProcessResource;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The service-loaded resource customizer, run by the SDK's real autoconfiguration: the resource
 * the SDK ends up with is handed over for libvtscope (the vtscope.process.resource property, kept
 * for a library loaded later, whether or not one is mapped now), except when vtscope's agent
 * extension is the publisher.
 */
class VtScopeResourceCustomizerTest {
    @AfterEach
    void clear() {
        System.clearProperty(ProcessResource.RESOURCE_PROPERTY);
        System.clearProperty(VtScopeContextStorage.PUBLISHER_PROPERTY);
    }

    private static void autoconfigure(String serviceName) {
        OpenTelemetrySdk sdk = AutoConfiguredOpenTelemetrySdk.builder()
                .addPropertiesSupplier(() -> Map.of("otel.service.name", serviceName, "otel.traces.exporter", "none",
                        "otel.metrics.exporter", "none", "otel.logs.exporter", "none"))
                .disableShutdownHook()
                .build()
                .getOpenTelemetrySdk();
        sdk.close();
    }

    private static String hex(String s) {
        return HexFormat.of().formatHex(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void theSdksFinalResourceIsHandedOver() {
        autoconfigure("vtscope-resource-test");
        String handedOver = System.getProperty(ProcessResource.RESOURCE_PROPERTY);
        assertNotNull(handedOver, "no hand-over property after the SDK was built");
        assertTrue(handedOver.contains(hex("service.name")) && handedOver.contains(hex("vtscope-resource-test")),
                handedOver);
        assertTrue(handedOver.contains(hex("telemetry.sdk.language")), "the whole resource: " + handedOver);
    }

    @Test
    void standsDownWhenTheAgentExtensionPublishes() {
        System.setProperty(VtScopeContextStorage.PUBLISHER_PROPERTY, VtScopeContextStorage.PUBLISHER_AGENT_EXTENSION);
        autoconfigure("vtscope-resource-test");
        assertNull(System.getProperty(ProcessResource.RESOURCE_PROPERTY), "published next to the agent extension");
    }
}
