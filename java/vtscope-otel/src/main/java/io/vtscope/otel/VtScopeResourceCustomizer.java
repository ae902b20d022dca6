// SPDX-License-Identifier: Apache-2.0
package io.vtscope.otel;

import io.opentelemetry.sdk.autoconfigure.spi.AutoConfigurationCustomizer;
import io.opentelemetry.sdk.autoconfigure.spi.AutoConfigurationCustomizerProvider;
import io.opentelemetry.sdk.resources.Resource;

/**
 * Service-loader entry point of OpenTelemetry's SDK autoconfiguration
 * ({@code META-INF/services/io.opentelemetry.sdk.autoconfigure.spi.AutoConfigurationCustomizerProvider}):
 * the resource the SDK ends up with goes into libvtscope's OTEP 4719 process context, so external
 * readers get {@code service.name} and the rest with no configuration. Runs after every other
 * resource customizer (highest order) and returns the resource unchanged. Under the OpenTelemetry
 * Java agent the agent's SDK is not autoconfigured from the application's class path; there
 * vtscope's agent extension publishes the agent's resource, and this customizer (run only by an
 * SDK the application builds itself next to the agent) stands down when the extension is the
 * publisher ({@link VtScopeContextStorage#PUBLISHER_PROPERTY}): the agent's resource is the one
 * its spans, and so the contexts vtscope attributes, are reported under.
 */
public final class VtScopeResourceCustomizer implements AutoConfigurationCustomizerProvider {
    @Override
    public void customize(AutoConfigurationCustomizer customizer) {
        customizer.addResourceCustomizer((resource, config) -> {
            if (!VtScopeContextStorage.PUBLISHER_AGENT_EXTENSION.equals(
                    System.getProperty(VtScopeContextStorage.PUBLISHER_PROPERTY))) {
                VtScopeOtel.publishResource(resource);
            }
            return resource;
        });
    }

    @Override
    public int order() {
        return Integer.MAX_VALUE;
    }
}
