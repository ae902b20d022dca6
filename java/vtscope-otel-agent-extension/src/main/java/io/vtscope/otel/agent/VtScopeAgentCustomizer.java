// SPDX-License-Identifier: Apache-2.0
package io.vtscope.otel.agent;

import io.opentelemetry.sdk.autoconfigure.spi.AutoConfigurationCustomizer;
import io.opentelemetry.sdk.autoconfigure.spi.AutoConfigurationCustomizerProvider;
import java.util.Map;

/**
 * The extension's entry point: the OpenTelemetry Java agent loads it from
 * {@code -Dotel.javaagent.extensions=vtscope-otel-agent-extension.jar} while it builds its SDK, and
 * runs the properties customizer before the agent initialises its (shaded) context storage. That
 * is early enough for {@code ContextStorage.addWrapper}; later hooks are not (see
 * {@link AgentStorageInstaller}).
 */
public final class VtScopeAgentCustomizer implements AutoConfigurationCustomizerProvider {
    @Override
    public void customize(AutoConfigurationCustomizer customizer) {
        customizer.addPropertiesCustomizer(config -> {
            AgentStorageInstaller.install();
            return Map.of();
        });
    }

    @Override
    public int order() {
        // Early among customizers, so the wrapper is registered before anything else can touch
        // the context during the SDK's construction.
        return Integer.MIN_VALUE + 1000;
    }
}
