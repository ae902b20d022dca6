package io.vtscope.otel;

import io.opentelemetry.sdk.autoconfigure.spi.AutoConfigurationCustomizer;
import io.opentelemetry.sdk.autoconfigure.spi.AutoConfigurationCustomizerProvider;
import io.opentelemetry.sdk.resources.Resource;

/**
 * Service-loader entry point of OpenTelemetry's SDK autoconfiguration
 * ({@code META-INF/services/io.opentelemetry.sdk.autoconfigure.spi.AutoConfigurationCustomizerProvider};
 * under the Java agent it would have to be an agent extension, with vtscope-java's classes: untested):
 * the resource the SDK ends up with goes into libvtscope's OTEP 4719 process context, so external
 * readers get {@code service.name} and the rest with no configuration. Runs after every other
 * resource customizer (highest order) and returns the resource unchanged.
 */
public final class VtScopeResourceCustomizer implements AutoConfigurationCustomizerProvider {
    @Override
    public void customize(AutoConfigurationCustomizer customizer) {
        customizer.addResourceCustomizer((resource, config) -> {
            VtScopeOtel.publishResource(resource);
            return resource;
        });
    }

    @Override
    public int order() {
        return Integer.MAX_VALUE;
    }
}
